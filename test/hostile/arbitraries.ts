/**
 * Hostile values for the fuzz suites: strings with control characters,
 * unusual Unicode, MongoDB and SQL operators, prototype keys, regular
 * expressions that backtrack, path tricks and template syntax; JSON values of
 * the wrong type, nested and oversized; query strings with malformed
 * percent-encoding. Names of fields and parameters mix a vocabulary of the
 * interface's own (so a value reaches the validator that reads it) with
 * hostile ones.
 */
import fc from 'fast-check';

const CONTROL = ['\u0000', '\u0001', '\u0007', '\b', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u00a0', '\u2028', '\u2029', '\ufeff', '\u200b', '\u202e'];
const UNICODE = ['é', 'e\u0301', 'ß', 'İ', 'ǅ', 'Ω', '中文', '한', '\u{1f4a9}', '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}', '＄where', '\ud800', '\udfff', '\uffff', '\u{10ffff}'];
const OPERATORS = ['$where', '$gt', '$ne', '$regex', '$expr', '$function', '$lookup', '$or', '$in', '{"$gt":""}', '{"$ne":null}', "'; DROP TABLE jobs; --", "' OR '1'='1", '" OR 1=1 --', 'NEAR(a b)', 'a OR b', 'a AND NOT b', '"unbalanced', '-', '*', '^', 'col:value'];
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', '__defineGetter__', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf'];
const REGEXISH = ['(a+)+$', '(.*a){20}', '^(([a-z])+.)+[A-Z]([a-z])+$', '[', '\\', '.*', '(?<x>a)\\k<x>', 'a{1000000}', `(a|a)*b${'a'.repeat(40)}`, '[^]', '\\u{110000}'];
const PATHISH = ['..', '../..', '../../health/live', '/', '//', '\\..\\', '%00', '%', '%ZZ', '%2e%2e', '?x=1', '#frag', '&token=x', ';', 'a/b', ' '];
const TEMPLATES = ['{body.job_id}', '{params.id}', '{last}', '{{7*7}}', '${7*7}', '<script>alert(1)</script>', '%s%s%n', '{{constructor.constructor("return process")()}}'];
const SCALARISH = ['', ' ', '-1', '0', '1e309', 'NaN', 'Infinity', '0x1f', '9007199254740993', '1.5', 'true', 'null', 'undefined', '[]', '{}', '2024-13-45', '1970-01-01T00:00:00Z'];
const IDISH = ['0'.repeat(24), 'f'.repeat(24), 'F'.repeat(24), 'a'.repeat(23), 'a'.repeat(25), 'g'.repeat(24), '00000000-0000-4000-8000-000000000000', '0000000000000000000000a1 '];

export const ATOMS: readonly string[] = [...CONTROL, ...UNICODE, ...OPERATORS, ...PROTO_KEYS, ...REGEXISH, ...PATHISH, ...TEMPLATES, ...SCALARISH, ...IDISH];

const atom = fc.constantFrom(...ATOMS);
const hostileChar = fc.oneof(fc.constantFrom(...CONTROL, ...UNICODE, '$', '.', '[', ']', '{', '}', '"', "'", '\\', '/', '%', '&', '=', '+', ','), fc.string({ minLength: 1, maxLength: 1 }));

/** A string that should not be trusted: atoms, glued atoms, odd characters, or a long run. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: atom },
  { weight: 3, arbitrary: fc.array(atom, { minLength: 2, maxLength: 4 }).map((parts) => parts.join('')) },
  { weight: 3, arbitrary: fc.string({ unit: hostileChar, maxLength: 24 }) },
  { weight: 1, arbitrary: fc.tuple(atom, fc.integer({ min: 100, max: 2000 })).map(([a, n]) => a.repeat(Math.ceil(n / Math.max(1, a.length)))) },
);

/** Field names of the interface's bodies, so hostile values reach the validators that read them. */
export const BODY_FIELDS = [
  'name', '_id', 'id', 'description', 'workflow', 'options', 'variables', 'jobIds', 'job_id', 'task_id', 'taskId', 'groups', 'groupId', 'group',
  'automation', 'tasks', 'transitions', 'account', 'username', 'password', 'user', 'email', 'memberOf', 'assignedRoles', 'roleId', 'role',
  'allowedMethods', 'allowedViews', 'provenance', 'inactive', 'firstname', 'incoming', 'outgoing', 'mapping', 'formData', 'ids', 'service', 'form',
  'schema', 'uiSchema', 'type', 'enabled', 'actionId', 'actionType', 'routeName', 'verb', 'repeatInterval', 'firstRunAt', 'finish_state', 'taskData',
  'query', 'filter', 'limit', 'skip', 'sort', 'order', 'params', 'path', 'method', 'body', 'headers', 'data', 'componentId', 'componentType',
  'componentName', 'grant_type', 'client_id', 'client_secret', 'fromTask', 'toTask', 'watchers', 'status', 'output', 'error', 'serviceId', 'formId',
  'transformations', 'automations', 'triggers', 'items', 'extractOutput', 'errored_task', 'revert_task', 'task_data', 'task_query',
];

/** An object key: mostly the interface's own names, else hostile ones (`__proto__` is left to the raw-body generator). */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...BODY_FIELDS) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS.filter((k) => k !== '__proto__'), '$where', '$gt', 'a.b', 'a[0]', '') },
  { weight: 1, arbitrary: hostileString },
);

