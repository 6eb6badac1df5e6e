/**
 * A limit on how deeply a request body may nest. JSON.parse reads bodies
 * nested thousands of levels deep, but JSON.stringify, the validators and
 * the engine recurse and overflow the stack on them (a job started with such
 * variables was an INTERNAL 500): the body parsers refuse them up front.
 */
import { AppError } from '../errors.ts';

/** Far deeper than any workflow, form or schema the interface takes (documents stop at 100: workflows/safe-keys.ts). */
export const MAX_BODY_DEPTH = 256;

/** The error for a body nested deeper than MAX_BODY_DEPTH, or null; walks without recursion. */
export function bodyDepthError(body: unknown): AppError | null {
  const stack: Array<[unknown, number]> = [[body, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_BODY_DEPTH) return new AppError(400, 'INVALID_JSON', `Request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
  return null;
}
