/**
 * Reading job documents back for the engine: filling what older documents
 * lack, and finding the jobs a stopped process left with claimed iterations.
 */
import { jobs as jobType } from '../../../kernel/index.ts';
import type { Condition, FieldDef, Store } from '../../../kernel/index.ts';
import type { JobDoc } from './working.ts';
import type { PrincipalRef } from '../auth/principal.ts';

/** The engine's own marker; not a search field, so clients cannot filter on it. */
const INFLIGHT: FieldDef = { path: '_inflight', type: 'boolean', array: false, arrayOfObjects: null, dateEncoding: null, sortable: false, textSearch: false };

/**
 * Fills what documents written before the engine (seeded or imported jobs)
 * lack. Their task runs are counted from what they list, so an old runaway
 * job meets the run limit at its next start.
 */
export function normalize(stored: JobDoc): JobDoc {
  const runs = stored._taskRuns ?? Object.values(stored.tasks ?? {}).reduce((n, t) => n + (t.iterations?.length ?? 0) + (t.iterationsOmitted ?? 0), 0);
  return { ...stored, _taskRuns: runs, _runs: stored._runs ?? {}, _waiting: stored._waiting ?? [], _outputs: stored._outputs ?? {}, _outputKeys: stored._outputKeys ?? null, error: stored.error ?? [], watchers: stored.watchers ?? [], groups: stored.groups ?? [] };
}

/** Who a job acts for; a job stored before principals were recorded acts for the account that started it. */
export function principalOfJob(job: JobDoc): PrincipalRef {
  return job._principal ?? { kind: 'account', id: job.metrics.user };
}

/** Running jobs with claimed iterations, a page at a time. */
export async function* jobsInFlight(store: Store): AsyncGenerator<JobDoc> {
  const where: Condition = { kind: 'and', items: [{ kind: 'compare', op: 'eq', field: INFLIGHT, value: true }, { kind: 'compare', op: 'eq', field: jobType.fields.get('status')!, value: 'running' }] };
  for (let skip = 0; ; skip += 500) {
    const page = await store.collection('jobs').search({ where, sort: [{ field: jobType.fields.get('_id')!, direction: 1 }], skip, limit: 500 });
    for (const doc of page.docs) yield normalize(doc as JobDoc);
    if (page.docs.length < 500) return;
  }
}

/**
 * Work waiting for its turn, oldest first. One item is let go per turn of the
 * event loop, so however many jobs loop or fan out at once (thousands of
 * children started together), pending I/O (requests) is served between any
 * two of them.
 */
const waiting: Array<() => void> = [];
let scheduled = false;

function release(): void {
  waiting.shift()?.();
  scheduled = waiting.length > 0;
  if (scheduled) setImmediate(release);
}

/** Resolves when it is this work's turn: after the event loop has had a turn, and after all work that asked before it. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(release);
    }
  });
}
