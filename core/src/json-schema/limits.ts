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
export const MAX_SUBSCHEMAS = 1000;
/** Nesting of subschemas, `$ref`s expanded. */
export const MAX_DEPTH = 32;

// Draft-07 keywords whose values are schemas, by shape.
const ONE = ['additionalItems', 'additionalProperties', 'contains', 'else', 'if', 'not', 'propertyNames', 'then'];
const LIST = ['allOf', 'anyOf', 'oneOf'];
const MAP = ['definitions', '$defs', 'properties', 'patternProperties', 'dependencies', 'dependentSchemas'];

type Schema = Record<string, unknown>;

function isSchemaObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `.name`, or `["odd name"]` when the key is not a plain word. */
function member(key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** Each subschema directly under `schema`, with the path segment that reaches it. */
function children(schema: Schema): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const k of ONE) if (k in schema) out.push([member(k), schema[k]]);
  for (const k of LIST) {
    const list = schema[k];
    if (Array.isArray(list)) list.forEach((s, i) => out.push([`${member(k)}[${i}]`, s]));
  }
  const items = schema['items'];
  if (Array.isArray(items)) items.forEach((s, i) => out.push([`.items[${i}]`, s]));
  else if (items !== undefined) out.push(['.items', items]);
  for (const k of MAP) {
    const map = schema[k];
    if (!isSchemaObject(map)) continue;
    // `dependencies` may map a property to a list of names instead of a schema.
    for (const [key, s] of Object.entries(map)) if (!(k === 'dependencies' && Array.isArray(s))) out.push([`${member(k)}${member(key)}`, s]);
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
}

/** Every reason the schema at `at` cannot be validated in bounded time. */
export function inspectSchema(root: unknown, at: string): Inspection {
  const problems: ErrorDetail[] = [];
  const refs: Array<[string, Schema]> = [];

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
      else refs.push([path, schema]);
    }
    for (const [segment, child] of children(schema)) visit(child, `${path}${segment}`, false);
  };
  visit(root, at, true);
  if (problems.length > 0) return { problems, size: 0 };

  // Size and depth with references expanded; memoized per node, so a shared subschema is measured once.
  const measured = new Map<Schema, { size: number; depth: number }>();
  const open = new Set<Schema>();
  let cycle: string | null = null;
  const measure = (schema: unknown, path: string): { size: number; depth: number } => {
    if (!isSchemaObject(schema)) return { size: 1, depth: 1 };
    const known = measured.get(schema);
    if (known) return known;
    if (open.has(schema)) {
      cycle ??= path;
      return { size: MAX_SUBSCHEMAS + 1, depth: MAX_DEPTH + 1 };
    }
    open.add(schema);
    let size = 1;
    let depth = 0;
    const parts = children(schema).filter(([segment]) => !segment.startsWith('.definitions') && !segment.startsWith('.$defs'));
    if (typeof schema['$ref'] === 'string') parts.push(['.$ref', resolve(root, schema['$ref'])]);
    for (const [segment, child] of parts) {
      const m = measure(child, `${path}${segment}`);
      size = Math.min(size + m.size, MAX_SUBSCHEMAS + 1);
      depth = Math.max(depth, m.depth);
      if (cycle !== null) break;
    }
    open.delete(schema);
    const result = { size, depth: Math.min(depth + 1, MAX_DEPTH + 1) };
    measured.set(schema, result);
    return result;
  };
  const { size, depth } = measure(root, at);
  if (cycle !== null) problems.push({ parameter: cycle, message: 'leads back to a schema that contains it: recursive references are not supported (validation time must be bounded)' });
  else if (size > MAX_SUBSCHEMAS) problems.push({ parameter: at, message: `has more than ${MAX_SUBSCHEMAS} subschemas once its $refs are expanded` });
  else if (depth > MAX_DEPTH) problems.push({ parameter: at, message: `nests subschemas more than ${MAX_DEPTH} deep once its $refs are expanded` });
  return { problems, size };
}
