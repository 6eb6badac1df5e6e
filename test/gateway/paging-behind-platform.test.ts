/**
 * Paging follows what the upstream answered: behind the platform stand-in,
 * whose page cap (2) is far below the gateway's page (gateway.upstreamPageMax,
 * 100), a legacy read of everything still answers every record, and its total
 * agrees. A gateway that stopped on a short page would answer one page.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../helpers/core.ts';
import { goldenIds } from './golden-world.ts';
import { missing, PAGE_CAP, world } from './platform-dialect.ts';
import type { World } from './platform-dialect.ts';

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
