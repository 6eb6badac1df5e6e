/**
 * The search benchmark of the core: a query mix over a large embedded store,
 * answered in-process by the store (the baseline: no HTTP, no JSON) and over
 * HTTP by the real core process, side by side in one run.
 */
import { jobs as jobType } from '../../kernel/search/fields.ts';
import { parseSearch } from '../../kernel/search/parse-search.ts';
import type { SearchLimits } from '../../kernel/search/parse-search.ts';
import type { Store } from '../../kernel/store/types.ts';
import type { GoalKey } from './goals.ts';
import { summarize, timeRuns } from './stats.ts';
import type { Summary } from './stats.ts';

export interface QueryCase {
  readonly name: string;
  readonly query: string;
  /** The goals (goals.ts) its HTTP p50 and p99 are judged by; null where none was set (measured only). */
  readonly goal: { p50: GoalKey; p99: GoalKey | null } | null;
  /** Fewer runs for a query that reads every job (an unindexed sort); the mix's count otherwise. */
  readonly runs?: number;
}

export interface QueryResult {
  readonly name: string;
  readonly query: string;
  readonly total: number;
  readonly store: Summary;
  /** One summary per HTTP target, in the order given. */
  readonly http: Summary[];
  readonly goal: QueryCase['goal'];
  /** Runs of this query when fewer than the mix's. */
  readonly runs?: number;
}

const DAY = 86_400_000;

/** Builds the mix from the data itself, so every query selects something real. */
export async function buildQueryMix(store: Store, limits: SearchLimits): Promise<QueryCase[]> {
  const jobsCol = store.collection('jobs');
  const newest = await jobsCol.search(parseSearch(jobType, 'sort=metrics.start_time&order=-1&limit=1', limits));
  const newestStart = (newest.docs[0]?.['metrics'] as { start_time: number }).start_time;
  const spread = await jobsCol.search(parseSearch(jobType, 'skip=1000&limit=1000&include=_id,name', limits));
  const ids = spread.docs.filter((_, i) => i % 10 === 0).map((d) => d['_id'] as string);
  const someName = String(spread.docs[500]?.['name'] ?? 'Port');
  const prefix = encodeURIComponent(someName.slice(0, Math.min(12, someName.length)));
  const indexed = { p50: 'search.indexed-p50', p99: 'search.indexed-p99' } as const;
  return [
    { name: 'status + newest first', query: 'equals[status]=running&sort=metrics.start_time&order=-1&limit=100', goal: indexed },
    { name: 'date range (7 days)', query: `gte[metrics.start_time]=${newestStart - 7 * DAY}&lt[metrics.start_time]=${newestStart}&sort=metrics.start_time&order=-1&limit=100`, goal: indexed },
    { name: 'name prefix', query: `starts-with[name]=${prefix}&limit=100`, goal: indexed },
    { name: 'in on _id (100 ids)', query: `in[_id]=${ids.join(',')}&limit=100`, goal: indexed },
    { name: 'text search on description', query: 'contains[description]=upgrade&limit=100', goal: { p50: 'search.text-p50', p99: null } },
    { name: 'skip=50000', query: 'skip=50000&limit=100', goal: indexed },
    // Sorting on any field (docs/search.md): an indexed one walks its index; an
    // unindexed one reads every match into a top-N sorter bounded by skip + limit.
    { name: 'sort on an indexed field (created)', query: 'sort=created&order=-1&limit=100', goal: indexed },
    { name: 'sort on an unindexed field (created_by), every job', query: 'sort=created_by&order=1&limit=100', goal: null, runs: 20 },
    { name: 'sort on an unindexed field (created_by), status filter, window end', query: `equals[status]=running&sort=created_by&order=-1&skip=${limits.maxUnindexedSortWindow - 100}&limit=100`, goal: null, runs: 20 },
  ];
}

/**
 * Store and HTTP calls alternate, so all see the same machine state and no
 * HTTP connection sits idle long enough to be closed under the client.
 */
export interface HttpTarget {
  readonly baseUrl: string;
  readonly token: string;
}

/**
 * `checkTotals: false` when something else deletes documents meanwhile (the
 * archiver): the HTTP total then legitimately differs from the store's count
 * taken a moment before.
 */
export async function runQueryMix(store: Store, limits: SearchLimits, targets: HttpTarget[], cases: QueryCase[], runs: number, checkTotals = true): Promise<QueryResult[]> {
  const results: QueryResult[] = [];
  for (const c of cases) {
    const request = parseSearch(jobType, c.query, limits);
    let total = -1;
    const storeCall = async (): Promise<void> => {
      total = (await store.collection('jobs').search(request)).total;
    };
    const httpCall = (target: HttpTarget) => async (): Promise<void> => {
      const res = await fetch(`${target.baseUrl}/operations-manager/jobs?${c.query}`, { headers: { authorization: `Bearer ${target.token}` } });
      const body = (await res.json()) as { metadata: { total: number } };
      if (res.status !== 200 || (checkTotals && body.metadata.total !== total)) {
        throw new Error(`${c.name}: HTTP answered ${res.status} with total ${body.metadata.total}, the store counted ${total}`);
      }
    };
    const calls = [storeCall, ...targets.map(httpCall)];
    const samples = calls.map((): number[] => []);
    const warmUps = c.runs === undefined ? 10 : 2;
    for (let i = 0; i < warmUps; i += 1) for (const call of calls) await call();
    for (let i = 0; i < (c.runs ?? runs); i += 1) {
      for (const [k, call] of calls.entries()) samples[k]!.push(...(await timeRuns(1, 0, call)));
    }
    const [storeSummary, ...httpSummaries] = samples.map(summarize);
    results.push({ name: c.name, query: c.query, total, store: storeSummary!, http: httpSummaries, goal: c.goal, ...(c.runs === undefined ? {} : { runs: c.runs }) });
    console.log(`${c.name}: total ${total}, store p50 ${storeSummary!.p50.toFixed(2)} ms, http p50 ${httpSummaries.map((h) => h.p50.toFixed(2)).join(' / ')} ms`);
  }
  return results;
}
