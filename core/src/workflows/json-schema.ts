/**
 * Checks a workflow's inputSchema and outputSchema by compiling them with
 * ajv. `strict: false` lets through the unknown keywords Automation Studio
 * writes (titles on canvases, `x-` extensions); formats are not checked
 * because the platform uses ones ajv does not know without plugins.
 */
import { Ajv } from 'ajv';
import type { ErrorDetail } from '../errors.ts';

export type SchemaChecker = (schema: unknown, at: string) => ErrorDetail[];

/**
 * A checker with its own ajv instance. A fresh instance per document keeps
 * one request's schemas (and their `$id`s) from touching another's: a shared
 * instance would cache every schema ever seen, and removing one by `$id`
 * could remove ajv's own meta-schema. It costs a few milliseconds per save.
 */
export function schemaChecker(): SchemaChecker {
  let ajv: Ajv | null = null;
  return (schema, at) => {
    if (schema === undefined) return [];
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      return [{ parameter: at, message: 'must be a JSON Schema object' }];
    }
    ajv ??= new Ajv({ strict: false, allErrors: true, validateFormats: false, addUsedSchema: false, logger: false });
    try {
      ajv.compile(schema);
      return [];
    } catch (err) {
      return [{ parameter: at, message: `is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}` }];
    }
  };
}
