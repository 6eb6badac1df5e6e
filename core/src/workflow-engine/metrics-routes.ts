/**
 * `GET /workflow_engine/jobs/metrics` and `GET /workflow_engine/tasks/metrics`
 * (2023.2 routes, in ipctl's route fixture): pages `{results, total}` read
 * with the platform's generic list parameters, as itential-mcp calls them
 * (`limit`, `skip`, `equals`/`equalsField`, `contains`/`containsField`,
 * `startsWith`/`startsWithField`). Shapes and gaps: metrics.ts.
 */
import Joi from 'joi';
import { answer, arrayOf, BOOLEAN, closed, INTEGER, joiQuery, NUMBER, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnyRoute, Doc, Store } from '../../../kernel/index.ts';
import { pageParams } from '../http/list-query.ts';
import type { ListLimits } from '../http/list-query.ts';
import { eachWorkflowPage, jobMetric, taskEntries, taskMetric } from './metrics.ts';
import { searcher } from '../auth/caller.ts';
import type { TaskEntry } from './metrics.ts';

const route = routeHelper({ provenance: 'WorkFlowEngine', shape: 'plain' });
/** The engine's readers: what the platform's WorkFlowEngine roles of these names allow (docs/real-platform.md). */
const ENGINE_READ_ROLES = ['admin', 'apiread', 'engineering', 'operations', 'support'];

type Op = 'equals' | 'contains' | 'startsWith';
const OPS: readonly Op[] = ['equals', 'contains', 'startsWith'];
type MetricsQuery = { limit: number; skip: number } & Partial<Record<Op | `${Op}Field`, string>>;
/** Reads one field of an entry as text, for the filters. */
type Fields<T> = Readonly<Record<string, (entry: T) => string>>;

function metricsQuery(fields: readonly string[], limits: ListLimits): ReturnType<typeof joiQuery<MetricsQuery>> {
  const keys: Record<string, Joi.Schema> = { ...pageParams(limits) };
  for (const op of OPS) {
    keys[op] = Joi.string().max(1000).allow('');
    keys[`${op}Field`] = Joi.string().valid(...fields).messages({ 'any.only': `is not a field of these metrics (fields: ${fields.join(', ')})` });
  }
  return joiQuery(Joi.object<MetricsQuery>(keys).and('equals', 'equalsField').and('contains', 'containsField').and('startsWith', 'startsWithField'));
}

function matches<T>(entry: T, query: MetricsQuery, fields: Fields<T>): boolean {
  for (const op of OPS) {
    const value = query[op];
    const field = query[`${op}Field`];
    if (value === undefined || field === undefined) continue;
    const read = fields[field];
    if (!read || !Object.hasOwn(fields, field)) return false;
    const text = read(entry);
    if (op === 'equals' ? text !== value : op === 'contains' ? !text.includes(value) : !text.startsWith(value)) return false;
  }
  return true;
}

/**
 * One entry after another: each reads on the store's search thread in the caller's turn, and all of a page at once
 * would be more than one caller may have waiting there.
 */
async function inTurn<T, R>(entries: readonly T[], read: (entry: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const entry of entries) results.push(await read(entry));
  return results;
}

const JOB_FIELDS: Fields<{ name: string }> = { 'workflow.name': (w) => w.name };
const TASK_FIELDS: Fields<TaskEntry> = { 'workflow.name': (t) => t.workflow.name, app: (t) => t.app, name: (t) => t.name, taskId: (t) => t.taskId, taskType: (t) => t.taskType };
const NAMED = closed({ name: STRING });

export function workflowEngineMetricsRoutes(store: Store, limits: ListLimits): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: '/workflow_engine/jobs/metrics',
      name: 'getJobMetrics',
      roles: ENGINE_READ_ROLES,
      description: 'Job metrics per workflow {results: [{_id, workflow: {name}, jobsComplete, totalRunTime (ms), metrics}], total}, filtered on workflow.name with equals/contains/startsWith and their Field',
      answer: answer(closed({ results: arrayOf(closed({ _id: STRING, workflow: NAMED, jobsComplete: INTEGER, totalRunTime: NUMBER, metrics: arrayOf(closed({})) })), total: INTEGER })),
      input: { query: metricsQuery(Object.keys(JOB_FIELDS), limits) },
      async handle({ query }, ctx) {
        const selected: Doc[] = [];
        await eachWorkflowPage(store, (workflows) => {
          for (const wf of workflows) if (matches({ name: String(wf['name']) }, query, JOB_FIELDS)) selected.push({ _id: wf['_id'], name: wf['name'] });
        });
        const page = selected.slice(query.skip, query.skip + query.limit);
        return { body: { results: await inTurn(page, (wf) => jobMetric(store, wf, searcher(ctx.caller!))), total: selected.length } };
      },
    }),
    route({
      method: 'GET',
      path: '/workflow_engine/tasks/metrics',
      name: 'getTaskMetrics',
      roles: ENGINE_READ_ROLES,
      description: 'Task metrics per task of each workflow {results: [{_id, global, taskId, taskType, name, app, workflow: {name}, metrics: [{totalSuccesses, totalErrors}]}], total}, filtered on workflow.name, app, name, taskId or taskType',
      answer: answer(
        closed({
          results: arrayOf(
            closed({
              _id: STRING,
              global: BOOLEAN,
              taskId: STRING,
              taskType: STRING,
              name: STRING,
              app: STRING,
              workflow: NAMED,
              metrics: arrayOf(closed({ totalSuccesses: INTEGER, totalErrors: INTEGER })),
            }),
          ),
          total: INTEGER,
        }),
      ),
      input: { query: metricsQuery(Object.keys(TASK_FIELDS), limits) },
      async handle({ query }, ctx) {
        const selected: TaskEntry[] = [];
        await eachWorkflowPage(store, (workflows) => selected.push(...taskEntries(workflows).filter((t) => matches(t, query, TASK_FIELDS))));
        const page = selected.slice(query.skip, query.skip + query.limit);
        return { body: { results: await inTurn(page, (t) => taskMetric(store, t, searcher(ctx.caller!))), total: selected.length } };
      },
    }),
  ];
}
