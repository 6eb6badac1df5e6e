/**
 * `pcList`: the legacy operations that change one list of an account, group
 * or role (`PUT /accounts/:id/groups/:groupId`, `DELETE /roles/:id/allowedViews/...`,
 * `PUT /groups/:id/roles`, ...). The new PATCH replaces whole lists, so adding
 * or removing one item reads the document, changes the list and writes it
 * back; setting the list writes it directly, as `{"updates": {...}}`.
 * Answers the updated document.
 *
 * with: {kind: accounts|groups|roles, id, field, op: add|remove|set, item?, items?}
 * `item` is one reference (`{groupId}`, `{roleId}`, `{provenance, name}`, `{provenance, path}`);
 * `items` is what the legacy client sent to replace the list: an array, or an
 * object holding it under the field's name or its legacy alias (`groups`, `roles`,
 * `methods`, `views`). A bare id stands for a group or role reference.
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Hatch } from '../../run.ts';
import type { Kind, Obj } from './common.ts';
import { argsOf, kindOf, patch, pathOf, send, TARGET_ARGUMENTS, text } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcList';

interface ListField {
  readonly kinds: readonly Kind[];
  /** The keys that identify an item; two items with the same keys are the same item. */
  readonly keys: readonly string[];
  readonly alias: string;
  /** Keys kept besides the identifying ones, with their default. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

const FIELDS: Readonly<Record<string, ListField>> = {
  memberOf: { kinds: ['accounts', 'groups'], keys: ['groupId'], alias: 'groups', extra: { aaaManaged: false } },
  assignedRoles: { kinds: ['accounts', 'groups'], keys: ['roleId'], alias: 'roles' },
  allowedMethods: { kinds: ['roles'], keys: ['provenance', 'name'], alias: 'methods' },
  allowedViews: { kinds: ['roles'], keys: ['provenance', 'path'], alias: 'views' },
};

function fieldOf(args: Obj, kind: Kind): [string, ListField] {
  const name = text(args, 'field', HATCH);
  const field = FIELDS[name];
  if (!field || !field.kinds.includes(kind)) throw new LegacyFailure(`${HATCH}: ${kind} have no list ${name}`);
  return [name, field];
}

function identity(field: ListField, item: Obj): string {
  return JSON.stringify(field.keys.map((k) => item[k]));
}

/** One reference as the PATCH takes it, from what the legacy client or the entry gave. */
function reference(name: string, field: ListField, value: unknown): Obj {
  const single = field.keys.length === 1 ? field.keys[0]! : null;
  const given: Obj | null = typeof value === 'string' && single ? { [single]: value } : isPlainObject(value) ? value : null;
  const missing = given ? field.keys.filter((k) => typeof given[k] !== 'string' || given[k] === '') : field.keys;
  if (!given || missing.length > 0) {
    throw new LegacyFailure(`Each item of ${name} must be ${single ? `a ${single} or ` : ''}an object with ${field.keys.join(' and ')}; got ${JSON.stringify(value)}`);
  }
  const out: Obj = {};
  for (const k of field.keys) out[k] = given[k];
  for (const [k, fallback] of Object.entries(field.extra ?? {})) out[k] = given[k] ?? fallback;
  return out;
}

function listIn(name: string, field: ListField, sent: unknown): unknown[] {
  if (Array.isArray(sent)) return sent;
  const held = isPlainObject(sent) ? (sent[name] ?? sent[field.alias]) : undefined;
  if (Array.isArray(held)) return held;
  throw new LegacyFailure(`The body must be a list of ${name}, or an object with the list under ${name} or ${field.alias}`);
}

function dedupe(field: ListField, items: readonly Obj[]): Obj[] {
  const seen = new Map<string, Obj>();
  for (const item of items) if (!seen.has(identity(field, item))) seen.set(identity(field, item), item);
  return [...seen.values()];
}

export const pcList: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const kind = kindOf(args, HATCH);
  const id = text(args, 'id', HATCH);
  const [name, field] = fieldOf(args, kind);
  const op = args['op'];
  let list: Obj[];
  if (op === 'set') {
    list = dedupe(field, listIn(name, field, args['items']).map((v) => reference(name, field, v)));
  } else if (op === 'add' || op === 'remove') {
    const item = reference(name, field, args['item']);
    const { body: doc } = await send(api.call, { method: 'GET', path: pathOf(kind, id) });
    // Written back through the PATCH schema, which takes only the reference keys.
    const current = isPlainObject(doc) && Array.isArray(doc[name]) ? (doc[name] as unknown[]).map((c) => reference(name, field, c)) : [];
    const others = current.filter((c) => identity(field, c) !== identity(field, item));
    // Adding an item already held keeps it where it was, with its other keys (aaaManaged).
    list = op === 'remove' ? others : others.length < current.length ? current : [...current, item];
  } else {
    throw new LegacyFailure(`${HATCH}: op must be add, remove or set`);
  }
  return patch(api, kind, id, { [name]: list });
};

export const pcListHatch: HatchRecord = hatchRecord(
  HATCH,
  'platform-core',
  'the new PATCH replaces whole lists; adding or removing one item reads the document, changes the list and writes it back',
  {
    required: ['kind', 'id', 'field', 'op'],
    properties: {
      ...TARGET_ARGUMENTS,
      field: { enum: Object.keys(FIELDS) },
      op: { enum: ['add', 'remove', 'set'] },
      item: { type: 'object' },
      items: { type: ['array', 'object'] },
    },
    // Which of item and items the operation reads.
    more: { if: { properties: { op: { const: 'set' } } }, then: { required: ['items'] }, else: { required: ['item'] } },
  },
  pcList,
);
