/**
 * `query`: reads the value at a dot path (`a.b[0].c`, `a.b.0.c`, `["odd.key"]`)
 * inside `obj` and hands it on as `return_data`.
 *
 * Finish states: `success` when something was found; when the path leads
 * nowhere, or to null, `failure` (return_data null) unless `pass_on_null` is
 * true, which makes it `success` with return_data null.
 *
 * Only own data properties are followed, so `__proto__`, `constructor` and
 * `prototype` (and any inherited member) find nothing: a workflow must not be
 * able to read, or later write through, an object's prototype.
 *
 * Bad input (a malformed path, a non-boolean pass_on_null) throws a TaskError;
 * the engine turns it into an `error` outcome with that message.
 */
import { TaskError } from '../types.ts';
import type { TaskHandler } from '../types.ts';
import { optionalBoolean, ownValue, pureTask } from './shared.ts';

/** One segment: a bare name, `[index]`, or a quoted `["key"]` / `['key']`. */
const SEGMENT = /^(?:([^.[\]]+)|\[(\d+)\]|\["([^"]*)"\]|\['([^']*)'\])/;

/** The path's segments, or a TaskError naming what is malformed. */
export function parsePath(path: string): string[] {
  const segments: string[] = [];
  let rest = path;
  while (rest.length > 0) {
    const match = SEGMENT.exec(rest);
    if (match === null) throw new TaskError(`query "${path}" is not a valid path near "${rest}"`);
    segments.push(match[1] ?? match[2] ?? match[3] ?? match[4] ?? '');
    rest = rest.slice(match[0].length);
    // A dot separates segments; a bracket may follow a segment directly.
    if (rest.startsWith('.')) {
      rest = rest.slice(1);
      if (rest.length === 0 || rest.startsWith('.')) throw new TaskError(`query "${path}" has an empty segment`);
    } else if (rest.length > 0 && !rest.startsWith('[')) {
      throw new TaskError(`query "${path}" is not a valid path near "${rest}"`);
    }
  }
  return segments;
}

export function lookUp(obj: unknown, segments: readonly string[]): unknown {
  let current = obj;
  for (const segment of segments) {
    current = ownValue(current, segment);
    if (current === undefined) return undefined;
  }
  return current;
}

export const query: TaskHandler = pureTask({
  name: 'query',
  type: 'automatic',
  incoming: ['pass_on_null', 'query', 'obj'],
  outgoing: ['return_data'],
  run(ctx) {
    const passOnNull = optionalBoolean(ctx.incoming, 'pass_on_null', false);
    const path = ctx.incoming['query'];
    if (typeof path !== 'string' || path.trim().length === 0) throw new TaskError('query must be a non-empty path such as a.b[0].c');
    const found = lookUp(ctx.incoming['obj'], parsePath(path.trim()));
    if (found === undefined || found === null) {
      return { finishState: passOnNull ? 'success' : 'failure', outgoing: { return_data: null } };
    }
    return { finishState: 'success', outgoing: { return_data: found } };
  },
});
