/**
 * Validators for route inputs: joi schemas for params, bodies and simple
 * query strings. Failures become a ValidationError listing every problem with
 * the input it was found in (`body.jobIds[3]`).
 */
import Joi from 'joi';
import { ValidationError } from '../errors.ts';
import { OBJECT_ID } from '../store/ids.ts';
import { compileParams, fastBodyCheck } from './fast-params.ts';
import type { ErrorDetail } from '../errors.ts';
import { decodeComponent, QueryStringError, splitQueryString } from '../search/query-string.ts';
import type { Validator } from './route.ts';

function details(where: string, error: Joi.ValidationError): ErrorDetail[] {
  return error.details.map((d) => {
    const path = d.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return { parameter: `${where}${path}`, message: d.message.replace(/^"[^"]*" /, '') };
  });
}

const OPTIONS: Joi.ValidationOptions = { abortEarly: false, convert: true, errors: { wrap: { label: false } } };

/**
 * The schema with the options every input is checked with, made once per validator: options given to
 * `validate()` are merged into Joi's defaults on every call, and options set on a schema are merged once.
 * (These now win over a schema's own preferences, where before the schema's won; no input schema sets any.)
 */
function compiled<T>(schema: Joi.Schema<T>): Joi.Schema<T> {
  return schema.prefs(OPTIONS);
}

function run<T>(schema: Joi.Schema<T>, where: string, raw: unknown): T {
  const { value, error } = schema.validate(raw);
  if (error) {
    const list = details(where, error);
    throw new ValidationError(`Invalid ${where}: ${list.map((d) => `${d.parameter} ${d.message}`).join('; ')}`, list);
  }
  return value;
}

export function joiParams<T>(schema: Joi.Schema<T>): Validator<Record<string, string>, T> {
  const checked = compiled(schema);
  // Most path parameters are an id or a name: answered without Joi when valid, by Joi when not (fast-params.ts).
  const fast = compileParams(schema);
  if (fast === null) return { validate: (raw) => run(checked, 'params', raw), schema: { joi: schema } };
  return { validate: (raw) => (fast(raw) as T | undefined) ?? run(checked, 'params', raw), schema: { joi: schema } };
}

export function joiBody<T>(schema: Joi.Schema<T>): Validator<unknown, T> {
  const checked = compiled(schema);
  const fast = fastBodyCheck(schema);
  if (fast === undefined) return { validate: (raw) => run(checked, 'body', raw), schema: { joi: schema } };
  return { validate: (raw) => (fast(raw) as T | undefined) ?? run(checked, 'body', raw), schema: { joi: schema } };
}

/**
 * A query string read into a plain object (no prototype: `__proto__=x` is just
 * a key) and checked by a joi object schema. A repeated parameter is refused.
 */
export function joiQuery<T>(schema: Joi.Schema<T>): Validator<string, T> {
  const checked = compiled(schema);
  return {
    schema: { joi: schema },
    validate: (queryString) => {
      const out: Record<string, string> = Object.create(null) as Record<string, string>;
      const problems: ErrorDetail[] = [];
      try {
        for (const p of splitQueryString(queryString)) {
          if (p.name in out) problems.push({ parameter: p.name, message: 'is given more than once' });
          else out[p.name] = decodeComponent(p.raw, p.name);
        }
      } catch (err) {
        if (!(err instanceof QueryStringError)) throw err;
        problems.push({ parameter: err.parameter, message: err.message });
      }
      if (problems.length > 0) throw new ValidationError(`Invalid query: ${problems.map((d) => `${d.parameter} ${d.message}`).join('; ')}`, problems);
      return run(checked, 'query', { ...out });
    },
  };
}

/**
 * A 24-hex id as a Joi rule, lower-cased as stored. `noun` names the id in the
 * message (`a job id`), so a caller reading the 400 knows which one was wrong.
 */
export function joiObjectId(noun = 'an id'): Joi.StringSchema {
  return Joi.string().pattern(OBJECT_ID).lowercase().messages({ 'string.pattern.base': `must be ${noun} of exactly 24 hexadecimal characters` });
}
