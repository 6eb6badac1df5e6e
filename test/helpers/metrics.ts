/**
 * Reading the Prometheus text format in tests, and a scraper's service
 * account (holding only `Metrics.read`) made through the core's HTTP
 * interface, as an operator would make one (docs/metrics.md).
 */
import assert from 'node:assert/strict';
import { roleId } from '../../kernel/store/ids.ts';
import type { RunningCore } from './core.ts';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of an exposition, comments skipped. */
export function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample with this name and these labels (among others), or undefined. */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples(text).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value;
}

export interface Scraper {
  readonly clientId: string;
  readonly secret: string;
  readonly token: string;
}

/** A service account holding only Metrics.read, its secret, and a token for it. */
export async function createScraper(core: RunningCore, name = 'prometheus'): Promise<Scraper> {
  const made = await core.request('/oauth/serviceAccounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, assignedRoles: [{ roleId: roleId('Metrics', 'read') }] }) });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const { client_id: clientId, client_secret: secret } = (made.body as { data: { client_id: string; client_secret: string } }).data;
  const token = await core.request('/oauth/token', { method: 'POST', token: null, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=${clientId}&client_secret=${secret}` });
  assert.equal(token.status, 200, JSON.stringify(token.body));
  return { clientId, secret, token: (token.body as { access_token: string }).access_token };
}
