/**
 * What a schema may hold so that validating with it takes bounded time,
 * checked when the schema is saved: every pattern must run on RE2, and the
 * schema expanded through its `$ref`s must stay small and shallow (a chain
 * of references each naming the next twice doubles the work per level; a
 * reference cycle never ends). Problems name their place in the schema.
 * The limits are in docs/json-schema.md.
 */
import type { ErrorDetail } from '../errors.ts';
import { translatePattern } from './pattern.ts';

/** Subschemas once every `$ref` is expanded: the evaluations one datum may cost. */
export const MAX_SUBSCHEMAS = 500;
/** Nesting of subschemas, `$ref`s expanded. */
export const MAX_DEPTH = 32;

/**
 * How a subschema applies, for the work estimate: to the same datum
 * (`same`), to one property value or one item of it (`property`, `item`: at
 * most one of the group applies to a given child), to every child it
 * matches (`child`), or not by itself (`defs`, reached only by `$ref`).
 */
type Kind = 'same' | 'property' | 'item' | 'child' | 'defs';

// Draft-07 keywords whose values are schemas, by shape and kind.
const ONE: ReadonlyArray<[string, Kind]> = [
  ['additionalItems', 'child'], ['additionalProperties', 'child'], ['contains', 'child'], ['propertyNames', 'child'],
  ['else', 'same'], ['if', 'same'], ['not', 'same'], ['then', 'same'],
];
const LIST = ['allOf', 'anyOf', 'oneOf'];
const MAP: ReadonlyArray<[string, Kind]> = [
  ['definitions', 'defs'], ['$defs', 'defs'], ['properties', 'property'], ['patternProperties', 'child'], ['dependencies', 'same'], ['dependentSchemas', 'same'],
];

type Schema = Record<string, unknown>;

function isSchemaObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `.name`, or `["odd name"]` when the key is not a plain word. */
function member(key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** Each subschema directly under `schema`, with the path segment that reaches it and how it applies. */
function children(schema: Schema): Array<[string, unknown, Kind]> {
  const out: Array<[string, unknown, Kind]> = [];
  for (const [k, kind] of ONE) if (k in schema) out.push([member(k), schema[k], kind]);
  for (const k of LIST) {
    const list = schema[k];
    if (Array.isArray(list)) list.forEach((s, i) => out.push([`${member(k)}[${i}]`, s, 'same']));
  }
  const items = schema['items'];
  if (Array.isArray(items)) items.forEach((s, i) => out.push([`.items[${i}]`, s, 'item']));
  else if (items !== undefined) out.push(['.items', items, 'item']);
  for (const [k, kind] of MAP) {
    const map = schema[k];
    if (!isSchemaObject(map)) continue;
    // `dependencies` may map a property to a list of names instead of a schema.
    for (const [key, s] of Object.entries(map)) if (!(k === 'dependencies' && Array.isArray(s))) out.push([`${member(k)}${member(key)}`, s, kind]);
  }
  return out;
}

/** The subschema a local `$ref` (`#` or `#/json/pointer`) names, or undefined. */
function resolve(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

export interface Inspection {
  readonly problems: ErrorDetail[];
  /** Subschemas with `$ref`s expanded (capped just above MAX_SUBSCHEMAS). */
  readonly size: number;
  /**
   * At most how many subschemas apply to any one datum (value, key or 64
   * characters of a string) of the validated document: validating N data
   * costs at most width × N subschema evaluations.
   */
  readonly width: number;
}

/** Every reason the schema at `at` cannot be validated in bounded time. */
export function inspectSchema(root: unknown, at: string): Inspection {
  const problems: ErrorDetail[] = [];

  // Patterns and references, each named by where it is written.
  const visit = (schema: unknown, path: string, top: boolean): void => {
    if (!isSchemaObject(schema)) return;
    if (!top && '$id' in schema) problems.push({ parameter: `${path}.$id`, message: 'is only allowed at the top of a schema' });
    if (typeof schema['pattern'] === 'string') {
      const t = translatePattern(schema['pattern']);
      if ('problem' in t) problems.push({ parameter: `${path}.pattern`, message: t.problem });
    }
    if (isSchemaObject(schema['patternProperties'])) {
      for (const key of Object.keys(schema['patternProperties'])) {
        const t = translatePattern(key);
        if ('problem' in t) problems.push({ parameter: `${path}.patternProperties[${JSON.stringify(key)}]`, message: t.problem });
      }
    }
    if ('$ref' in schema) {
      const ref = schema['$ref'];
      if (typeof ref !== 'string' || !(ref === '#' || ref.startsWith('#/'))) problems.push({ parameter: `${path}.$ref`, message: 'must refer within the same schema (# or #/...)' });
      else if (!isSchemaObject(resolve(root, ref)) && typeof resolve(root, ref) !== 'boolean') problems.push({ parameter: `${path}.$ref`, message: `${ref} names no subschema` });
    }
    for (const [segment, child] of children(schema)) visit(child, `${path}${segment}`, false);
  };
  visit(root, at, true);
  if (problems.length > 0) return { problems, size: 0, width: 0 };

  // Measures with references expanded; memoized per node, so a shared subschema is measured once.
  const measured = new Map<Schema, Measure>();
  const open = new Set<Schema>();
  let cycle: string | null = null;
  const CAP = MAX_SUBSCHEMAS + 1;
  const add = (a: number, b: number): number => Math.min(a + b, CAP);
  const measure = (schema: unknown, path: string): Measure => {
    if (!isSchemaObject(schema)) return LEAF;
    const known = measured.get(schema);
    if (known) return known;
    if (open.has(schema)) {
      cycle ??= path;
      return { size: CAP, depth: MAX_DEPTH + 1, same: CAP, below: CAP, width: CAP };
    }
    open.add(schema);
    const parts = children(schema).filter(([, , kind]) => kind !== 'defs');
    if (typeof schema['$ref'] === 'string') parts.push(['.$ref', resolve(root, schema['$ref']), 'same']);
    // same: subschemas applying to this very datum; below: the width this schema (and those) adds one level down.
    let size = 1, depth = 0, same = 1, below = 0, property = 0, item = 0, width = 0;
    for (const [segment, child, kind] of parts) {
      const m = measure(child, `${path}${segment}`);
      if (cycle !== null) break;
      size = add(size, m.size);
      depth = Math.max(depth, m.depth);
      width = Math.max(width, m.width);
      if (kind === 'same') {
        same = add(same, m.same);
        below = add(below, m.below);
      } else if (kind === 'property') property = Math.max(property, m.width);
      else if (kind === 'item') item = Math.max(item, m.width);
      else below = add(below, m.width);
    }
    open.delete(schema);
    below = add(below, property + item);
    const result: Measure = { size, depth: Math.min(depth + 1, MAX_DEPTH + 1), same, below, width: Math.max(width, same, below) };
    measured.set(schema, result);
    return result;
  };
  const { size, depth, width } = measure(root, at);
  if (cycle !== null) problems.push({ parameter: cycle, message: 'leads back to a schema that contains it: recursive references are not supported (validation time must be bounded)' });
  else if (size > MAX_SUBSCHEMAS) problems.push({ parameter: at, message: `has more than ${MAX_SUBSCHEMAS} subschemas once its $refs are expanded` });
  else if (depth > MAX_DEPTH) problems.push({ parameter: at, message: `nests subschemas more than ${MAX_DEPTH} deep once its $refs are expanded` });
  return { problems, size, width };
}

interface Measure {
  readonly size: number;
  readonly depth: number;
  readonly same: number;
  readonly below: number;
  readonly width: number;
}
const LEAF: Measure = { size: 1, depth: 1, same: 1, below: 0, width: 1 };
