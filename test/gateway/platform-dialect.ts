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
 * came. The gateway is told PLATFORM_RELEASE=2023.1 and
 * GATEWAY_SERVE_UNTIL=2024.1 (test/helpers/in-front-of-platform.ts): every
 * legacy operation is served, with `Sunset` at 2024.1's date.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { NO_REPLACEMENT_PROBES, PLATFORM_SERVING, platformMissing, recordingProblems, startInFrontOfPlatform } from '../helpers/in-front-of-platform.ts';
import { substitute } from './golden-runner.ts';
import type { GoldenCase } from './golden-runner.ts';
import { goldenIds, goldenStore } from './golden-world.ts';
import type { PlatformSim } from '../../tools/platform-sim/server.ts';
import type { Store } from '../../kernel/store/types.ts';
import { CALENDAR_FILE } from '../../gateway/src/app.ts';
import { loadCalendar } from '../../kernel/releases.ts';

const DIR = 'test/gateway/golden';
const cases = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort().map((f) => ({ file: f, c: JSON.parse(readFileSync(join(DIR, f), 'utf8')) as GoldenCase }));
/** Far below the gateway's page (gateway.upstreamPageMax, 100): every whole-list read takes several pages. */
export const PAGE_CAP = 2;
const NO_REPLACEMENT = /^This platform offers no replacement for /;

export const missing = platformMissing;
/** The gateway's own sunset in this mode: GATEWAY_SERVE_UNTIL's release, as `Sunset` writes it. */
const SUNSET = loadCalendar(CALENDAR_FILE).dateOf(PLATFORM_SERVING.GATEWAY_SERVE_UNTIL).toUTCString();

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

/** Core, stand-in and gateway (test/helpers/in-front-of-platform.ts), on the golden world's store. */
export async function world(env: Record<string, string> = {}): Promise<World> {
  const store = await goldenStore();
  // The plain port is for this test's own role lookups; the gateway speaks HTTPS.
  const up = await startInFrontOfPlatform({ store, pageCap: PAGE_CAP, plainPort: true, gatewayEnv: env });
  return {
    store, core: up.core, sim: up.sim, gw: up.gateway,
    cookie: `token=${up.core.adminToken}`,
    token: up.core.adminToken,
    async close() {
      await up.close();
      await store.close();
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

/**
 * Runs one golden case through the gateway in front of the stand-in and reads
 * the stand-in's recording (the header of this file says what must hold).
 * The gateway serves as an operator in front of a 2023.1 platform would have
 * it (PLATFORM_SERVING): a case that expects 410 because its operation is
 * past its removal is served instead, with the gateway's own `Sunset`; a
 * case that names a release of its own keeps it, since that release is what
 * it proves.
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
    assert.deepEqual(recordingProblems(made, NO_REPLACEMENT_PROBES), [], 'what reached the platform stand-in');
    const probed = made.some((r) => r.refused !== null);
    const shown = `(body ${JSON.stringify(res.body)?.slice(0, 400)})`;
    if (probed) {
      assert.equal(res.status, 500, shown);
      assert.match(String(res.body), NO_REPLACEMENT);
      return;
    }
    const expected = JSON.parse(await withPlatformRoleIds(w, JSON.stringify(substitute(c.expectAnswer, ids)))) as GoldenCase['expectAnswer'];
    if (expected.status === 410 && !c.release) {
      // Served means rewritten, or, for an operation with nothing to rewrite to, the legacy error saying so.
      const served = res.status < 400 || (res.status === 500 && /no replacement/.test(String(res.body)));
      assert.ok(served, `served until ${PLATFORM_SERVING.GATEWAY_SERVE_UNTIL}, not refused: ${res.status} ${shown}`);
    } else {
      assert.equal(res.status, expected.status, `answer status ${shown}`);
    }
    const headers = expected.headers ?? {};
    if (headers['deprecation'] !== undefined) assert.equal(res.headers.get('deprecation'), headers['deprecation'], 'header deprecation');
    if (headers['sunset'] !== undefined) assert.equal(res.headers.get('sunset'), SUNSET, `header sunset: the gateway's own, ${PLATFORM_SERVING.GATEWAY_SERVE_UNTIL}`);
    if (headers['link'] !== undefined && res.status === expected.status) assert.equal(res.headers.get('link'), headers['link'], 'header link');
  } finally {
    await w.close();
  }
}

/** The golden cases of one legacy family, each with its credential form, dealt out in turn. */
export function casesOf(family: string): Array<{ file: string; c: GoldenCase; form: 'cookie' | 'query' }> {
  return cases.filter(({ c }) => c.entry.startsWith(`${family}.`)).map((k, i) => ({ ...k, form: i % 2 === 0 ? 'cookie' : 'query' }));
}
