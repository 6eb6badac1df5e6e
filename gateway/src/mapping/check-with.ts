/**
 * Checks an entry's `with` template against its hatch's argument schema
 * (HatchRecord.with). A value that is exactly one placeholder (`{body.x}`)
 * is filled per call and may hold anything, so what the schema says of it
 * is left to the hatch at run time; everything written literally (the
 * argument names, `kind`, `op`, lists of fields, nested objects) is checked
 * here. Each problem is a path inside `with` and a reason.
 */
import { shippedSchemaErrors } from '../../../kernel/index.ts';
import type { HatchRecord } from './run.ts';
import { keysOf, pathOf, reasonOf } from './schema-errors.ts';
import { isPlaceholder } from './template.ts';

export interface ArgumentProblem {
  /** `.field`, `.fixed.include[0]`: where inside `with`, empty for `with` itself. */
  readonly path: string;
  readonly reason: string;
}

function valueAt(value: unknown, keys: readonly string[]): unknown {
  let here = value;
  for (const key of keys) {
    if (here === null || typeof here !== 'object') return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

export function checkArguments(hatch: HatchRecord, args: unknown): ArgumentProblem[] {
  const problems: ArgumentProblem[] = [];
  const seen = new Set<string>();
  for (const error of shippedSchemaErrors(hatch.with, args === undefined ? {} : args)) {
    // `if` only says that `then` or `else` failed; their own errors say what.
    if (error.keyword === 'if') continue;
    if (isPlaceholder(valueAt(args, keysOf(error.instancePath)))) continue;
    const { keys, reason } = reasonOf(error, hatch.name);
    const problem = { path: pathOf(keys), reason };
    const key = `${problem.path}: ${problem.reason}`;
    if (!seen.has(key)) problems.push(problem);
    seen.add(key);
  }
  return problems;
}
