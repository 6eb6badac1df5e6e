/**
 * JSON Schema for every surface of the core that stores a user's schema
 * (workflow input/output schemas, service-catalog forms, transformation
 * schemas, endpoint triggers): checked when saved, then used to validate
 * what less privileged callers send. One Ajv configuration, patterns on a
 * linear-time engine, keywords in linear time, a bounded cache of compiled
 * schemas. The rules are in docs/json-schema.md.
 */
import type { ErrorDetail } from '../errors.ts';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { newAjv, SchemaCache, WORK_BUDGET } from './compile.ts';
import { errorDetails } from './errors.ts';

export { errorDetails, summary } from './errors.ts';

const cache = new SchemaCache();

/**
 * Schemas the code base itself ships (the mapping table's, each escape
 * hatch's arguments): few and fixed, so compiled once each on an instance of
 * the same configuration that is never rotated. Found again by their text: the
 * mapping schema is read afresh each time a table is loaded, and a cache by
 * object would compile (and Ajv keep) one more copy per load.
 */
const trusted = { ajv: newAjv(), compiled: new Map<string, ValidateFunction>() };

/** Ajv's errors for `data` against a schema shipped with the code; empty when it is valid. */
export function shippedSchemaErrors(schema: object, data: unknown): readonly ErrorObject[] {
  const key = JSON.stringify(schema);
  let validate = trusted.compiled.get(key);
  if (!validate) {
    validate = trusted.ajv.compile(schema);
    trusted.compiled.set(key, validate);
  }
  return validate(data) ? [] : (validate.errors ?? []);
}

/** The cache every surface shares; exported for the tests that prove it stays bounded. */
export function schemaCache(): SchemaCache {
  return cache;
}

function at(where: string, problems: readonly ErrorDetail[]): ErrorDetail[] {
  return problems.map((p) => ({ parameter: `${where}${p.parameter}`, message: p.message }));
}

/**
 * Why `schema`, given at `where` (`body.form.schema`), cannot be saved: not a
 * JSON Schema, a pattern RE2 cannot run, a limit exceeded. Empty when it can.
 */
export function schemaProblems(schema: unknown, where: string): ErrorDetail[] {
  // Every surface stores an object (editors read its properties), so `true`/`false` are not accepted either.
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return [{ parameter: where, message: 'must be a JSON Schema object' }];
  }
  return at(where, cache.problems(schema));
}

export type DataCheck =
  | { readonly ok: true }
  /** The data does not match: details name each place (at most a few dozen). */
  | { readonly ok: false; readonly details: ErrorDetail[] }
  /** The stored schema itself cannot be run (saved before its rules were checked); details name its place. */
  | { readonly ok: false; readonly unusable: ErrorDetail[] };

/**
 * Checks `data` (named `where` in details, e.g. `body.formData`) against a
 * stored schema (named `schemaAt`, e.g. `inputSchema`, in the reasons a
 * schema cannot run).
 */
export function checkData(schema: object | boolean, data: unknown, where: string, schemaAt: string): DataCheck {
  const outcome = cache.validate(schema, data);
  if ('problems' in outcome) return { ok: false, unusable: at(schemaAt, outcome.problems) };
  if ('tooLarge' in outcome) {
    const { size, width } = outcome.tooLarge;
    return { ok: false, details: [{ parameter: where, message: `is too large to validate against this schema: at least ${size} values while up to ${width} subschemas may apply to each (at most ${WORK_BUDGET} evaluations)` }] };
  }
  if (outcome.valid) return { ok: true };
  return { ok: false, details: errorDetails(where, outcome.errors) };
}
