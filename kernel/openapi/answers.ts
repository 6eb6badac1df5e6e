/**
 * Builders for the JSON Schemas routes declare for their success answers
 * (`answer` of a route record, docs/openapi.md). A shape the code fixes is
 * closed (`additionalProperties: false`), so a renamed or stray field fails
 * the contract check; content a user defines (workflow bodies, variables,
 * form schemas, orchestrator data) is left open.
 */
import type { AnswerSchema } from '../http/route.ts';

export type Schema = Readonly<Record<string, unknown>>;

export const STRING: Schema = { type: 'string' };
export const INTEGER: Schema = { type: 'integer' };
export const NUMBER: Schema = { type: 'number' };
export const BOOLEAN: Schema = { type: 'boolean' };
export const NULL: Schema = { type: 'null' };
/** Any JSON value: content the caller or a peer defines. */
export const ANY: Schema = {};
/** Any JSON object: user-defined content such as variables, form data or a JSON Schema. */
export const OBJECT: Schema = { type: 'object' };
/** An id of 24 hexadecimal characters as stored (lower case). */
export const OBJECT_ID_TEXT: Schema = { type: 'string', pattern: '^[0-9a-f]{24}$' };
/** An ISO 8601 date-time as text. */
export const DATE_TEXT: Schema = { type: 'string' };

export function nullable(schema: Schema): Schema {
  return { anyOf: [schema, NULL] };
}

export function arrayOf(items: Schema): Schema {
  return { type: 'array', items };
}

export function oneOfValues(...values: ReadonlyArray<string | number | boolean | null>): Schema {
  return { enum: values };
}

/** A fixed shape: exactly these properties; all required except those named in `optional`. */
export function closed(properties: Readonly<Record<string, Schema>>, optional: readonly string[] = []): Schema {
  const required = Object.keys(properties).filter((k) => !optional.includes(k));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/**
 * A stored document: its fields are fixed (closed), but only `required` are
 * always there. Documents written by the real platform, or imported, may
 * lack fields this code always writes.
 */
export function stored(properties: Readonly<Record<string, Schema>>, required: readonly string[]): Schema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Known properties typed, any others allowed: a document whose content is partly the user's. */
export function open(properties: Readonly<Record<string, Schema>> = {}, required: readonly string[] = []): Schema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: true };
}

/** A route's `answer` from a JSON Schema. */
export function answer(schema: Schema): AnswerSchema {
  return { jsonSchema: schema };
}
