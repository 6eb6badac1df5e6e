/**
 * A path-parameter check compiled once from a Joi object schema of plain
 * strings (`{ id: joiObjectId().required() }`): the valid case answered
 * without Joi, anything else (a missing, empty, too long or ill-formed value,
 * a key the schema does not name) handed back to Joi, so every refusal is
 * Joi's own, word for word. Joi costs about 10 µs for the one parameter of a
 * job read; this about a tenth of it (docs/http-path.md).
 *
 * Only schemas whose every rule is understood here are compiled: strings
 * with `min`, `max`, one `pattern` and `lowercase`, required or optional,
 * with their own messages (which only refusals show). Any other schema gets
 * null and is checked by Joi alone.
 */
import type Joi from 'joi';

interface StringKey {
  readonly key: string;
  readonly required: boolean;
  readonly min: number;
  readonly max: number;
  readonly pattern: RegExp | null;
  readonly lower: boolean;
}

/** Checks raw parameters: their Joi value when valid, undefined when Joi must say why not. */
export type FastCheck = (raw: Record<string, string>) => Record<string, string> | undefined;

interface Described {
  readonly type?: string;
  readonly keys?: Record<string, Described>;
  readonly flags?: Record<string, unknown>;
  readonly rules?: ReadonlyArray<{ readonly name: string; readonly args?: Record<string, unknown> }>;
  readonly preferences?: Record<string, unknown>;
}

function only(value: object | undefined, allowed: readonly string[]): boolean {
  return value === undefined || Object.keys(value).every((k) => allowed.includes(k));
}

function compileKey(key: string, d: Described, schema: Joi.Schema): StringKey | null {
  if (d.type !== 'string' || !only(d, ['type', 'flags', 'rules', 'preferences']) || !only(d.flags, ['presence']) || !only(d.preferences, ['messages'])) return null;
  const presence = d.flags?.['presence'];
  if (presence !== undefined && presence !== 'required' && presence !== 'optional') return null;
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  let pattern: RegExp | null = null;
  let lower = false;
  for (const rule of d.rules ?? []) {
    const args = rule.args ?? {};
    if ((rule.name === 'min' || rule.name === 'max') && only(args, ['limit']) && typeof args['limit'] === 'number') {
      if (rule.name === 'min') min = Math.max(min, args['limit']);
      else max = Math.min(max, args['limit']);
    } else if (rule.name === 'pattern' && pattern === null && only(args, ['regex'])) {
      // The schema's own expression (describe() gives only its text); Joi refuses global and sticky ones.
      const own = (schema.$_getRule('pattern') as { args?: { regex?: unknown } } | undefined)?.args?.regex;
      if (!(own instanceof RegExp) || own.global || own.sticky) return null;
      pattern = own;
    } else if (rule.name === 'case' && args['direction'] === 'lower') {
      lower = true;
    } else {
      return null;
    }
  }
  return { key, required: presence === 'required', min, max, pattern, lower };
}

/** The fast check of an object schema of plain strings, or null when it has anything else. */
export function compileParams(schema: Joi.Schema): FastCheck | null {
  const described = schema.describe() as Described;
  if (described.type !== 'object' || !only(described, ['type', 'keys']) || described.keys === undefined) return null;
  const keys: StringKey[] = [];
  for (const [key, d] of Object.entries(described.keys)) {
    const child = schema.extract(key) as Joi.Schema;
    const compiled = compileKey(key, d, child);
    if (compiled === null) return null;
    keys.push(compiled);
  }
  const named = new Set(keys.map((k) => k.key));
  return (raw) => {
    let given = 0;
    for (const k of Object.keys(raw)) {
      if (!named.has(k)) return undefined;
      given += 1;
    }
    // Joi's answer is a copy of the input with each value as converted.
    const out: Record<string, string> = { ...raw };
    let seen = 0;
    for (const k of keys) {
      const value: unknown = Object.hasOwn(raw, k.key) ? raw[k.key] : undefined;
      if (value === undefined) {
        if (k.required) return undefined;
        continue;
      }
      seen += 1;
      if (typeof value !== 'string' || value === '') return undefined;
      // Joi converts first (it lower-cases as the locale does), then checks the converted text.
      const converted = k.lower ? value.toLocaleLowerCase() : value;
      if (converted.length < k.min || converted.length > k.max || (k.pattern !== null && !k.pattern.test(converted))) return undefined;
      out[k.key] = converted;
    }
    return seen === given ? out : undefined;
  };
}

/** Checks a raw body: its Joi value when valid, undefined when Joi must say why not (or when the check is unsure). */
export type FastBodyCheck<T> = (raw: unknown) => T | undefined;

const bodyChecks = new WeakMap<Joi.Schema, FastBodyCheck<unknown>>();

/**
 * Gives a body schema a hand-written check of its valid form, for `joiBody` to try before Joi (a hot route's body:
 * the relay's). The check must answer only bodies Joi accepts, with the value Joi gives; its test says it does.
 */
export function withFastCheck<S extends Joi.Schema>(schema: S, check: FastBodyCheck<unknown>): S {
  bodyChecks.set(schema, check);
  return schema;
}

/** The hand-written check a body schema was given, if any. */
export function fastBodyCheck(schema: Joi.Schema): FastBodyCheck<unknown> | undefined {
  return bodyChecks.get(schema);
}
