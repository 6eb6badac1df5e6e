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
 * The stand-in is reached on its plain port with the `token` cookie, a
 * credential form the gateway passes on as it came.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
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
const PAGE_CAP = 2;
/** The two routes the gateway tries knowing a real platform may not serve them (decision 32). */
const PROBES = [/^POST \/authorization\/accounts$/, /^PUT \/authorization\/accounts\/[^/]+\/password$/];
const NO_REPLACEMENT = /^This platform offers no replacement for /;

const missing = opensslMissing();
const tls: TlsMaterial | null = missing === null ? makeTls() : null;

interface World {
  readonly store: Store;
  readonly core: RunningCore;
  readonly sim: PlatformSim;
  readonly gw: RunningGateway;
  readonly cookie: string;
  close(): Promise<void>;
}

async function world(env: Record<string, string> = {}): Promise<World> {
  const store = await goldenStore();
  const core = await startCore(store);
  const sim = await startPlatformSim({ coreUrl: core.url, pageCap: PAGE_CAP, plainPort: 0, tls: tls! });
  const gw = await startGateway(sim.plainUrl!, env);
  return {
    store, core, sim, gw,
    cookie: `token=${core.adminToken}`,
    async close() {
      await gw.close();
      await sim.close();
      await core.close();
      await store.close();
    },
  };
}

/** Every role, keyed by provenance and name, from a `{results, total}` list read page by page. */
async function rolesByName(url: string, headers: Record<string, string>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let skip = 0; ; ) {
    const res = await request(`${url}/authorization/roles?skip=${skip}&limit=100`, { headers });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { results, total } = res.body as { results: Array<{ _id: string; provenance: string; name: string }>; total: number };
    for (const r of results) out.set(`${r.provenance}.${r.name}`, r._id);
    skip += results.length;
    if (results.length === 0 || skip >= total) return out;
  }
}

/** The core's role ids in a request, as the ids the stand-in gives the same roles (a platform's role ids are its own). */
async function platformRoleIds(w: World): Promise<Map<string, string>> {
  const core = await rolesByName(w.core.url, { authorization: `Bearer ${w.core.adminToken}` });
  const platform = await rolesByName(w.sim.plainUrl!, { cookie: w.cookie });
  return new Map([...core].map(([name, id]) => [id, platform.get(name)!]));
}

function requestPath(url: string): string {
  return url.split('?')[0]!;
}

describe('every golden case in front of the platform stand-in', { skip: missing === null ? false : `skipped: ${missing}` }, () => {
  for (const { file, c } of cases) {
    test(`${c.entry}: only platform routes, bodies and filters reach the upstream (${file})`, async () => {
      const w = await world(c.release ? { PLATFORM_RELEASE: c.release } : {});
      try {
        const ids = await goldenIds(w.core);
        let text = JSON.stringify(substitute(c.request, ids));
        for (const [coreId, platformId] of await platformRoleIds(w)) text = text.replaceAll(coreId, platformId);
        const req = JSON.parse(text) as GoldenCase['request'];
        const since = w.sim.requests.length;
        const query = req.query ? `?${new URLSearchParams(req.query).toString()}` : '';
        const res = await request(`${w.gw.url}${req.path}${query}`, {
          method: req.method,
          headers: { cookie: w.cookie, 'content-type': 'application/json' },
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
    });
  }
});

describe('paging by what the upstream answered, behind a platform with a smaller page cap', { skip: missing === null ? false : `skipped: ${missing}` }, () => {
  let w: World;
  before(async () => {
    w = await world();
    await goldenIds(w.core);
  });
  after(async () => {
    await w.close();
  });

  const legacy = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await request(`${w.gw.url}${path}`, { method, headers: { cookie: w.cookie, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const coreTotal = async (path: string): Promise<number> => {
    const res = await request(`${w.core.url}${path}`, { headers: { authorization: `Bearer ${w.core.adminToken}` } });
    const body = res.body as { total?: number; metadata?: { total: number } };
    return body.total ?? body.metadata!.total;
  };

  test('a legacy account list with limit 0 answers every account, and its total agrees', async () => {
    const all = await coreTotal('/authorization/accounts?limit=1');
    assert.ok(all > PAGE_CAP, `the fixture has more accounts (${all}) than one page of the stand-in`);
    const { results, total } = (await legacy('GET', '/accounts?limit=0')) as { results: unknown[]; total: number };
    assert.equal(total, all);
    assert.equal(results.length, all);
  });

  test('a legacy job search with limit 0 answers every job, across the stand-in\'s pages, and its total agrees', async () => {
    const all = await coreTotal('/operations-manager/jobs?limit=1');
    assert.ok(all > PAGE_CAP);
    const { results, total } = (await legacy('POST', '/workflow_engine/jobs/search', { options: { query: {}, limit: 0 } })) as { results: unknown[]; total: number };
    assert.equal(total, all);
    assert.equal(results.length, all);
    assert.equal(new Set(results.map((j) => (j as { _id: string })._id)).size, all, 'no job read twice, none skipped');
  });

  test('a whole legacy list (GET /config/roles) holds every role the upstream counts', async () => {
    const all = await coreTotal('/authorization/roles?limit=1');
    const roles = (await legacy('GET', '/config/roles')) as unknown[];
    assert.equal(roles.length, all);
  });

  test('the legacy limit is served exactly when it spans several of the stand-in\'s pages', async () => {
    const { results } = (await legacy('POST', '/workflow_engine/jobs/search', { options: { query: {}, limit: PAGE_CAP + 2, skip: 1 } })) as { results: unknown[] };
    assert.equal(results.length, PAGE_CAP + 2);
  });
});
