/**
 * kernel/http/cross-site.ts: which cookie-authenticated writes are refused
 * (docs/auth.md, "Cross-site requests"). The attacks through real services
 * are in test/security/cross-site.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crossSiteRefusal } from '../../../kernel/http/cross-site.ts';

test('the cross-site rule: writes only, JSON always, forms only where declared, Sec-Fetch-Site before Origin', () => {
  const base = { method: 'POST', origin: 'https://iap.example', formsDeclared: false };
  const refused = (headers: Record<string, string>, extra: Partial<typeof base> = {}): string | null => crossSiteRefusal({ ...base, ...extra, headers });
  assert.equal(refused({ origin: 'https://evil.example' }, { method: 'GET' }), null);
  assert.equal(refused({ 'content-type': 'application/json; charset=utf-8', origin: 'https://evil.example' }), null);
  assert.equal(refused({ 'content-type': 'application/merge-patch+json', 'sec-fetch-site': 'cross-site' }), null);
  assert.match(String(refused({ origin: 'https://iap.example:8443' })), /Cross-site request refused.*Origin https:\/\/iap\.example:8443/);
  assert.match(String(refused({ origin: 'null' })), /Cross-site/);
  assert.match(String(refused({})), /no Origin or Sec-Fetch-Site/);
  assert.match(String(refused({ 'sec-fetch-site': 'same-site', origin: 'https://iap.example' })), /Sec-Fetch-Site: same-site/);
  assert.equal(refused({ origin: 'https://IAP.example' }), null);
  assert.equal(refused({ 'sec-fetch-site': 'same-origin' }), null);
  assert.equal(refused({ 'sec-fetch-site': 'none' }), null);
  assert.match(String(refused({ origin: 'https://iap.example', 'content-type': 'multipart/form-data; boundary=x' })), /Form bodies/);
  assert.equal(refused({ origin: 'https://iap.example', 'content-type': 'application/x-www-form-urlencoded' }, { formsDeclared: true }), null);
  assert.match(String(refused({ origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, { formsDeclared: true })), /Cross-site/, 'declaring forms never admits another origin');
});
