/**
 * Checks an entry's `with` template against its hatch's argument schema
 * (HatchRecord.with). A value that is exactly one placeholder (`{body.x}`)
 * is filled per call and may hold anything, so what the schema says of it
 * is left to the hatch at run time; everything written literally (the
 * argument names, `kind`, `op`, lists of fields, nested objects) is checked
 * here. Each problem is a path inside `with` and a reason.
 */
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { HatchRecord } from './run.ts';
import { isPlaceholder } from './template.ts';

export interface ArgumentProblem {
  /** `.field`, `.fixed.include[0]`: where inside `with`, empty for `with` itself. */
  readonly path: string;
  readonly reason: string;
}

// verbose: an unknown argument is reported with the names the schema takes (parentSchema).
const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const compiled = new WeakMap<HatchRecord, ValidateFunction>();

function validatorOf(hatch: HatchRecord): ValidateFunction {
  let validate = compiled.get(hatch);
  if (!validate) {
    validate = ajv.compile(hatch.with);
    compiled.set(hatch, validate);
  }
  return validate;
}

function pointerKeys(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(value: unknown, keys: readonly string[]): unknown {
  let here = value;
  for (const key of keys) {
    if (here === null || typeof here !== 'object') return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/** `.a.b[0]`, with brackets for indexes and keys that are not plain names. */
export function pathOf(keys: readonly string[]): string {
  return keys.map((k) => (/^\d+$/.test(k) ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`)).join('');
}

function describe(error: ErrorObject, hatch: HatchRecord): ArgumentProblem {
  const keys = pointerKeys(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return { path: pathOf([...keys, String(params['missingProperty'])]), reason: `is required by ${hatch.name}` };
  if (error.keyword === 'additionalProperties') {
    const known = Object.keys((error.parentSchema?.['properties'] as object | undefined) ?? {});
    return { path: pathOf([...keys, String(params['additionalProperty'])]), reason: `is not an argument of ${hatch.name}${keys.length === 0 ? ` (it takes ${known.join(', ')})` : ''}` };
  }
  if (error.keyword === 'enum') return { path: pathOf(keys), reason: `must be one of ${(params['allowedValues'] as unknown[]).map(String).join(', ')}` };
  return { path: pathOf(keys), reason: error.message ?? 'is not valid' };
}

export function checkArguments(hatch: HatchRecord, args: unknown): ArgumentProblem[] {
  const validate = validatorOf(hatch);
  if (validate(args === undefined ? {} : args)) return [];
  const problems: ArgumentProblem[] = [];
  const seen = new Set<string>();
  for (const error of validate.errors ?? []) {
    // `if` only says that `then` or `else` failed; their own errors say what.
    if (error.keyword === 'if') continue;
    if (isPlaceholder(valueAt(args, pointerKeys(error.instancePath)))) continue;
    const problem = describe(error, hatch);
    const key = `${problem.path}: ${problem.reason}`;
    if (!seen.has(key)) problems.push(problem);
    seen.add(key);
  }
  return problems;
}
