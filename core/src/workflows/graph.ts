/**
 * The transitions of a workflow as a graph: each transition must join two
 * tasks of the workflow with a known type and state, every task must be
 * reachable from workflow_start, and every task must have a way to
 * workflow_end. A job that reaches a task with no way on sticks with "Job
 * has no available transitions", so the editor's save refuses it.
 */
import type { ErrorDetail } from '../../../kernel/index.ts';
import { END, START } from '../engine/types.ts';
import { isPlainObject } from '../../../kernel/index.ts';

const STATES: ReadonlySet<string> = new Set(['success', 'failure', 'error', 'loop']);
const TYPES: ReadonlySet<string> = new Set(['standard', 'revert']);

export interface Edge {
  readonly from: string;
  readonly to: string;
  readonly state: string;
}

/** Problems with the transitions object, and the edges that join known tasks (for the graph checks). */
export function readTransitions(tasks: Readonly<Record<string, unknown>>, transitions: unknown, at: string): { details: ErrorDetail[]; edges: Edge[] } {
  const details: ErrorDetail[] = [];
  const edges: Edge[] = [];
  if (!isPlainObject(transitions)) return { details: [{ parameter: at, message: 'must be an object of {fromTask: {toTask: {type, state}}}' }], edges };
  const known = (key: string): boolean => Object.hasOwn(tasks, key);
  for (const [from, targets] of Object.entries(transitions)) {
    const fromAt = `${at}.${from}`;
    if (!known(from)) details.push({ parameter: fromAt, message: `leaves from ${from}, which is not a task of this workflow` });
    if (!isPlainObject(targets)) {
      details.push({ parameter: fromAt, message: 'must be an object of {toTask: {type, state}}' });
      continue;
    }
    for (const [to, transition] of Object.entries(targets)) {
      const toAt = `${fromAt}.${to}`;
      if (!known(to)) details.push({ parameter: toAt, message: `leads to ${to}, which is not a task of this workflow` });
      const state = isPlainObject(transition) ? transition['state'] : undefined;
      // A malformed transition still joins its tasks, so one mistake is reported once, not again as unreachable tasks.
      if (known(from) && known(to)) edges.push({ from, to, state: typeof state === 'string' ? state : '' });
      if (!isPlainObject(transition)) {
        details.push({ parameter: toAt, message: 'must be an object {type, state}' });
        continue;
      }
      const { type } = transition;
      if (typeof type !== 'string' || !TYPES.has(type)) details.push({ parameter: `${toAt}.type`, message: 'must be standard or revert' });
      if (typeof state !== 'string' || !STATES.has(state)) details.push({ parameter: `${toAt}.state`, message: 'must be success, failure, error or loop' });
    }
  }
  return { details, edges };
}

function successors(edges: readonly Edge[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of edges) {
    const list = out.get(e.from);
    if (list) list.push(e.to);
    else out.set(e.from, [e.to]);
  }
  return out;
}

function walk(start: string, next: (node: string) => readonly string[], stopAt?: string): Set<string> {
  const seen = new Set([start]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const n of next(queue[i]!)) {
      if (n === stopAt || seen.has(n)) continue;
      seen.add(n);
      queue.push(n);
    }
  }
  return seen;
}

/**
 * A forEach loop body ends in a task with no transitions at all; the engine
 * then returns to the forEach for the next item. Those dead ends therefore
 * lead back to the forEach, which is how the platform's own loops are drawn.
 */
function loopReturns(edges: readonly Edge[], next: Map<string, string[]>): Edge[] {
  const extra: Edge[] = [];
  for (const e of edges) {
    if (e.state !== 'loop') continue;
    const body = walk(e.to, (n) => next.get(n) ?? [], e.from);
    for (const n of body) if ((next.get(n) ?? []).length === 0) extra.push({ from: n, to: e.from, state: 'success' });
  }
  return extra;
}

/** Tasks that cannot be reached from workflow_start, and tasks from which workflow_end cannot be reached. */
export function checkGraph(taskKeys: readonly string[], edges: readonly Edge[], at: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const next = successors(edges);
  if (taskKeys.includes(START)) {
    const reached = walk(START, (n) => next.get(n) ?? []);
    for (const key of taskKeys) {
      if (!reached.has(key)) details.push({ parameter: `${at}.${key}`, message: 'cannot be reached from workflow_start by following transitions' });
    }
  }
  if (taskKeys.includes(END)) {
    const previous = new Map<string, string[]>();
    for (const e of [...edges, ...loopReturns(edges, next)]) {
      const list = previous.get(e.to);
      if (list) list.push(e.from);
      else previous.set(e.to, [e.from]);
    }
    const ending = walk(END, (n) => previous.get(n) ?? []);
    for (const key of taskKeys) {
      if (!ending.has(key)) details.push({ parameter: `${at}.${key}`, message: 'is a task with no way to workflow_end: no chain of transitions from it reaches the end' });
    }
  }
  return details;
}
