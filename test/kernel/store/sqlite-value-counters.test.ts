/**
 * Totals from the embedded store's value counters are exact: for random
 * documents and random writes (inserts, status/name/start-time changes,
 * deletes, batches), every covered query's total equals mingo's count over
 * the same documents (MongoDB semantics, an independent oracle), and so do
 * the totals of shapes that fall back to counting (group visibility, two
 * fields). Set COUNTER_SEED to explore other runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Query } from 'mingo';
import type { AnyObject } from 'mingo/types';
import { and } from '../../../kernel/search/conditions.ts';
import type { Condition } from '../../../kernel/search/conditions.ts';
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { toMongoFilter } from '../../../kernel/search/to-mongo.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Doc } from '../../../kernel/store/types.ts';
import { visibility } from '../../../core/src/operations-manager/search-service.ts';
import type { Caller } from '../../../core/src/auth/caller.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const SEED = Number(process.env['COUNTER_SEED'] ?? 20261124);
const HOUR = 3_600_000;
const DAY = 86_400_000;
const BASE = Date.UTC(2026, 10, 20);
const field = (path: string) => jobType.fields.get(path)!;

const STATUSES = ['running', 'complete', 'error', 'paused', 'canceled'];
const NAMES = ['Port Turn-Up', 'Port Audit', 'Device Backup', 'Dev', 'a', 'ab', 'abc', '', 'é', '\u{1f600}x'];
// Near day and hour boundaries, so whole and partial intervals both occur.
const instant = fc.oneof(
  fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: 0, max: 23 }), fc.constantFrom(-1000, -1, 0, 1, 999, 1000, 59_999, 60_000, 1800_000)).map(([d, h, e]) => BASE + d * DAY + h * HOUR + e),
  fc.integer({ min: BASE - 4 * DAY, max: BASE + 4 * DAY }),
  fc.integer({ min: BASE - 4 * DAY, max: BASE + 4 * DAY }).map((n) => n + 0.5),
);
const startTime = fc.oneof({ weight: 8, arbitrary: instant.map((n): unknown => n) }, { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'soon', undefined, 2 ** 51, -(2 ** 51)) });

interface Fields {
  status: string | number | undefined;
  name: string;
  start: unknown;
  groups: string[] | undefined;
}
const fieldsArb: fc.Arbitrary<Fields> = fc.record({
  // A number where a string is declared: never equal to, nor in a range of, strings (type bracketing).
  status: fc.option(fc.oneof({ weight: 9, arbitrary: fc.constantFrom<string | number>(...STATUSES) }, { weight: 1, arbitrary: fc.constantFrom(3, -1.5) }), { nil: undefined, freq: 8 }),
  name: fc.constantFrom(...NAMES),
  start: startTime,
  groups: fc.option(fc.subarray(['g1', 'g2']), { nil: undefined }),
});

function makeDoc(id: number, f: Fields): Doc {
  const doc: Doc = { _id: id.toString(16).padStart(24, '0'), name: f.name };
  if (f.status !== undefined) doc['status'] = f.status;
  if (f.start !== undefined) doc['metrics'] = { start_time: f.start };
  if (f.groups !== undefined) doc['groups'] = f.groups;
  return doc;
}

type Write =
  | { op: 'insert'; fields: Fields }
  | { op: 'replace'; pick: number; fields: Partial<Fields> }
  | { op: 'delete'; pick: number }
  | { op: 'batch'; pick: number; status: string };
const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), fields: fieldsArb }),
  fc.record({ op: fc.constant('replace' as const), pick: fc.nat(), fields: fc.record({ status: fc.constantFrom(...STATUSES), start: startTime, name: fc.constantFrom(...NAMES) }, { requiredKeys: [] }) }),
  fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('batch' as const), pick: fc.nat(), status: fc.constantFrom(...STATUSES) }),
);

const bound = instant.filter((n) => Number.isInteger(n) || n % 1 === 0.5);
/** Query shapes the counters cover. */
const coveredArb: fc.Arbitrary<Condition> = fc.oneof(
  fc.constantFrom(...STATUSES, 'nope').map((v): Condition => ({ kind: 'compare', op: 'eq', field: field('status'), value: v })),
  fc.subarray([...STATUSES, 'nope'], { minLength: 1 }).map((vs): Condition => ({ kind: 'in', field: field('status'), values: vs })),
  fc.tuple(fc.constantFrom('gt', 'gte', 'lt', 'lte') as fc.Arbitrary<'gt' | 'gte' | 'lt' | 'lte'>, fc.constantFrom(...STATUSES, 'd', 'q')).map(([op, v]): Condition => ({ kind: 'compare', op, field: field('status'), value: v })),
  fc.constantFrom(...NAMES, 'Port', 'Po', 'x').map((v): Condition => ({ kind: 'match', mode: 'prefix', field: field('name'), text: v })),
  fc.constantFrom(...NAMES).map((v): Condition => ({ kind: 'compare', op: 'eq', field: field('name'), value: v })),
  fc.tuple(bound, bound, fc.boolean(), fc.boolean()).map(([a, b, li, ui]): Condition => ({
    kind: 'and',
    items: [
      { kind: 'compare', op: li ? 'gte' : 'gt', field: field('metrics.start_time'), value: Math.min(a, b) },
      { kind: 'compare', op: ui ? 'lte' : 'lt', field: field('metrics.start_time'), value: Math.max(a, b) },
    ],
  })),
  fc.tuple(bound, fc.constantFrom('gt', 'gte', 'lt', 'lte') as fc.Arbitrary<'gt' | 'gte' | 'lt' | 'lte'>).map(([a, op]): Condition => ({ kind: 'compare', op, field: field('metrics.start_time'), value: a })),
);
/** Shapes that must fall back to counting: a non-administrator's visibility, or two fields. */
const fallbackArb: fc.Arbitrary<Condition> = fc.tuple(coveredArb, fc.oneof(
  fc.subarray(['g1', 'g2']).map((groups): Condition => visibility(jobType, { groupIds: new Set(groups), adminOf: new Set<string>() } as unknown as Caller)!),
  fc.constantFrom(...STATUSES).map((v): Condition => ({ kind: 'compare', op: 'eq', field: field('status'), value: v })),
)).map(([a, b]) => and([a, b])!);

