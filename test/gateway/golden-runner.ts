/**
 * Runs golden cases: each a JSON file in test/gateway/golden/ with a legacy
 * request, the core calls it must become, and the legacy answer and headers
 * it must get. Each runs on a fresh real core and gateway holding the search
 * fixtures plus a running job with a waiting manual task (`{job}`, `{task}`)
 * and a job in error (`{errjob}`). `{J1}`..`{J6}`, `{T1}`..`{T5}`,
 * `{GOPS}`, `{GENG}`, `{ALICE}`, `{OLGA}`, `{admin}` name fixture ids.
 * Expected bodies match as subsets: every key given must match, arrays
 * element by element. Each case runs with one credential form of the
 * administrator (test/helpers/credential-forms.ts; golden.test.ts deals the
 * forms out in turn, so every form serves a share of the cases), and no call
 * the rewrite makes may carry `token` in its query.
 */
import assert from 'node:assert/strict';
import { createCoreClient } from '../../gateway/src/core-client.ts';
import { createUpstream } from '../../gateway/src/upstream.ts';
import type { CoreClient } from '../../gateway/src/core-client.ts';
import type { CoreCall } from '../../gateway/src/mapping/run.ts';
import { goldenIds, goldenStore } from './golden-world.ts';
import { request, startCore, testConfig } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import { CREDENTIAL_FORMS } from '../helpers/credential-forms.ts';
import type { CredentialForm } from '../helpers/credential-forms.ts';

export interface GoldenCall {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly body?: unknown;
}

export interface GoldenCase {
  readonly entry: string;
  readonly description?: string;
  /** Platform release the gateway claims; default the config's. */
  readonly release?: string;
  readonly request: { readonly method: string; readonly path: string; readonly query?: Record<string, string>; readonly body?: unknown };
  readonly expectCore: readonly GoldenCall[];
  readonly expectAnswer: { readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> };
}

export function substitute(value: unknown, ids: Record<string, string>): unknown {
  if (typeof value === 'string') return value.replace(/\{(\w+)\}/g, (m, name: string) => ids[name] ?? m);
  if (Array.isArray(value)) return value.map((v) => substitute(v, ids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, ids)]));
  return value;
}

/** `expected` as a subset of `actual`. */
export function assertSubset(actual: unknown, expected: unknown, at = 'body'): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${at} should be an array: ${JSON.stringify(actual)?.slice(0, 300)}`);
    assert.equal(actual.length, expected.length, `${at} length`);
    expected.forEach((e, i) => assertSubset(actual[i], e, `${at}[${i}]`));
  } else if (expected && typeof expected === 'object') {
    assert.ok(actual && typeof actual === 'object' && !Array.isArray(actual), `${at} should be an object: ${JSON.stringify(actual)?.slice(0, 300)}`);
    for (const [k, v] of Object.entries(expected)) assertSubset((actual as Record<string, unknown>)[k], v, `${at}.${k}`);
  } else {
    assert.deepEqual(actual, expected, at);
  }
}

function recording(inner: CoreClient, calls: CoreCall[]): CoreClient {
  return {
    forCaller(credentials, forwarding) {
      const call = inner.forCaller(credentials, forwarding);
      return (c) => {
        calls.push(c);
        return call(c);
      };
    },
    close: () => inner.close(),
  };
}

export async function runGolden(c: GoldenCase, form: CredentialForm = CREDENTIAL_FORMS[1]!): Promise<void> {
  const store = await goldenStore();
  const core = await startCore(store);
  const calls: CoreCall[] = [];
  const config = await testConfig({ CORE_URL: core.url, ...(c.release ? { PLATFORM_RELEASE: c.release } : {}) });
  const gw = await startGateway(core.url, c.release ? { PLATFORM_RELEASE: c.release } : {}, { coreClient: recording(createCoreClient(createUpstream({ url: core.url, caFile: null, tlsVerify: true, timeoutMs: config.gateway.timeoutMs })), calls) });
  try {
    const ids = await goldenIds(core);
    const req = substitute(c.request, ids) as GoldenCase['request'];
    const credential = form.apply(core.adminToken);
    const query = [req.query ? new URLSearchParams(req.query).toString() : '', credential.query ?? ''].filter((q) => q !== '').join('&');
    const res = await request(`${gw.url}${req.path}${query ? `?${query}` : ''}`, {
      method: req.method,
      headers: { ...credential.headers, 'content-type': 'application/json' },
      ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
    });
    const expected = substitute(c.expectAnswer, ids) as GoldenCase['expectAnswer'];
    assert.equal(res.status, expected.status, `answer status (body ${JSON.stringify(res.body)?.slice(0, 400)})`);
    if (expected.body !== undefined) assertSubset(res.body, expected.body);
    for (const [name, value] of Object.entries(expected.headers ?? {})) assert.equal(res.headers.get(name), value, `header ${name}`);
    const expectedCalls = substitute(c.expectCore, ids) as GoldenCall[];
    // The audit's own /whoami lookup is not part of the rewrite.
    const made = calls.filter((k) => k.path !== '/whoami');
    assert.equal(made.length, expectedCalls.length, `core calls: ${JSON.stringify(made)}`);
    for (const k of calls) assert.ok(!Object.hasOwn(k.query ?? {}, 'token'), `a rewritten call carried the token: ${JSON.stringify(k)}`);
    expectedCalls.forEach((e, i) => {
      assert.equal(made[i]!.method, e.method, `call ${i} method`);
      assert.equal(made[i]!.path, e.path, `call ${i} path`);
      if (e.query) assert.deepEqual(made[i]!.query, e.query, `call ${i} query`);
      if (e.body !== undefined) assertSubset(made[i]!.body, e.body, `call ${i} body`);
    });
  } finally {
    await gw.close();
    await core.close();
    await store.close();
  }
}
