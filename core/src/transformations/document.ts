/**
 * The transformation document (docs/decisions.md D23): what a client may
 * write, how it is checked, and the shape that is stored. Every problem of a
 * document is collected, so one 400 names all of them.
 */
import jsonata from 'jsonata';
import { isPlainObject, schemaProblems } from '../../../kernel/index.ts';
import type { ErrorDetail } from '../../../kernel/index.ts';

export const MAX_NAME_LENGTH = 256;
export const MAX_ID_LENGTH = 200;
/** Bounds the parse done on the request thread; real mappings are a few hundred characters. */
export const MAX_MAPPING_LENGTH = 100_000;

/** A JSON Schema naming the value it describes by its `$id`. */
export type IdSchema = Record<string, unknown> & { readonly $id: string };

export interface Author {
  readonly _id: string;
  readonly provenance: string;
  readonly username: string;
}

/** What a client writes. */
export interface Editable {
  readonly name: string;
  readonly description: string;
  readonly incoming: IdSchema[];
  readonly outgoing: IdSchema[];
  /** Absent on a transformation not mapped yet (the editor saves those); running one is refused. */
  readonly mapping?: string;
  /** The real editor's own fields (`steps`, `view`...), kept as given so exports round-trip. */
  readonly extras: Record<string, unknown>;
}

export interface TransformationDoc {
  readonly _id: string;
  readonly name: string;
  readonly description: string;
  readonly incoming: IdSchema[];
  readonly outgoing: IdSchema[];
  readonly mapping?: string;
  readonly created: string;
  readonly createdBy: Author;
  readonly lastUpdated: string;
  readonly lastUpdatedBy: Author;
  readonly version: string;
  readonly [extra: string]: unknown;
}

/** Fields the server writes; accepted in bodies (clients send back what they read) and ignored. */
export const SERVER_FIELDS: ReadonlySet<string> = new Set(['_id', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy', 'version']);
const EDITABLE = new Set(['name', 'description', 'incoming', 'outgoing', 'mapping']);
/** The real platform's editor fields, with the JSON type each must have. */
const EXTRAS: ReadonlyMap<string, 'array' | 'object'> = new Map([
  ['steps', 'array'],
  ['functions', 'array'],
  ['comments', 'array'],
  ['tags', 'array'],
  ['view', 'object'],
]);

function checkSchemas(list: unknown, at: string, problems: ErrorDetail[]): IdSchema[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    problems.push({ parameter: at, message: 'must be an array of JSON Schemas, each with an $id' });
    return [];
  }
  const seen = new Map<string, number>();
  list.forEach((schema: unknown, i) => {
    const where = `${at}[${i}]`;
    if (!isPlainObject(schema)) {
      problems.push({ parameter: where, message: 'must be a JSON Schema object with an $id' });
      return;
    }
    const id = schema['$id'];
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
      problems.push({ parameter: `${where}.$id`, message: `must be a non-empty string of at most ${MAX_ID_LENGTH} characters: the run keys values by it` });
      return;
    }
    // CASE: as a key of the run's input object, `__proto__` would replace its prototype instead of holding a value.
    if (id === '__proto__') {
      problems.push({ parameter: `${where}.$id`, message: 'cannot be __proto__' });
      return;
    }
    const first = seen.get(id);
    if (first !== undefined) {
      problems.push({ parameter: `${where}.$id`, message: `${id} is already the $id of ${at}[${first}]; $ids must be unique within ${at}` });
      return;
    }
    seen.set(id, i);
    problems.push(...schemaProblems(schema, where));
  });
  return list as IdSchema[];
}

/** The message JSONata gives for a syntax error, with where it is. */
export function compileProblem(mapping: string): string | null {
  try {
    jsonata(mapping);
    return null;
  } catch (err) {
    const e = err as { message?: unknown; position?: unknown };
    const message = typeof e.message === 'string' ? e.message : String(err);
    return typeof e.position === 'number' ? `${message} (at character ${e.position})` : message;
  }
}

function checkMapping(mapping: unknown, at: string, problems: ErrorDetail[]): string | undefined {
  if (mapping === undefined || mapping === null) return undefined;
  if (typeof mapping !== 'string' || mapping.trim().length === 0) {
    problems.push({ parameter: at, message: 'must be a JSONata expression (a non-empty string)' });
    return undefined;
  }
  if (mapping.length > MAX_MAPPING_LENGTH) {
    problems.push({ parameter: at, message: `must be at most ${MAX_MAPPING_LENGTH} characters` });
    return undefined;
  }
  const problem = compileProblem(mapping);
  if (problem !== null) problems.push({ parameter: at, message: `is not a valid JSONata expression: ${problem}` });
  return mapping;
}

/**
 * Reads a body into the editable fields. `at` prefixes every problem
 * (`body`, `body[2]`). Server fields are skipped; anything else unknown is a
 * problem, so a misspelt `outgoing` is not silently lost.
 */
export function readEditable(raw: unknown, at: string, problems: ErrorDetail[]): Editable | null {
  if (!isPlainObject(raw)) {
    problems.push({ parameter: at, message: 'must be a transformation object {name, description, incoming, outgoing, mapping}' });
    return null;
  }
  const before = problems.length;
  for (const key of Object.keys(raw)) {
    if (EDITABLE.has(key) || SERVER_FIELDS.has(key)) continue;
    const type = EXTRAS.get(key);
    if (type === undefined) problems.push({ parameter: `${at}.${key}`, message: 'is not a field of a transformation' });
    else if ((type === 'array') !== Array.isArray(raw[key]) || (type === 'object' && !isPlainObject(raw[key]))) {
      problems.push({ parameter: `${at}.${key}`, message: `must be an ${type}` });
    }
  }
  const name = raw['name'];
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > MAX_NAME_LENGTH) {
    problems.push({ parameter: `${at}.name`, message: name === undefined ? 'is required' : `must be a non-empty string of at most ${MAX_NAME_LENGTH} characters` });
  }
  const description = raw['description'] ?? '';
  if (typeof description !== 'string') problems.push({ parameter: `${at}.description`, message: 'must be a string' });
  const incoming = checkSchemas(raw['incoming'], `${at}.incoming`, problems);
  const outgoing = checkSchemas(raw['outgoing'], `${at}.outgoing`, problems);
  const mapping = checkMapping(raw['mapping'], `${at}.mapping`, problems);
  if (problems.length > before) return null;
  const extras: Record<string, unknown> = {};
  for (const key of EXTRAS.keys()) if (raw[key] !== undefined) extras[key] = raw[key];
  return { name: name as string, description: description as string, incoming, outgoing, ...(mapping === undefined ? {} : { mapping }), extras };
}

/** The stored document: the editable fields in a fixed order, then the server's. */
export function toDocument(id: string, fields: Editable, stamp: { created: string; createdBy: Author; lastUpdated: string; lastUpdatedBy: Author; version: string }): TransformationDoc {
  return {
    _id: id,
    name: fields.name,
    description: fields.description,
    incoming: fields.incoming,
    outgoing: fields.outgoing,
    ...(fields.mapping === undefined ? {} : { mapping: fields.mapping }),
    ...fields.extras,
    ...stamp,
  };
}