function oracle(docs: Iterable<Doc>, where: Condition): number {
  const q = new Query(toMongoFilter(where) as AnyObject, {});
  let n = 0;
  for (const d of docs) if (q.test(d as AnyObject)) n += 1;
  return n;
}

test('totals from counters equal a plain count after random writes, for covered and fallback queries', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fieldsArb, { maxLength: 40 }), fc.array(writeArb, { maxLength: 40 }), fc.array(coveredArb, { minLength: 1, maxLength: 8 }), fc.array(fallbackArb, { maxLength: 3 }), async (initial, writes, covered, fallback) => {
      const store = SqliteStore.open({ dataDir: ':memory:', countCacheEntries: 0, collections: CORE_COLLECTIONS });
      const col = store.collection('jobs');
      const model = new Map<string, Doc>();
      let next = 1;
      try {
        const firstDocs = initial.map((f) => makeDoc(next++, f));
        await col.insertMany(firstDocs);
        for (const d of firstDocs) model.set(d['_id'] as string, d);
        for (const w of writes) {
          const ids = [...model.keys()];
          if (w.op === 'insert') {
            const d = makeDoc(next++, w.fields);
            await col.insertOne(d);
            model.set(d['_id'] as string, d);
            continue;
          }
          if (ids.length === 0) continue;
          const id = ids[w.pick % ids.length]!;
          const old = model.get(id)!;
          if (w.op === 'delete') {
            assert.equal(await col.deleteOne(id), true);
            model.delete(id);
          } else if (w.op === 'replace') {
            const d: Doc = { ...old, ...(w.fields.status === undefined ? {} : { status: w.fields.status }), ...(w.fields.name === undefined ? {} : { name: w.fields.name }) };
            if ('start' in w.fields) d['metrics'] = { start_time: w.fields.start };
            await col.replaceOne(d);
            model.set(id, JSON.parse(JSON.stringify(d)) as Doc);
          } else {
            const d: Doc = { ...old, status: w.status };
            assert.equal(await store.batch([{ op: 'replace', collection: 'jobs', doc: d }]), true);
            model.set(id, d);
          }
        }
        for (const where of covered) {
          const expected = oracle(model.values(), where);
          assert.equal(col.countedTotal(where), expected, `counters: ${JSON.stringify(toMongoFilter(where))}`);
          assert.equal((await col.search({ where, sort: [], skip: 0, limit: 1 })).total, expected);
        }
        for (const where of fallback) {
          assert.equal(col.countedTotal(where), null, 'a shape the counters do not cover is counted');
          assert.equal(await col.count(where), oracle(model.values(), where), `fallback: ${JSON.stringify(toMongoFilter(where))}`);
        }
      } finally {
        await store.close();
      }
    }),
    { seed: SEED, numRuns: 150 },
  );
});
