/**
 * Templates: how an entry says what to send and what to answer. A string that
 * is exactly `{path}` stands for the value at that path (any type); `{path}`
 * inside a longer string is interpolated; objects and arrays are filled in
 * recursively; keys whose value is missing are left out. Filters after `|`:
 * `join` (a list as a comma list, commas inside items written %2C, for the
 * `in` operator), `json` (the value as JSON text, for `q`), `string`.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Scope = Record<string, unknown>;

const WHOLE = /^\{([A-Za-z_$][\w$]*(?:\.[\w$]+|\[\d+\])*)(?:\|(join|json|string))?\}$/;
const PART = /\{([A-Za-z_$][\w$]*(?:\.[\w$]+|\[\d+\])*)(?:\|(join|json|string))?\}/g;
const MISSING = Symbol('missing');

/** The value at a dotted path (`body.options.query`, `last.data[0]`); MISSING when absent. */
export function lookup(scope: Scope, path: string): unknown {
  let at: unknown = scope;
  for (const part of path.replace(/\[(\d+)\]/g, '.$1').split('.')) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, part)) return MISSING;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

function filter(value: unknown, name: string | undefined): unknown {
  if (name === 'join') return (Array.isArray(value) ? value : [value]).map((v) => String(v).replace(/,/g, '%2C')).join(',');
  if (name === 'json') return JSON.stringify(value);
  if (name === 'string') return value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return value;
}

export function fill(template: unknown, scope: Scope): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) {
      const value = lookup(scope, whole[1]!);
      return value === MISSING ? undefined : filter(value, whole[2]);
    }
    return template.replace(PART, (_m, path: string, f?: string) => {
      const value = lookup(scope, path);
      return value === MISSING ? '' : String(filter(value, f ?? 'string'));
    });
  }
  if (Array.isArray(template)) return template.map((t) => fill(t, scope)).filter((v) => v !== undefined);
  if (template && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, t] of Object.entries(template)) {
      const v = fill(t, scope);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  return template;
}

/** A path template's value was missing, empty or not a scalar: the legacy request lacked it. */
export class MissingPathValue extends Error {
  constructor(readonly field: string, readonly problem: 'is required' | 'must be a string or a number') {
    super(`${field} ${problem}`);
  }
}

/**
 * Fills a path template for a core call. Each value is one path segment,
 * percent-encoded, so a legacy id such as `../../authorization/accounts`
 * cannot steer the call to another route; a missing or empty value is
 * refused instead of leaving `//` in the path.
 */
export function fillPath(template: string, scope: Scope): string {
  return template.replace(PART, (_m, path: string) => {
    const value = lookup(scope, path);
    const field = path.split('.').pop()!.replace(/\[\d+\]$/, '');
    if (value === MISSING || value === null || value === '') throw new MissingPathValue(field, 'is required');
    if (typeof value !== 'string' && typeof value !== 'number') throw new MissingPathValue(field, 'must be a string or a number');
    return encodeURIComponent(String(value));
  });
}

/** The roots a template refers to (`body`, `params`, ...), for checking entries at start. */
export function references(template: unknown): string[] {
  if (typeof template === 'string') return [...template.matchAll(PART)].map((m) => m[1]!);
  if (Array.isArray(template)) return template.flatMap(references);
  if (template && typeof template === 'object') return Object.values(template).flatMap(references);
  return [];
}
