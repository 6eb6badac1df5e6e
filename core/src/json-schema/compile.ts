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
 * Schema size × data size (subschemas × JSON characters) up to which a
 * failing datum is validated again to list every problem; past it, the first
 * problem alone is reported, so a failing anyOf over a huge array cannot
 * pile up millions of error objects.
 */
export const ALL_ERRORS_BUDGET = 2_000_000;

// strict: false lets through the keywords editors add (titles on canvases,
// `x-` extensions); formats are not checked (no format plugin is installed,
// and the platform uses formats Ajv does not know); addUsedSchema: false
// keeps one schema's `$id` from colliding with another's on the shared instance.
function newAjv(allErrors: boolean): Ajv {
  const ajv = new Ajv({ strict: false, allErrors, validateFormats: false, addUsedSchema: false, logger: false, code: { regExp: linearRegExp } });
  useLinearKeywords(ajv);
  return ajv;
}

interface Generation {
  readonly firstError: Ajv;
  readonly allErrors: Ajv;
  readonly entries: Map<string, Entry>;
}

interface Entry {
  /** Why the schema cannot be used, paths relative to its root (`.properties.a.pattern`); empty when it can. */
  readonly problems: readonly ErrorDetail[];
  readonly size: number;
  readonly firstError?: ValidateFunction;
  allErrors?: ValidateFunction;
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
    return { firstError: newAjv(false), allErrors: newAjv(true), entries: new Map() };
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
    const { problems, size } = inspectSchema(schema, '');
    if (problems.length > 0) return { problems, size };
    try {
      return { problems, size, firstError: generation.firstError.compile(schema) };
    } catch (err) {
      return { problems: [{ parameter: '', message: `is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}` }], size };
    }
  }

  /** Why the schema cannot be used (paths relative to its root), or nothing; compiles it for later use. */
  problems(schema: object | boolean): readonly ErrorDetail[] {
    return this.entry(schema).problems;
  }

  /** Validates `data`; a schema with problems is reported as such, never run. */
  validate(schema: object | boolean, data: unknown): Outcome | { readonly problems: readonly ErrorDetail[] } {
    const entry = this.entry(schema);
    if (!entry.firstError) return { problems: entry.problems };
    const generation = this.generation;
    if (entry.firstError(data)) return { valid: true, errors: [] };
    const first = entry.firstError.errors ?? [];
    // Listing every problem costs up to schema size × data size; past the budget the first one is enough.
    if (entry.size * (JSON.stringify(data)?.length ?? 0) > ALL_ERRORS_BUDGET) return { valid: false, errors: first };
    entry.allErrors ??= generation.allErrors.compile(schema);
    entry.allErrors(data);
    return { valid: false, errors: entry.allErrors.errors ?? first };
  }

  /** Schemas held in the current generation. */
  get size(): number {
    return this.generation.entries.size;
  }
}
