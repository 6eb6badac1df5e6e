/**
 * The gateway speaks only what a real Itential Platform serves. Every golden
 * case (test/gateway/golden/) runs again with the platform stand-in
 * (tools/platform-sim) between the gateway and the real core, and the
 * stand-in's recording is read: every request the gateway made must be a
 * route of the platform's 2023.2 route list with a body the platform takes
 * (the stand-in refuses anything else) and a query of documented filters only
 * (the stand-in drops, and records, any other). The stand-in pages with a cap
 * far below the gateway's page, so every paged read is read as the platform
 * would answer it. The only requests allowed to be refused are the two the
 * gateway tries on purpose, creating a local account and setting its
 * password, which the platform does not serve (decision 32): their legacy
 * answer must then say so.
 *
 * The gateway reaches the stand-in over HTTPS, trusting its CA through
 * CORE_CA_FILE, and the callers present the administrator's token as the
 * `token` cookie or the `token` query parameter, in turn: the two forms the
 * platform documents for a login token, which the gateway passes on as they
 * came.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { substitute } from './golden-runner.ts';
import type { GoldenCase } from './golden-runner.ts';
import { goldenIds, goldenStore } from './golden-world.ts';
import { startPlatformSim } from '../../tools/platform-sim/server.ts';
import type { PlatformSim } from '../../tools/platform-sim/server.ts';
import { makeTls, opensslMissing } from '../../tools/platform-sim/tls.ts';
import type { TlsMaterial } from '../../tools/platform-sim/tls.ts';
import type { Store } from '../../kernel/store/types.ts';

const DIR = 'test/gateway/golden';
const cases = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort().map((f) => ({ file: f, c: JSON.parse(readFileSync(join(DIR, f), 'utf8')) as GoldenCase }));
/** Far below the gateway's page (gateway.upstreamPageMax, 100): every whole-list read takes several pages. */
export const PAGE_CAP = 2;
/** The two routes the gateway tries knowing a real platform may not serve them (decision 32). */
const PROBES = [/^POST \/authorization\/accounts$/, /^PUT \/authorization\/accounts\/[^/]+\/password$/];
const NO_REPLACEMENT = /^This platform offers no replacement for /;

export const missing = opensslMissing();
const tls: TlsMaterial | null = missing === null ? makeTls() : null;

export interface World {
  readonly store: Store;
  readonly core: RunningCore;
  readonly sim: PlatformSim;
  readonly gw: RunningGateway;
  readonly cookie: string;
  readonly token: string;
  close(): Promise<void>;
}

/** A legacy request's headers and query for the administrator, as the `token` cookie or query parameter. */
function credential(w: World, form: 'cookie' | 'query'): { headers: Record<string, string>; query: string } {
  return form === 'cookie' ? { headers: { cookie: w.cookie }, query: '' } : { headers: {}, query: `token=${encodeURIComponent(w.token)}` };
}

export async function world(env: Record<string, string> = {}): Promise<World> {
  const store = await goldenStore();
  const core = await startCore(store);
  // The plain port is for this test's own role lookups; the gateway speaks HTTPS.
  const sim = await startPlatformSim({ coreUrl: core.url, pageCap: PAGE_CAP, plainPort: 0, tls: tls! });
  const dir = mkdtempSync(join(tmpdir(), 'platform-dialect-'));
  writeFileSync(join(dir, 'ca.pem'), sim.ca);
  const gw = await startGateway(sim.url, { ...env, CORE_CA_FILE: join(dir, 'ca.pem') });
  return {
    store, core, sim, gw,
    cookie: `token=${core.adminToken}`,
    token: core.adminToken,
    async close() {
      await gw.close();
      await sim.close();
      await core.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every role of our core: its id, and its provenance and name. */
async function coreRoles(w: World): Promise<Array<{ _id: string; provenance: string; name: string }>> {
  const res = await request(`${w.core.url}/authorization/roles?limit=1000`, { headers: { authorization: `Bearer ${w.core.adminToken}` } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { results: Array<{ _id: string; provenance: string; name: string }> }).results;
}

/**
 * The request with our core's role ids in it written as the stand-in's ids
 * for the same roles (a platform's role ids are its own), looked up by the
 * platform's filters on provenance and name.
 */
async function withPlatformRoleIds(w: World, text: string): Promise<string> {
  for (const role of await coreRoles(w)) {
    if (!text.includes(role._id)) continue;
    const query = `multiEquals[provenance]=${encodeURIComponent(role.provenance)}&multiEquals[name]=${encodeURIComponent(role.name)}`;
    const res = await request(`${w.sim.plainUrl!}/authorization/roles?${query}`, { headers: { cookie: w.cookie } });
    const [platform] = (res.body as { results: Array<{ _id: string }> }).results;
    assert.ok(platform, `the stand-in lists ${role.provenance}.${role.name}`);
    text = text.replaceAll(role._id, platform._id);
  }
  return text;
}

function requestPath(url: string): string {
  return url.split('?')[0]!;
}

/**
 * Runs one golden case through the gateway in front of the stand-in and reads
 * the stand-in's recording (the header of this file says what must hold).
 */
export async function runInFrontOfPlatform(c: GoldenCase, form: 'cookie' | 'query'): Promise<void> {
  const w = await world(c.release ? { PLATFORM_RELEASE: c.release } : {});
  try {
    const ids = await goldenIds(w.core);
    const req = JSON.parse(await withPlatformRoleIds(w, JSON.stringify(substitute(c.request, ids)))) as GoldenCase['request'];
    const since = w.sim.requests.length;
    const given = credential(w, form);
    const query = [req.query ? new URLSearchParams(req.query).toString() : '', given.query].filter((q) => q !== '').join('&');
    const res = await request(`${w.gw.url}${req.path}${query ? `?${query}` : ''}`, {
      method: req.method,
      headers: { ...given.headers, 'content-type': 'application/json' },
      ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
    });
    const made = w.sim.requests.slice(since);
    let probed = false;
    for (const r of made) {
      const route = `${r.method} ${requestPath(r.url)}`;
      assert.deepEqual(r.ignored, [], `${route}: the platform would ignore these filters and answer everything`);
      if (r.refused === null) continue;
      assert.ok(PROBES.some((p) => p.test(route)), `${route} was refused by the platform stand-in: ${r.refused}`);
      probed = true;
    }
    if (probed) {
      assert.equal(res.status, 500, JSON.stringify(res.body));
      assert.match(String(res.body), NO_REPLACEMENT);
    } else {
      assert.equal(res.status, c.expectAnswer.status, `answer status (body ${JSON.stringify(res.body)?.slice(0, 400)})`);
    }
  } finally {
    await w.close();
  }
}

/** The golden cases of one legacy family, each with its credential form, dealt out in turn. */
export function casesOf(family: string): Array<{ file: string; c: GoldenCase; form: 'cookie' | 'query' }> {
  return cases.filter(({ c }) => c.entry.startsWith(`${family}.`)).map((k, i) => ({ ...k, form: i % 2 === 0 ? 'cookie' : 'query' }));
}
