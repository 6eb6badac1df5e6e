/**
 * `childJob`: starts jobs of another workflow and waits for them to end.
 *
 * Incoming: `task` (unused, the canvas saves ""), `workflow` (its name),
 * `variables` (`{name: {task, value}}`: `static` takes `value` literally,
 * `job` reads the job variable named by `value`, a task id reads that task's
 * outgoing variable named by `value`), `data_array`, `transformation` and
 * `loopType` (`""`, `"parallel"` or `"sequential"`).
 *
 * Without a loop type one child starts with the resolved variables and
 * `data_array` is ignored. With one, every `data_array` item (each must be an
 * object) starts a child whose variables are the resolved variables with the
 * item's keys spread over them (the item wins). When `transformation` names a
 * transformation, each item is first run through it and its result (an
 * object) is spread instead, as the platform documents for child job loops.
 * An empty data_array starts nothing and succeeds with `job_details: []`.
 *
 * Every value a child receives that would be undefined is null, at any depth,
 * because the child's variables are stored as JSON.
 *
 * Outgoing `job_details`: one `{_id, name, status, variables, output, error}`
 * for a single child, an array of them (in data_array order) for a loop.
 * Finish `success` when every child is `complete`; otherwise `error` with a
 * message naming each child that was not, and job_details still set. Bad
 * input throws a TaskError and a rejected runChildJobs propagates; the engine
 * turns either into an `error` outcome with its message.
 */
import { TaskError } from '../types.ts';
import type { ChildJobRequest, ChildJobResult, TaskContext, TaskHandler, TaskOutcome } from '../types.ts';
import { optionalObject, requireString, resolveReference, undefinedToNull } from './shared.ts';
import { isPlainObject } from '../../../../kernel/index.ts';
import { START_JOB } from '../permissions.ts';

type LoopType = '' | 'parallel' | 'sequential';

function readLoopType(value: unknown): LoopType {
  if (value === undefined || value === null || value === '') return '';
  if (value === 'parallel' || value === 'sequential') return value;
  throw new TaskError('loopType must be "", "parallel" or "sequential"');
}

function optionalName(value: unknown, name: string): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string') throw new TaskError(`${name} must be a string`);
  return value;
}

function resolveVariables(ctx: TaskContext): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(optionalObject(ctx.incoming, 'variables'))) {
    if (name === '__proto__') throw new TaskError('variables must not have a "__proto__" entry');
    if (!isPlainObject(entry)) throw new TaskError(`variables.${name} must be an object {task, value}`);
    resolved[name] = resolveReference(ctx, entry['task'], entry['value'], `variables.${name}`);
  }
  return resolved;
}

function readItems(value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null || value === '') return [];
  if (!Array.isArray(value)) throw new TaskError('data_array must be an array when loopType is set');
  return value.map((item: unknown, i) => {
    if (!isPlainObject(item)) throw new TaskError(`data_array[${i}] must be an object, whose keys become the child's variables`);
    return item;
  });
}

async function itemVariables(ctx: TaskContext, item: Record<string, unknown>, transformation: string, i: number): Promise<Record<string, unknown>> {
  if (transformation === '') return item;
  const result = await ctx.services.runTransformation(transformation, item, {});
  if (!isPlainObject(result)) throw new TaskError(`transformation ${transformation} did not return an object for data_array[${i}]`);
  return result;
}

function childVariables(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  return undefinedToNull({ ...base, ...extra }) as Record<string, unknown>;
}

/** Only the documented fields of a child job reach `job_details`, whatever else the engine's result carries. */
function details(result: ChildJobResult): ChildJobResult {
  const { _id, name, status, variables, output, error } = result;
  return { _id, name, status, variables, output, error };
}

function outcome(results: readonly ChildJobResult[], looped: boolean): TaskOutcome {
  const all = results.map(details);
  const jobDetails = looped ? all : all[0];
  const failed = all.filter((child) => child.status !== 'complete');
  if (failed.length === 0) return { finishState: 'success', outgoing: { job_details: jobDetails } };
  const names = failed.map((child) => `${child.name} (${child._id}): ${child.status}`).join('; ');
  return {
    finishState: 'error',
    outgoing: { job_details: jobDetails },
    error: `${failed.length} of ${all.length} child job(s) did not complete: ${names}`,
  };
}

export const childJob: TaskHandler = {
  name: 'childJob',
  app: 'WorkFlowEngine',
  type: 'automatic',
  // Starting a job is what POST /operations-manager/jobs/start needs; a transformation of the items needs its own (the engine checks it).
  reach: { outside: true, needs: START_JOB },
  incoming: ['task', 'workflow', 'variables', 'data_array', 'transformation', 'loopType'],
  outgoing: ['job_details'],
  async run(ctx) {
    const workflow = requireString(ctx.incoming, 'workflow');
    const loopType = readLoopType(ctx.incoming['loopType']);
    const transformation = optionalName(ctx.incoming['transformation'], 'transformation');
    const base = resolveVariables(ctx);
    const items = loopType === '' ? [] : readItems(ctx.incoming['data_array']);
    if (ctx.signal.aborted) return { finishState: 'error', outgoing: {}, error: 'childJob was aborted before its children started' };

    if (loopType === '') {
      const results = await ctx.services.runChildJobs([{ workflow, variables: childVariables(base, {}) }], 'parallel');
      if (results.length !== 1) throw new Error(`runChildJobs answered ${results.length} results for 1 child job`);
      return outcome(results, false);
    }
    if (items.length === 0) return { finishState: 'success', outgoing: { job_details: [] } };
    const requests: ChildJobRequest[] = [];
    for (const [i, item] of items.entries()) {
      requests.push({ workflow, variables: childVariables(base, await itemVariables(ctx, item, transformation, i)) });
    }
    const results = await ctx.services.runChildJobs(requests, loopType);
    if (results.length !== requests.length) throw new Error(`runChildJobs answered ${results.length} results for ${requests.length} child jobs`);
    return outcome(results, true);
  },
};