const hostileNumber = fc.oneof(
  fc.constantFrom(-0, -1, 0.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 5e-324, Number.MAX_SAFE_INTEGER),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const scalar: fc.Arbitrary<unknown> = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/** A JSON value of any type, nested a few levels, keyed by `hostileKey`. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** A body object: the interface's field names with values of the wrong type, shape or size. */
export const hostileObject: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(hostileKey, hostileJson, { minKeys: 1, maxKeys: 6 });

/** JSON nested `depth` levels deep, as text (fast-check would take long to build it as a value). */
export function deepJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Bodies that are not JSON a parser should accept, or that carry a prototype key. */
export const brokenJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('{', '{"a":', '[1,]', "{'a':1}", 'undefined', 'NaN', '{"a":1}garbage', '\u0000', '{"a":01}', '{"a":"\\x41"}', '{"a":"\u0000\\ud800"', '"a string"', '12', 'true', 'null', '\ufeff{"a":1}'),
  fc.constantFrom('{"__proto__":{"polluted":true}}', '{"a":{"__proto__":{"polluted":true}}}', '{"constructor":{"prototype":{"polluted":true}}}', '[{"__proto__":1}]', '{"\\u005f_proto__":{"x":1}}'),
  fc.tuple(fc.integer({ min: 2000, max: 60000 }), fc.constantFrom<'array' | 'object'>('array', 'object')).map(([d, k]) => deepJson(d, k)),
  fc.tuple(fc.integer({ min: 120, max: 5000 }), fc.constantFrom<'array' | 'object'>('array', 'object'), fc.constantFrom(...BODY_FIELDS)).map(([d, k, f]) => `{"${f}":${deepJson(d, k)}}`),
  fc.tuple(hostileObject, fc.integer({ min: 1, max: 8 })).map(([o, cut]) => JSON.stringify(o).slice(0, -cut)),
);

/** Query parameter names: the search language's and the lists', and hostile ones. */
export const QUERY_NAMES = [
  'limit', 'skip', 'sort', 'order', 'include', 'exclude', 'dereference', 'q', 'equals[status]', 'equals[name]', 'contains[description]', 'in[_id]',
  'not-in[status]', 'starts-with[name]', 'ends-with[name]', 'gt[metrics.start_time]', 'lte[created]', 'exists[output]', 'equals', 'equalsField',
  'contains', 'containsField', 'startsWith', 'startsWithField', 'format', 'target', 'since', 'until', 'enabled', 'actionId', 'filter', 'search',
  'memberOf', 'username', 'provenance', 'inactive', 'token',
];
const HOSTILE_QUERY_NAMES = ['__proto__', 'constructor', '$where', 'a[b][c]', 'equals[$where]', 'equals[__proto__]', 'equals[name][$ne]', 'q[]', 'limit[]', 'sort[]', 'equals[]'];

export interface QueryPair {
  readonly name: string;
  readonly value: string;
  /** `raw`: written into the URL as is (ASCII only), so malformed percent-encoding reaches the server. */
  readonly encoding: 'encoded' | 'raw';
}

const RAW_VALUES = ['%ZZ', '%', '%E0%A4%A', '%C0%AF', '%00', '%2C%2C', ',,,', '[]', '{}', 'a+b', '%2B', '%25', '%u0041', '..%2F..', '"', '$ne', '[$gt]='];

export const queryPair: fc.Arbitrary<QueryPair> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ name: fc.constantFrom(...QUERY_NAMES), value: fc.oneof(hostileString, hostileJson.map((v) => JSON.stringify(v) ?? 'null')), encoding: fc.constant<'encoded'>('encoded') }) },
  { weight: 1, arbitrary: fc.record({ name: fc.oneof(fc.constantFrom(...HOSTILE_QUERY_NAMES), hostileString), value: hostileString, encoding: fc.constant<'encoded'>('encoded') }) },
  { weight: 1, arbitrary: fc.record({ name: fc.constantFrom(...QUERY_NAMES, '%ZZ', 'a%', 'equals%5Bstatus%5D', '%5F_proto__'), value: fc.constantFrom(...RAW_VALUES), encoding: fc.constant<'raw'>('raw') }) },
);

/** Half of the time none: a hostile query is refused before the body is read, and the body's validators need exercise too. */
export const queryPairs: fc.Arbitrary<QueryPair[]> = fc.oneof(fc.constant<QueryPair[]>([]), fc.array(queryPair, { minLength: 1, maxLength: 5 }));

/** A path parameter: a real id or name from the seeded store (so a defect is all that stops a change), or a hostile string. */
export function paramValue(known: readonly string[]): fc.Arbitrary<{ value: string; encoding: 'encoded' | 'raw' }> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known).map((value) => ({ value, encoding: 'encoded' as const })) },
    { weight: 4, arbitrary: hostileString.filter((s) => s.length > 0).map((value) => ({ value, encoding: 'encoded' as const })) },
    { weight: 1, arbitrary: fc.constantFrom('%ZZ', '%', '..', '.', '%2e%2e', '%2F', '%00', '%C0%AF', '%E0%A4%A').map((value) => ({ value, encoding: 'raw' as const })) },
  );
}

/** Header-safe garbage for credentials and request ids (Node refuses control characters in headers). */
export const headerText = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.:/+=$%{}[]"\'<>;, \t'.split('')), maxLength: 80 });
