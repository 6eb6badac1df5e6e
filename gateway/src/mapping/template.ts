/**
 * Templates: how an entry says what to send and what to answer. A string that
 * is exactly `{path}` stands for the value at that path (any type); `{path}`
 * inside a longer string is interpolated; objects and arrays are filled in
 * recursively; keys whose value is missing are left out. Filters after `|`:
 * `join` (a list as a comma list, commas inside items written %2C, for the
 * `in` operator), `json` (the value as JSON text, for `q`), `string`.
 */

import { isPrototypeKey, setOwn } from '../../../kernel/index.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Scope = Record<string, unknown>;

const WHOLE = /^\{([A-Za-z_$][\w$]*(?:\.[\w$]+|\[\d+\])*)(?:\|(join|json|string))?\}$/;
const PART = /\{([A-Za-z_$][\w$]*(?:\.[\w$]+|\[\d+\])*)(?:\|(join|json|string))?\}/g;
const MISSING = Symbol('missing');

/**
 * A dotted path split once into its keys: `last.data[0]` is `last`, `data`, `0`.
 * A key that names a prototype is refused here as well as by the loader
 * (load.ts), so no template can read through one.
 */
function keysOf(path: string): readonly string[] {
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  const proto = keys.find(isPrototypeKey);
  if (proto !== undefined) throw new Error(`The template path ${path} goes through ${proto}, which names a prototype, not data`);
  return keys;
}

/** The value at a path's keys (`body.options.query`, `last.data[0]`); MISSING when absent. */
function at(scope: Scope, keys: readonly string[]): unknown {
  let value: unknown = scope;
  for (const key of keys) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return MISSING;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function filter(value: unknown, name: string | undefined): unknown {
  if (name === 'join') return (Array.isArray(value) ? value : [value]).map((v) => String(v).replace(/,/g, '%2C')).join(',');
  if (name === 'json') return JSON.stringify(value);
  if (name === 'string') return value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return value;
}

/** A template made ready to fill: the parsing is done once per template, not on every call. */
type Filler = (scope: Scope) => unknown;

/** A string template as its literal pieces and the placeholders between them. */
function pieces(template: string): Array<string | { readonly keys: readonly string[]; readonly path: string; readonly filter: string | undefined }> {
  const out: Array<string | { keys: readonly string[]; path: string; filter: string | undefined }> = [];
  let last = 0;
  for (const m of template.matchAll(PART)) {
    if (m.index > last) out.push(template.slice(last, m.index));
    out.push({ keys: keysOf(m[1]!), path: m[1]!, filter: m[2] });
    last = m.index + m[0].length;
  }
  if (last < template.length) out.push(template.slice(last));
  return out;
}

function compileString(template: string): Filler {
  const whole = WHOLE.exec(template);
  if (whole) {
    const keys = keysOf(whole[1]!);
    const name = whole[2];
    return (scope) => {
      const value = at(scope, keys);
      return value === MISSING ? undefined : filter(value, name);
    };
  }
  const parts = pieces(template);
  if (parts.every((p) => typeof p === 'string')) return () => template;
  return (scope) => {
    let out = '';
    for (const p of parts) {
      if (typeof p === 'string') out += p;
      else {
        const value = at(scope, p.keys);
        if (value !== MISSING) out += String(filter(value, p.filter ?? 'string'));
      }
    }
    return out;
  };
}

function compile(template: unknown): Filler {
  if (typeof template === 'string') return compileString(template);
  if (Array.isArray(template)) {
    const items = template.map(compiled);
    return (scope) => items.map((f) => f(scope)).filter((v) => v !== undefined);
  }
  if (template && typeof template === 'object') {
    const fields = Object.entries(template).map(([k, t]) => [k, compiled(t)] as const);
    return (scope) => {
      const out: Record<string, unknown> = {};
      for (const [k, f] of fields) {
        const v = f(scope);
        if (v !== undefined) setOwn(out, k, v);
      }
      return out;
    };
  }
  return () => template;
}

// Templates come from the mapping table, loaded once: each is compiled the first time it is filled.
const strings = new Map<string, Filler>();
const objects = new WeakMap<object, Filler>();

function compiled(template: unknown): Filler {
  if (typeof template === 'string') {
    let f = strings.get(template);
    if (!f) strings.set(template, (f = compile(template)));
    return f;
  }
  if (template !== null && typeof template === 'object') {
    let f = objects.get(template);
    if (!f) objects.set(template, (f = compile(template)));
    return f;
  }
  return () => template;
}

/** A string that is exactly one placeholder (`{body.x}`): its value, of any type, is known only when a call fills it. */
export function isPlaceholder(value: unknown): boolean {
  return typeof value === 'string' && WHOLE.test(value);
}

export function fill(template: unknown, scope: Scope): unknown {
  return compiled(template)(scope);
}

const LAST = /^\{last((?:\.[A-Za-z_$][\w$]*)*)\}$/;
const lastPaths = new Map<unknown, readonly Buffer[] | null>();

/**
 * The keys under `last` when the template is exactly `{last}` or
 * `{last.a.b}` (no index, no filter), as UTF-8 bytes; null for any other
 * template. Such an answer can be copied out of the core's JSON as it is.
 */
export function lastPath(template: unknown): readonly Buffer[] | null {
  let keys = lastPaths.get(template);
  if (keys === undefined) {
    const m = typeof template === 'string' ? LAST.exec(template) : null;
    const names = m ? m[1]!.split('.').slice(1) : null;
    // A prototype key never names data: the answer is then filled (and refused) like any other template.
    keys = names && !names.some(isPrototypeKey) ? names.map((k) => Buffer.from(k)) : null;
    lastPaths.set(template, keys);
  }
  return keys;
}

/** A path template's value was missing, empty or not a scalar: the legacy request lacked it. */
export class MissingPathValue extends Error {
  constructor(readonly field: string, readonly problem: 'is required' | 'must be a string or a number') {
    super(`${field} ${problem}`);
  }
}

const paths = new Map<string, (scope: Scope) => string>();

function compilePath(template: string): (scope: Scope) => string {
  const parts = pieces(template).map((p) => (typeof p === 'string' ? p : { keys: p.keys, field: p.path.split('.').pop()!.replace(/\[\d+\]$/, '') }));
  return (scope) => {
    let out = '';
    for (const p of parts) {
      if (typeof p === 'string') {
        out += p;
        continue;
      }
      const value = at(scope, p.keys);
      if (value === MISSING || value === null || value === '') throw new MissingPathValue(p.field, 'is required');
      if (typeof value !== 'string' && typeof value !== 'number') throw new MissingPathValue(p.field, 'must be a string or a number');
      out += encodeURIComponent(String(value));
    }
    return out;
  };
}

/**
 * Fills a path template for a core call. Each value is one path segment,
 * percent-encoded, so a legacy id such as `../../authorization/accounts`
 * cannot steer the call to another route; a missing or empty value is
 * refused instead of leaving `//` in the path.
 */
export function fillPath(template: string, scope: Scope): string {
  let f = paths.get(template);
  if (!f) paths.set(template, (f = compilePath(template)));
  return f(scope);
}

/** The roots a template refers to (`body`, `params`, ...), for checking entries at start. */
export function references(template: unknown): string[] {
  if (typeof template === 'string') return [...template.matchAll(PART)].map((m) => m[1]!);
  if (Array.isArray(template)) return template.flatMap(references);
  if (template && typeof template === 'object') return Object.values(template).flatMap(references);
  return [];
}
