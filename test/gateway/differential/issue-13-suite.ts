/**
 * The four requests of issue 13, each against MongoDB's answer (mingo) on
 * the documents of the differential world: a dropped sort, limit 0 read as
 * "none", a limit above the search's page refused, and a projection dropped.
 * Each answered something else, silently, before legacy searches kept
 * MongoDB's semantics.
 *
 * Runs in two modes, one test file each: in front of our core
 * (issue-13.test.ts), and over HTTPS in front of the platform stand-in
 * (issue-13-platform.test.ts), which ends by reading what reached it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mongoCount, mongoFind, wrapper } from './oracle.ts';
import { PAGE, startWorld } from './world.ts';
import type { Credential, Mode, World } from './world.ts';
import { recordingProblems } from '../../helpers/in-front-of-platform.ts';

let world: World;
/** The mode's first and second credential forms (Bearer and the query token in front of our core). */
const first = (): Credential => world.credentials[0]!;
const second = (): Credential => world.credentials[1]!;

export function issue13Suite(mode: Mode): void {
  before(async () => {
    world = await startWorld(13, mode);
  });
  after(() => world?.close());

  test('find sorts by the caller\'s sort (metrics.start_time descending), not by name', async () => {
    const res = await world.send({ method: 'POST', path: '/workflow_engine/jobs/find', body: { query: {}, options: { sort: { 'metrics.start_time': -1 }, limit: 20 } } }, first());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepStrictEqual(res.body, mongoFind(world.jobs, {}, { sort: [['metrics.start_time', -1]], limit: 20 }));
  });

  test('jobs/search sorts by options.sort as well', async () => {
    const res = await world.send({ method: 'POST', path: '/workflow_engine/jobs/search', body: { options: { query: {}, sort: { status: -1 }, limit: 5 } } }, second());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepStrictEqual(res.body, wrapper(world.jobs, {}, { sort: [['status', -1]], limit: 5 }));
  });

  test('find with limit 0 answers every matching job, past the search\'s page, as MongoDB does', async () => {
    const query = { status: { $in: ['error', 'running', 'complete'] } };
    assert.ok(mongoCount(world.jobs, query) > PAGE, 'the case needs more matches than one page');
    const res = await world.send({ method: 'POST', path: '/workflow_engine/jobs/find', body: { query, options: { limit: 0 } } }, first());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepStrictEqual(res.body, mongoFind(world.jobs, query, { sort: [] }));
  });

  test('jobs/search with a limit above the search\'s maximum pages instead of refusing', async () => {
    const res = await world.send({ method: 'POST', path: '/workflow_engine/jobs/search', body: { options: { query: {}, limit: 1500 } } }, first());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepStrictEqual(res.body, wrapper(world.jobs, {}, { sort: [], limit: 1500 }));
    assert.equal((res.body as { results: unknown[] }).results.length, world.jobs.length);
  });

  test('jobs/search answers only the fields the projection names (and _id)', async () => {
    const fields = { name: 1, status: 1 };
    const res = await world.send({ method: 'POST', path: '/workflow_engine/jobs/search', body: { options: { query: {}, fields, limit: 3 } } }, first());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepStrictEqual(res.body, wrapper(world.jobs, {}, { sort: [], limit: 3, projection: fields }));
    for (const job of (res.body as { results: object[] }).results) assert.deepEqual(Object.keys(job).sort(), ['_id', 'name', 'status']);
  });

  test('a sort the new search cannot express is the legacy error naming it, not another order', async () => {
    const res = await world.send({ method: 'POST', path: '/workflow_engine/jobs/find', body: { query: {}, options: { sort: { status: 1, name: -1 } } } }, first());
    assert.equal(res.status, 500);
    assert.match(String(res.body), /sort status: 1, name: -1 cannot be expressed/);
  });

  if (mode === 'platform') {
    test('what reached the platform stand-in is what a real platform serves', () => {
      assert.ok(world.sim!.requests.length > 0, 'the gateway reached the stand-in');
      assert.deepEqual(recordingProblems(world.sim!.requests), []);
    });
  }
}
