/**
 * The mapping schema's errors as an operator reads them. A step is one of
 * five shapes (`oneOf` in mappings/schema.json), so a wrong step makes Ajv
 * report every shape it is not; the key a step starts with (`call`, `code`,
 * ...) says which shape was meant, and only that shape's errors are kept.
 * An escape hatch's arguments (check-with.ts) are reported the same way,
 * worded for the hatch.
 */
import type { ErrorObject } from 'ajv';

/** The step shapes in the order of mappings/schema.json's `oneOf`. */
const STEP_KINDS = ['call', 'translateQuery', 'answer', 'code', 'unavailable'] as const;

export interface SchemaProblem {
  /** JSON Pointer keys of the value at fault. */
  readonly keys: readonly string[];
  readonly reason: string;
}

export function keysOf(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function stepAt(table: unknown, keys: readonly string[]): unknown {
  if (keys[0] !== 'entries' || keys[2] !== 'steps' || keys[3] === undefined) return undefined;
  return (table as { entries?: Array<{ steps?: unknown[] }> }).entries?.[Number(keys[1])]?.steps?.[Number(keys[3])];
}

/** Which oneOf branch a step meant, by the shape key it holds; -1 when it holds none. */
function branchOf(step: unknown): number {
  if (step === null || typeof step !== 'object') return -1;
  return STEP_KINDS.findIndex((k) => k in step);
}

/** `.a.b[0]`, with brackets for indexes and keys that are not plain names. */
export function pathOf(keys: readonly string[]): string {
  return keys.map((k) => (/^\d+$/.test(k) ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`)).join('');
}

/** What one error says, about the table, or (`hatch` given) about that hatch's arguments. */
export function reasonOf(error: ErrorObject, hatch?: string): SchemaProblem {
  const keys = keysOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return { keys: [...keys, String(params['missingProperty'])], reason: hatch ? `is required by ${hatch}` : 'is required' };
  if (error.keyword === 'additionalProperties') {
    const unknown = [...keys, String(params['additionalProperty'])];
    if (!hatch) return { keys: unknown, reason: 'is not a field here' };
    const known = Object.keys((error.parentSchema?.['properties'] as object | undefined) ?? {});
    return { keys: unknown, reason: `is not an argument of ${hatch}${keys.length === 0 ? ` (it takes ${known.join(', ')})` : ''}` };
  }
  if (error.keyword === 'const') return { keys, reason: `must be ${JSON.stringify(params['allowedValue'])}` };
  if (error.keyword === 'enum') return { keys, reason: `must be one of ${(params['allowedValues'] as unknown[]).map(String).join(', ')}` };
  return { keys, reason: error.message ?? 'is not valid' };
}

export function schemaProblems(errors: readonly ErrorObject[], table: unknown): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  const push = (p: SchemaProblem): void => {
    const key = `${p.keys.join('/')}: ${p.reason}`;
    if (!seen.has(key)) out.push(p);
    seen.add(key);
  };
  for (const error of errors) {
    const keys = keysOf(error.instancePath);
    const branch = /^#\/oneOf(?:\/(\d+))?/.exec(error.schemaPath);
    const step = branch && keys.length >= 4 ? stepAt(table, keys) : undefined;
    if (!branch || step === undefined) {
      push(reasonOf(error));
      continue;
    }
    const meant = branchOf(step);
    if (meant === -1) push({ keys: keys.slice(0, 4), reason: `must be a step: an object with one of ${STEP_KINDS.join(', ')}` });
    else if (branch[1] !== undefined && Number(branch[1]) === meant) push(reasonOf(error));
  }
  return out;
}
