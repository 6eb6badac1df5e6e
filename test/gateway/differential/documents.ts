/**
 * Random job and task documents for the differential suites, drawn from
 * small pools so that queries hit, sorts tie and pages split. Values are
 * typed as the real platform writes them (docs/search.md): `metrics.*_time`
 * epoch milliseconds, `created` / `last_updated` ISO-8601 text, ids as
 * lowercase hexadecimal or UUIDs. Names carry regular-expression syntax and
 * a trailing newline, so literal regex translation is exercised.
 */
import fc from 'fast-check';

export type Doc = Record<string, unknown>;

export const NAMES = ['Port Turn-Up', 'port.turn(up)', 'Alpha', 'alpha', 'Alpha Beta', 'a+b', 'Zed', 'x$y', 'Beta\n', 'Beta'];
export const JOB_STATUSES = ['running', 'complete', 'error', 'canceled', 'paused', 'incomplete'];
export const TASK_STATUSES = ['incomplete', 'running', 'complete', 'error', 'canceled'];
export const USERS = ['u1', 'u2', 'Pronghorn'];
export const GROUPS = ['g1', 'g2', 'g3'];
export const TIMES = [1_700_000_000_000, 1_700_000_000_500, 1_700_000_100_000, 1_710_000_000_000];
export const ISO_TIMES = ['2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.001Z', '2024-06-01T12:30:00.000Z', '2025-02-03T04:05:06.789Z'];
export const PROGRESS = [0, 0.5, 1];
export const TASK_KEYS = ['a1b2', 'c3d4', 'e5f6'];
export const APPS = ['WorkFlowEngine', 'StringMethods', 'Operations'];

const hex = (n: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
export const objectId = hex(24);
export const uuid = fc.uuid().map((u) => u.toLowerCase());

/** A value, or the property left out. */
function maybe<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.option(arb, { nil: undefined, freq: 5 });
}

function compact(doc: Doc): Doc {
  return Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== undefined).map(([k, v]) => [k, v !== null && typeof v === 'object' && !Array.isArray(v) ? compact(v as Doc) : v]));
}

const job = (adminId: string): fc.Arbitrary<Doc> =>
  fc
    .record({
      _id: objectId,
      name: fc.constantFrom(...NAMES),
      description: maybe(fc.constantFrom('upgrade the port', 'Port Turn-Up job', 'nothing')),
      type: fc.constantFrom('automation', 'resource:action'),
      status: fc.constantFrom(...JOB_STATUSES),
      metrics: fc.record({ start_time: maybe(fc.constantFrom(...TIMES)), progress: maybe(fc.constantFrom(...PROGRESS)), user: maybe(fc.constantFrom(...USERS, adminId)) }),
      created: fc.constantFrom(...ISO_TIMES),
      created_by: fc.constantFrom(...USERS),
      last_updated: maybe(fc.constantFrom(...ISO_TIMES)),
      groups: fc.uniqueArray(fc.constantFrom(...GROUPS), { maxLength: 3 }),
      watchers: maybe(fc.uniqueArray(fc.constantFrom(...USERS), { maxLength: 2 })),
      variables: fc.record({ port: fc.constantFrom('Gi0/1', 'Gi0/2'), items: fc.array(fc.record({ x: fc.nat(3), y: maybe(fc.constantFrom('a', 'b')) }), { maxLength: 2 }) }),
      transitions: fc.constant({}),
    })
    .map(compact);

const task = (jobs: readonly Doc[]): fc.Arbitrary<Doc> =>
  fc
    .record({
      _id: uuid,
      name: fc.constantFrom(...NAMES),
      summary: maybe(fc.constantFrom('Make data', 'Wait for a human')),
      app: fc.constantFrom(...APPS),
      type: fc.constantFrom('automatic', 'manual', 'operation'),
      location: fc.constantFrom('Application', 'Broker'),
      status: fc.constantFrom(...TASK_STATUSES),
      parent: fc.constantFrom(...jobs),
      key: fc.constantFrom(...TASK_KEYS),
      groups: fc.uniqueArray(fc.constantFrom(...GROUPS), { maxLength: 2 }),
      last_updated: maybe(fc.constantFrom(...ISO_TIMES)),
      metrics: fc.record({ start_time: maybe(fc.constantFrom(...TIMES)), run_time: maybe(fc.constantFrom(0, 5, 12.5)), owner: maybe(fc.constantFrom(...USERS)) }),
      deprecated: fc.boolean(),
      scheduled: maybe(fc.boolean()),
      variables: fc.record({ incoming: fc.record({ n: fc.nat(5) }) }),
    })
    .map(({ parent, key, ...t }) => compact({ ...t, job: { _id: parent['_id'], task: key, name: parent['name'] } }));

export interface Documents {
  readonly jobs: Doc[];
  readonly tasks: Doc[];
}

/** The documents of one run, drawn from the seed. */
export function drawDocuments(seed: number, adminId: string, counts = { jobs: 40, tasks: 60 }): Documents {
  const [jobs] = fc.sample(fc.uniqueArray(job(adminId), { minLength: counts.jobs, maxLength: counts.jobs, selector: (d) => d['_id'] }), { seed, numRuns: 1 });
  const [tasks] = fc.sample(fc.uniqueArray(task(jobs!), { minLength: counts.tasks, maxLength: counts.tasks, selector: (d) => d['_id'] }), { seed: seed + 1, numRuns: 1 });
  // Plain JSON, as documents come from a store (fast-check's records have no prototype).
  return JSON.parse(JSON.stringify({ jobs, tasks })) as Documents;
}
