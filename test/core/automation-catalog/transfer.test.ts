/**
 * Moving automations in and out over HTTP: export answers the import format,
 * import inserts what it reads (round-tripping an export), and the migration
 * converts scheduler-library (Agenda) job documents, saying what it skipped.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { BASE, createAutomation, quickWorkflow, send, update } from './helpers.ts';
import type { Json } from './helpers.ts';

let core: RunningCore;
before(async () => {
  core = await startCore((await openTestStore()));
});
after(() => core.close());

test('export answers identity, data and schedule; importing it after a delete restores the same automation', async () => {
  await quickWorkflow(core, 'export-target');
  const a = await createAutomation(core, 'Exported');
  const id = a['_id'] as string;
  const saved = await update(core, id, { workflow: 'export-target', gbac: { read: ['r'], write: ['w'] }, formData: { site: 'lab' }, repeatInterval: '0 6 * * *', repeatTimezone: 'Asia/Tokyo' });
  const res = await send(core, 'GET', `${BASE}/${id}/export`);
  assert.equal(res.status, 200);
  const exported = res.body as Json;
  assert.deepEqual(exported, {
    _id: id, name: 'Exported', type: 'normal', data: saved['data'],
    nextRunAt: saved['nextRunAt'], repeatInterval: '0 6 * * *', repeatTimezone: 'Asia/Tokyo', disabled: false,
  });
  assert.equal((await send(core, 'DELETE', BASE, [id])).status, 200);
  const imported = await send(core, 'POST', `${BASE}/import`, exported);
  assert.equal(imported.status, 200, JSON.stringify(imported.body));
  const body = imported.body as { message: string; imported: Json[]; failed: unknown[] };
  assert.equal(body.message, 'Successfully imported 1 of 1 documents');
  assert.deepEqual(body.failed, []);
  const back = (await send(core, 'GET', `${BASE}/${id}`)).body as Json;
  assert.deepEqual({ ...back, data: { ...(back['data'] as Json), lastUpdated: 'x' } }, { ...saved, data: { ...(saved['data'] as Json), lastUpdated: 'x' } });
  assert.equal((await send(core, 'GET', `${BASE}/${id}/export`)).status, 200);
  assert.deepEqual({ ...((await send(core, 'GET', `${BASE}/${id}/export`)).body as Json), data: 'x' }, { ...exported, data: 'x' }, 'export → import → export is stable');
});

test('import takes {automations: [...]} or an array; bad items are listed and the others still go in', async () => {
  const res = await send(core, 'POST', `${BASE}/import`, {
    automations: [
      { name: 'Imported one', data: { description: 'first', workflowId: 'a6e3c7b2-0000-4000-8000-000000000001' }, repeatInterval: '1 hour', nextRunAt: '2030-01-01T00:00:00Z' },
      { name: 'Bad interval', repeatInterval: 'fortnightly-ish' },
      { data: { description: 'no name' } },
      { name: 'Imported two', data: { gbac: { read: 'everyone' } } },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as { message: string; imported: Json[]; failed: Array<{ parameter: string; message: string }> };
  assert.equal(body.message, 'Successfully imported 1 of 4 documents');
  assert.deepEqual(body.imported.map((d) => d['name']), ['Imported one']);
  assert.deepEqual(body.failed.map((f) => f.parameter), ['automations[1].repeatInterval', 'automations[2].name', 'automations[3].data.gbac']);
  const one = body.imported[0]!;
  assert.deepEqual([one['nextRunAt'], one['repeatInterval'], one['lastRunAt'], one['lockedAt'], one['lastModifiedBy']], ['2030-01-01T00:00:00.000Z', '1 hour', null, null, 'admin']);
  const array = await send(core, 'POST', `${BASE}/import`, [{ name: 'From array' }]);
  assert.equal(array.status, 200);
});

test('import gives a new id when the given one is taken, and refuses (400) when nothing could be imported', async () => {
  const a = await createAutomation(core, 'Original');
  const copy = await send(core, 'POST', `${BASE}/import`, { _id: a['_id'], name: 'Copy of original' });
  assert.equal(copy.status, 200);
  const made = (copy.body as { imported: Json[] }).imported[0]!;
  assert.notEqual(made['_id'], a['_id']);
  assert.match(made['_id'] as string, /^[0-9a-f]{24}$/);
  const dup = await send(core, 'POST', `${BASE}/import`, { name: 'Original' });
  assert.equal(dup.status, 400);
  assert.match((dup.body as Json)['message'] as string, /Imported 0 of 1 documents: automations\[0\]\.name Original is already used/);
  for (const body of [[], {}, 'text']) assert.equal((await send(core, 'POST', `${BASE}/import`, body)).status, 400, JSON.stringify(body));
});

test('migrateSchedulerJobs converts Agenda job documents and answers what it converted and skipped', async () => {
  await createAutomation(core, 'Already here');
  const jobs = [
    {
      _id: { $oid: '64b7f0c2a1b2c3d4e5f60718' }, name: 'Weekly report', type: 'single', priority: 0,
      data: { description: 'Mail the report', workflowId: 'a6e3c7b2-0000-4000-8000-000000000002', formData: { to: 'ops' }, gbac: { read: [], write: ['g'] } },
      nextRunAt: { $date: '2030-03-02T08:00:00.000Z' }, lockedAt: { $date: '2026-01-01T00:00:00Z' }, lastRunAt: { $date: { $numberLong: '1767225600000' } },
      lastFinishedAt: '2026-01-01T00:00:05.000Z', repeatInterval: '0 8 * * 1', repeatTimezone: 'Europe/Paris', disabled: false, failCount: 2,
    },
    { name: 'Every minute', data: { workflowName: 'some workflow', variables: { n: 1 } }, nextRunAt: 1893456000000, repeatInterval: 60000 },
    { name: 'At half past', repeatAt: '3:30pm' },
    { data: {} },
    { name: 'Already here' },
    { name: 'Broken cron', repeatInterval: '99 * * * *' },
  ];
  const res = await send(core, 'POST', `${BASE}/migration`, { jobs });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as { message: string; converted: Array<{ index: number; _id: string; name: string }>; skipped: Array<{ index: number; name: string | null; reason: string }> };
  assert.equal(body.message, 'Converted 2 of 6 scheduler jobs');
  assert.deepEqual(body.converted.map((c) => [c.index, c.name]), [[0, 'Weekly report'], [1, 'Every minute']]);
  assert.equal(body.converted[0]!._id, '64b7f0c2a1b2c3d4e5f60718', 'the Agenda id is kept');
  assert.deepEqual(body.skipped.map((s) => [s.index, s.name]), [[2, 'At half past'], [3, null], [4, 'Already here'], [5, 'Broken cron']]);
  assert.match(body.skipped[0]!.reason, /repeatAt/);
  assert.match(body.skipped[1]!.reason, /no name/);
  assert.match(body.skipped[2]!.reason, /already exists/);
  assert.match(body.skipped[3]!.reason, /minute/);
  const weekly = (await send(core, 'GET', `${BASE}/64b7f0c2a1b2c3d4e5f60718`)).body as Json;
  assert.deepEqual(
    [weekly['nextRunAt'], weekly['repeatInterval'], weekly['repeatTimezone'], weekly['lockedAt'], weekly['lastRunAt'], weekly['lastFinishedAt'], weekly['failCount'], weekly['type']],
    ['2030-03-02T08:00:00.000Z', '0 8 * * 1', 'Europe/Paris', null, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:05.000Z', undefined, 'normal'],
  );
  assert.deepEqual({ ...(weekly['data'] as Json), lastUpdated: 'x' }, { description: 'Mail the report', workflowId: 'a6e3c7b2-0000-4000-8000-000000000002', formData: { to: 'ops' }, gbac: { read: [], write: ['g'] }, lastUpdated: 'x' });
  const minute = (await send(core, 'GET', `${BASE}/${body.converted[1]!._id}`)).body as Json;
  assert.deepEqual([minute['repeatInterval'], minute['nextRunAt'], (minute['data'] as Json)['workflow'], (minute['data'] as Json)['formData']], ['60 seconds', '2030-01-01T00:00:00.000Z', 'some workflow', { n: 1 }]);
  const again = await send(core, 'POST', `${BASE}/migration`, jobs.slice(0, 1));
  assert.deepEqual((again.body as { converted: unknown[] }).converted, [], 'migrating twice converts nothing the second time');
});
