/** Finding the jobs a stopped process left with claimed iterations. */
import { and, jobs as jobType, WALK_PAGE_BYTES } from '../../../kernel/index.ts';
import type { Condition, FieldDef, Store } from '../../../kernel/index.ts';
import { normalizeJob } from '../jobs/document.ts';
import type { JobDoc } from '../jobs/document.ts';

/** The engine's own marker; not a search field, so clients cannot filter on it. */
const INFLIGHT: FieldDef = { path: '_inflight', type: 'boolean', array: false, arrayOfObjects: null, dateEncoding: null, sortable: false, textSearch: false };

const PAGE = 500;

/**
 * Running jobs with claimed iterations, a page at a time, each page after the last one's `_id`: the jobs resumed
 * from one page finish and leave the set while the next is read, which would shift pages counted by `skip`. A job
 * may hold megabytes, so a page holds at most WALK_PAGE_BYTES and a start after a crash never reads 500 large jobs
 * at once.
 */
export async function* jobsInFlight(store: Store): AsyncGenerator<JobDoc> {
  const id = jobType.fields.get('_id')!;
  const inFlight: Condition[] = [{ kind: 'compare', op: 'eq', field: INFLIGHT, value: true }, { kind: 'compare', op: 'eq', field: jobType.fields.get('status')!, value: 'running' }];
  for (let after: string | null = null; ; ) {
    const where = and(after === null ? inFlight : [...inFlight, { kind: 'compare', op: 'gt', field: id, value: after }]);
    const docs = await store.collection('jobs').findPage({ where, sort: [{ field: id, direction: 1 }], skip: 0, limit: PAGE, maxBytes: WALK_PAGE_BYTES, shorten: true });
    for (const doc of docs) yield normalizeJob(doc as JobDoc);
    if (docs.length === 0) return;
    after = String(docs[docs.length - 1]!['_id']);
  }
}
