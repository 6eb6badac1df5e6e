/**
 * The one Ajv configuration of the core, and the one cache of compiled
 * schemas. Ajv keeps everything it compiled (its schema cache, and the
 * patterns and functions in its code scope) for the life of an instance, so
 * a bounded map of validators on one long-lived instance still grows without
 * bound. Here an instance lives for one generation of GENERATION_SIZE
 * distinct schemas; when it is full, the instance and its validators are
 * dropped together and a fresh generation starts, which frees all of it.
 */
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ErrorDetail } from '../errors.ts';
import { useLinearKeywords } from './keywords.ts';
import { inspectSchema } from './limits.ts';
import { linearRegExp } from './pattern.ts';

/** Distinct schemas compiled on one Ajv instance before it is replaced. */
export const GENERATION_SIZE = 256;
/**
 * Subschema evaluations one validation may cost at most, estimated before it
 * runs as the schema's width (subschemas that may apply to one datum) × the
 * data's size (values, keys and 64-character pieces of strings). An
 * evaluation costs up to half a microsecond (a failing anyOf alternative
 * builds an error), so this keeps one validation, and the errors it collects,
 * within a couple of hundred milliseconds.
 */
export const WORK_BUDGET = 300_000;
/** The size of `data` for the work estimate, counted only up to `limit`. */
export function dataSize(data: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [data];
  while (stack.length > 0 && count <= limit) {
    const value = stack.pop();
    count += 1;
    if (typeof value === 'string') count += Math.floor(value.length / 64);
    else if (Array.isArray(value)) for (const item of value) stack.push(item);
    else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      // Own keys only: an inherited member is not part of the data being measured.
      for (const key of Object.keys(record)) {
        count += 1 + Math.floor(key.length / 64);
        stack.push(record[key]);
      }
    }
  }
  return count;
}

// strict: false lets through the keywords editors add (titles on canvases,
// `x-` extensions); formats are not checked (no format plugin is installed,
// and the platform uses formats Ajv does not know); addUsedSchema: false
// keeps one schema's `$id` from colliding with another's on the shared instance;
// verbose: an error carries the schema it failed (an unknown property is reported
// with the names its object takes).
export function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, validateFormats: false, addUsedSchema: false, logger: false, code: { regExp: linearRegExp } });
  useLinearKeywords(ajv);
  return ajv;
}

interface Generation {
  readonly ajv: Ajv;
  readonly entries: Map<string, Entry>;
}

interface Entry {
  /** Why the schema cannot be used, paths relative to its root (`.properties.a.pattern`); empty when it can. */
  readonly problems: readonly ErrorDetail[];
  readonly width: number;
  readonly validate?: ValidateFunction;
}

export interface Outcome {
  readonly valid: boolean;
  readonly errors: readonly ErrorObject[];
}

export class SchemaCache {
  private generation: Generation = SchemaCache.fresh();
  /** Generations started so far (the first included); tests read it. */
  generations = 1;

  private static fresh(): Generation {
    return { ajv: newAjv(), entries: new Map() };
  }

  /** The schema checked and compiled, found again by its text. */
  private entry(schema: object | boolean): Entry {
    const key = createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
    const hit = this.generation.entries.get(key);
    if (hit) return hit;
    if (this.generation.entries.size >= GENERATION_SIZE) {
      this.generation = SchemaCache.fresh();
      this.generations++;
    }
    const entry = SchemaCache.build(this.generation, schema);
    this.generation.entries.set(key, entry);
    return entry;
  }

  private static build(generation: Generation, schema: object | boolean): Entry {
    const { problems, width } = inspectSchema(schema, '');
    if (problems.length > 0) return { problems, width };
    try {
      return { problems, width, validate: generation.ajv.compile(schema) };
    } catch (err) {
      return { problems: [{ parameter: '', message: `is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}` }], width };
    }
  }

  /** Why the schema cannot be used (paths relative to its root), or nothing; compiles it for later use. */
  problems(schema: object | boolean): readonly ErrorDetail[] {
    return this.entry(schema).problems;
  }

  /**
   * Validates `data`; a schema with problems is reported as such, never run,
   * and data too big for the schema's work budget is not validated.
   */
  validate(schema: object | boolean, data: unknown): Outcome | { readonly problems: readonly ErrorDetail[] } | { readonly tooLarge: { readonly size: number; readonly width: number } } {
    const entry = this.entry(schema);
    if (!entry.validate) return { problems: entry.problems };
    const size = dataSize(data, Math.floor(WORK_BUDGET / entry.width));
    if (size * entry.width > WORK_BUDGET) return { tooLarge: { size, width: entry.width } };
    if (entry.validate(data)) return { valid: true, errors: [] };
    return { valid: false, errors: entry.validate.errors ?? [] };
  }

  /** Schemas held in the current generation. */
  get size(): number {
    return this.generation.entries.size;
  }
}
