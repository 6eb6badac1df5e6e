/** Finding the jobs a stopped process left with claimed iterations. */
import { jobs as jobType } from '../../../kernel/index.ts';
import type { Condition, FieldDef, Store } from '../../../kernel/index.ts';
import { normalizeJob } from '../jobs/document.ts';
import type { JobDoc } from '../jobs/document.ts';

/** The engine's own marker; not a search field, so clients cannot filter on it. */
const INFLIGHT: FieldDef = { path: '_inflight', type: 'boolean', array: false, arrayOfObjects: null, dateEncoding: null, sortable: false, textSearch: false };

/** Running jobs with claimed iterations, a page at a time. */
export async function* jobsInFlight(store: Store): AsyncGenerator<JobDoc> {
  const where: Condition = { kind: 'and', items: [{ kind: 'compare', op: 'eq', field: INFLIGHT, value: true }, { kind: 'compare', op: 'eq', field: jobType.fields.get('status')!, value: 'running' }] };
  for (let skip = 0; ; skip += 500) {
    const page = await store.collection('jobs').search({ where, sort: [{ field: jobType.fields.get('_id')!, direction: 1 }], skip, limit: 500 });
    for (const doc of page.docs) yield normalizeJob(doc as JobDoc);
    if (page.docs.length < 500) return;
  }
}
