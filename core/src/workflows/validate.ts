/**
 * The checks a workflow must pass to be saved, as one pure function the
 * engine can also call. Every problem is listed with the path it concerns
 * (`automation.transitions.a1b2.c3d4.state`), so an editor can point at it.
 */
import { END, START, VAR_REFERENCE } from '../engine/types.ts';
import { isPlainObject, isPrototypeKey, schemaProblems } from '../../../kernel/index.ts';
import type { ErrorDetail } from '../../../kernel/index.ts';
import { checkGraph, readTransitions } from './graph.ts';
import { checkSafeKeys } from './safe-keys.ts';

/** Keys other than workflow_start and workflow_end; `$var` references only resolve to such ids. */
export const TASK_ID = /^[0-9a-f]{1,4}$/;
export const MAX_NAME_LENGTH = 256;

function checkName(name: unknown, at: string): ErrorDetail[] {
  if (typeof name !== 'string' || name.trim().length === 0) return [{ parameter: at, message: 'is required: a non-empty string' }];
  if (name.length > MAX_NAME_LENGTH) return [{ parameter: at, message: `must be at most ${MAX_NAME_LENGTH} characters` }];
  return [];
}

function checkGroups(groups: unknown, at: string): ErrorDetail[] {
  if (groups === undefined || (Array.isArray(groups) && groups.every((g) => typeof g === 'string'))) return [];
  return [{ parameter: at, message: 'must be a list of group ids' }];
}

/** Task keys and the tasks themselves; the special two need nothing but to exist. */
function checkTasks(tasks: Record<string, unknown>, at: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const key of [START, END]) {
    if (!Object.hasOwn(tasks, key)) details.push({ parameter: `${at}.${key}`, message: `is required: every workflow has a ${key} task` });
  }
  for (const [key, task] of Object.entries(tasks)) {
    const taskAt = `${at}.${key}`;
    const special = key === START || key === END;
    if (!special && !TASK_ID.test(key)) {
      details.push({ parameter: taskAt, message: 'task ids other than workflow_start and workflow_end must be 1 to 4 lowercase hexadecimal characters' });
    }
    if (!isPlainObject(task)) {
      details.push({ parameter: taskAt, message: 'must be an object' });
      continue;
    }
    if (!special && (typeof task['name'] !== 'string' || task['name'].length === 0)) {
      details.push({ parameter: `${taskAt}.name`, message: 'is required: the method the task runs' });
    }
    details.push(...checkVariables(tasks, task['variables'], `${taskAt}.variables`));
  }
  return details;
}

/**
 * `$var` references as the engine resolves them: only direct top-level
 * values, so nested ones are plain data and are not checked. Incoming ones
 * read a job variable or an output of a task of this workflow; outgoing ones
 * may only write job variables.
 */
function checkVariables(tasks: Record<string, unknown>, variables: unknown, at: string): ErrorDetail[] {
  if (variables === undefined) return [];
  if (!isPlainObject(variables)) return [{ parameter: at, message: 'must be an object {incoming, outgoing, error, decorators}' }];
  const details: ErrorDetail[] = [];
  const { incoming, outgoing } = variables;
  for (const [side, values] of [['incoming', incoming], ['outgoing', outgoing]] as const) {
    if (values === undefined) continue;
    if (!isPlainObject(values)) {
      details.push({ parameter: `${at}.${side}`, message: 'must be an object of variable values' });
      continue;
    }
    for (const [name, value] of Object.entries(values)) {
      if (typeof value !== 'string' || !value.startsWith('$var.')) continue;
      const where = `${at}.${side}.${name}`;
      const ref = VAR_REFERENCE.exec(value);
      if (ref && isPrototypeKey(ref[2]!)) details.push({ parameter: where, message: `${value}: ${ref[2]} names a prototype, not a variable` });
      else if (side === 'outgoing') {
        if (!ref || ref[1] !== 'job') details.push({ parameter: where, message: `${value}: outgoing values may only write a job variable ($var.job.NAME)` });
      } else if (!ref) {
        details.push({ parameter: where, message: `${value} is not a reference the engine resolves: use $var.job.NAME or $var.<task id>.NAME` });
      } else if (ref[1] !== 'job' && !Object.hasOwn(tasks, ref[1]!)) {
        details.push({ parameter: where, message: `${value} reads task ${ref[1]}, which is not a task of this workflow` });
      }
    }
  }
  return details;
}

/**
 * Every problem that keeps `doc` from being saved or run, or none. `root`
 * names the document in the paths: `automation` for a new one, `update` for
 * the merged result of an update.
 */
export function validateWorkflow(doc: unknown, root = 'automation'): ErrorDetail[] {
  if (!isPlainObject(doc)) return [{ parameter: root, message: 'must be a workflow object' }];
  // Nothing else is read from a document that could poison a prototype.
  const unsafe = checkSafeKeys(doc, root);
  if (unsafe.length > 0) return unsafe;

  const details: ErrorDetail[] = [...checkName(doc['name'], `${root}.name`), ...checkGroups(doc['groups'], `${root}.groups`)];
  const { tasks } = doc;
  if (!isPlainObject(tasks)) {
    details.push({ parameter: `${root}.tasks`, message: 'is required: an object of tasks keyed by task id, with workflow_start and workflow_end' });
  } else {
    details.push(...checkTasks(tasks, `${root}.tasks`));
    const { details: transitionProblems, edges } = readTransitions(tasks, doc['transitions'], `${root}.transitions`);
    details.push(...transitionProblems);
    // Without a transitions object every task would be reported twice over; the one problem says it all.
    if (isPlainObject(doc['transitions'])) details.push(...checkGraph(Object.keys(tasks), edges, `${root}.tasks`));
  }
  for (const key of ['inputSchema', 'outputSchema']) if (doc[key] !== undefined) details.push(...schemaProblems(doc[key], `${root}.${key}`));
  return details;
}
