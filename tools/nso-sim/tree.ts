/**
 * The in-memory datastore: one JSON tree shaped like RFC 7951 data, with
 * top-level members module-qualified (`tailf-ncs:devices`). Paths arrive as
 * steps (a name and, for a list entry, its key values) from either API area.
 * Lists are stored as arrays even when empty so a later write still knows
 * that the member is a list.
 */
import { badRequest, notFound, SimError } from './errors.ts';
import { findEntry, findMember, isObject, listKeyNames, localOf, prefixOf, qualified, sameName, scalarText, storageKey } from './json.ts';
import type { Json, JsonObject } from './json.ts';

export interface PathStep {
  /** The node name as written in the URI, with or without a module prefix. */
  readonly name: string;
  /** Key values of a list entry; null when the step names a container, leaf or whole list. */
  readonly keys: readonly string[] | null;
}

interface Slot {
  readonly holder: JsonObject;
  /** The member of `holder` the step resolves to, or the name it would be created under. */
  readonly key: string;
  readonly module: string;
  readonly keys: readonly string[] | null;
  /** Index of the entry in the list, -1 when the entry is missing or the step is not an entry. */
  readonly index: number;
}

export interface Found {
  /** The qualified name an answer uses for the node, e.g. `tailf-ncs:device`. */
  readonly name: string;
  readonly value: Json;
  readonly entry: boolean;
}

export class Datastore {
  readonly root: JsonObject;

  constructor(root: JsonObject) {
    this.root = root;
  }

  clone(): Datastore {
    return new Datastore(structuredClone(this.root));
  }

  get(steps: readonly PathStep[]): Found {
    if (steps.length === 0) return { name: 'ietf-restconf:data', value: this.root, entry: false };
    const slot = this.slot(steps, false);
    const value = valueAt(slot);
    if (value === undefined || (Array.isArray(value) && value.length === 0 && slot.keys === null)) throw notFound(describe(steps));
    return { name: qualified(slot.module, localOf(slot.key)), value, entry: slot.keys !== null };
  }

  has(steps: readonly PathStep[]): boolean {
    try {
      this.get(steps);
      return true;
    } catch {
      return false;
    }
  }

  /** Creates or replaces the target; missing containers on the way are created, missing list entries are not. */
  put(steps: readonly PathStep[], body: JsonObject): 'created' | 'replaced' {
    if (steps.length === 0) {
      const data = unwrapData(body);
      for (const key of Object.keys(this.root)) delete this.root[key];
      Object.assign(this.root, data);
      return 'replaced';
    }
    const slot = this.slot(steps, true);
    const value = bodyMember(body, slot.key);
    if (slot.keys !== null) {
      const list = ensureList(slot);
      const entry = entryFromBody(value);
      const fixed = withKeys(entry, listKeyNames(list, entry, slot.keys.length), slot.keys);
      if (slot.index >= 0) {
        list[slot.index] = fixed;
        return 'replaced';
      }
      list.push(fixed);
      return 'created';
    }
    const existed = Object.hasOwn(slot.holder, slot.key);
    slot.holder[slot.key] = value;
    return existed ? 'replaced' : 'created';
  }

  /** Creates the one child the body names; answers the steps of the new resource for its Location. */
  post(steps: readonly PathStep[], body: JsonObject): PathStep[] {
    const members = Object.keys(body);
    const childName = members[0];
    if (members.length !== 1 || childName === undefined) throw badRequest('the body must hold exactly one child resource', 'malformed-message');
    if (localOf(childName) === '__proto__') throw badRequest('invalid node name "__proto__"');
    const child = body[childName] as Json;
    let holder = this.root;
    let module: string | null = null;
    if (steps.length > 0) {
      const slot = this.slot(steps, false);
      const target = valueAt(slot);
      if (target === undefined) throw notFound(describe(steps));
      if (Array.isArray(target)) {
        // POST on a whole list (NSO accepts it): the body names the list and carries the new entry.
        if (!sameName(childName, slot.key)) throw badRequest(`the body member ${childName} does not match the list ${slot.key}`);
        const keys = addEntry(target, child);
        return [...steps.slice(0, -1), { name: steps[steps.length - 1]?.name ?? slot.key, keys }];
      }
      if (!isObject(target)) throw badRequest(`${describe(steps)} is a leaf and has no children`);
      holder = target;
      module = slot.module;
    } else if (prefixOf(childName) === null && findMember(holder, childName) === undefined) {
      throw badRequest('a top-level node must be module-qualified, e.g. tailf-ncs:devices');
    }
    const key = findMember(holder, childName) ?? storageKey(childName, module);
    const existing = holder[key];
    if (existing !== undefined && !Array.isArray(existing)) throw new SimError(409, 'data-exists', `object already exists: ${describe([...steps, { name: key, keys: null }])}`);
    if (Array.isArray(existing) || Array.isArray(child)) {
      const list = Array.isArray(existing) ? existing : (holder[key] = []);
      return [...steps, { name: key, keys: addEntry(list, child) }];
    }
    holder[key] = child;
    return [...steps, { name: key, keys: null }];
  }

  /** RFC 8040 plain patch: merges into an existing target, never creates it. */
  patch(steps: readonly PathStep[], body: JsonObject): void {
    if (steps.length === 0) {
      mergeObject(this.root, unwrapData(body));
      return;
    }
    const slot = this.slot(steps, false);
    const current = valueAt(slot);
    if (current === undefined) throw notFound(describe(steps));
    const value = bodyMember(body, slot.key);
    if (slot.keys !== null) {
      const list = slot.holder[slot.key] as Json[];
      const entry = entryFromBody(value);
      list[slot.index] = mergeValue(current, withKeys(entry, listKeyNames(list, entry, slot.keys.length), slot.keys));
      return;
    }
    slot.holder[slot.key] = mergeValue(current, value);
  }

  delete(steps: readonly PathStep[]): void {
    const slot = this.slot(steps, false);
    const current = valueAt(slot);
    if (current === undefined || (Array.isArray(current) && current.length === 0)) throw notFound(describe(steps));
    if (slot.keys !== null) (slot.holder[slot.key] as Json[]).splice(slot.index, 1);
    else if (Array.isArray(current)) slot.holder[slot.key] = [];
    else delete slot.holder[slot.key];
  }

  private slot(steps: readonly PathStep[], createContainers: boolean): Slot {
    let holder = this.root;
    let module: string | null = null;
    for (const step of steps.slice(0, -1)) {
      const slot = slotIn(holder, module, step);
      let value = valueAt(slot);
      if (value === undefined) {
        if (!createContainers || step.keys !== null) throw notFound(describe(steps));
        value = slot.holder[slot.key] = {};
      }
      if (Array.isArray(value)) throw badRequest(`${step.name} is a list; name an entry with ${step.name}=<key>`);
      if (!isObject(value)) throw badRequest(`${step.name} is a leaf and has no children`);
      holder = value;
      module = slot.module;
    }
    const last = steps[steps.length - 1];
    if (last === undefined) throw new Error('slot() needs at least one step');
    return slotIn(holder, module, last);
  }
}

function slotIn(holder: JsonObject, holderModule: string | null, step: PathStep): Slot {
  if (step.name === '' || localOf(step.name) === '__proto__') throw badRequest(`invalid node name "${step.name}"`);
  const found = findMember(holder, step.name);
  if (found === undefined && holderModule === null && prefixOf(step.name) === null) {
    throw badRequest(`the first path segment must be module-qualified, e.g. tailf-ncs:devices (got ${step.name})`);
  }
  const key = found ?? storageKey(step.name, holderModule);
  const module = prefixOf(key) ?? prefixOf(step.name) ?? holderModule ?? '';
  if (step.keys === null) return { holder, key, module, keys: null, index: -1 };
  const existing = holder[key];
  if (existing !== undefined && !Array.isArray(existing)) throw badRequest(`${step.name} is not a list, so it takes no keys`);
  const index = existing === undefined ? -1 : findEntry(existing, listKeyNames(existing, undefined, step.keys.length), step.keys);
  return { holder, key, module, keys: step.keys, index };
}

function valueAt(slot: Slot): Json | undefined {
  if (slot.keys === null) return Object.hasOwn(slot.holder, slot.key) ? slot.holder[slot.key] : undefined;
  const list = slot.holder[slot.key];
  return Array.isArray(list) && slot.index >= 0 ? list[slot.index] : undefined;
}

function ensureList(slot: Slot): Json[] {
  const existing = slot.holder[slot.key];
  if (Array.isArray(existing)) return existing;
  const list: Json[] = [];
  slot.holder[slot.key] = list;
  return list;
}

export function describe(steps: readonly PathStep[]): string {
  return steps.map((step) => (step.keys === null ? step.name : `${step.name}=${step.keys.join(',')}`)).join('/');
}

function unwrapData(body: JsonObject): JsonObject {
  const data = body['ietf-restconf:data'];
  if (data === undefined) return body;
  if (!isObject(data)) throw badRequest('ietf-restconf:data must be an object');
  return data;
}

/** RFC 8040 4.5: the body of PUT and PATCH holds exactly the target resource. */
function bodyMember(body: JsonObject, key: string): Json {
  const members = Object.keys(body);
  const name = members[0];
  if (members.length !== 1 || name === undefined) throw badRequest(`the body must hold exactly one member, ${key}`, 'malformed-message');
  if (!sameName(name, key)) throw badRequest(`the body member ${name} does not match the target ${key}`);
  return body[name] as Json;
}

function entryFromBody(value: Json): JsonObject {
  const entry = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (!isObject(entry)) throw badRequest('a list entry must be an object, or an array holding exactly one object');
  return entry;
}

/** Puts the key leaves first (filling any the body left out from the URI) and refuses keys that contradict it. */
function withKeys(entry: JsonObject, names: readonly string[], keys: readonly string[]): JsonObject {
  names.forEach((name, i) => {
    const given = entry[name];
    if (given !== undefined && scalarText(given) !== keys[i]) throw badRequest(`key leaf ${name} is ${JSON.stringify(given)} in the body but ${keys[i] ?? '(none)'} in the URI`);
  });
  return { ...Object.fromEntries(names.map((name, i) => [name, entry[name] ?? keys[i] ?? ''])), ...entry };
}

function addEntry(list: Json[], child: Json): string[] {
  if (Array.isArray(child) && child.length !== 1) throw badRequest('POST creates one list entry at a time', 'malformed-message');
  const entry = entryFromBody(child);
  const names = listKeyNames(list, entry, 1);
  const keys = names.map((name) => scalarText(entry[name]));
  if (keys.some((key) => key === undefined)) throw badRequest(`the new entry has no key leaf ${names.join(', ')}`, 'missing-element');
  const values = keys as string[];
  if (findEntry(list, names, values) >= 0) throw new SimError(409, 'data-exists', `object already exists: entry ${values.join(',')}`);
  list.push(entry);
  return values;
}

function mergeValue(current: Json, incoming: Json): Json {
  if (isObject(current) && isObject(incoming)) return mergeObject(current, incoming);
  if (Array.isArray(current) && Array.isArray(incoming)) return mergeList(current, incoming);
  return incoming;
}

function mergeObject(target: JsonObject, incoming: JsonObject): JsonObject {
  for (const [name, value] of Object.entries(incoming)) {
    const key = findMember(target, name) ?? name;
    const current = target[key];
    target[key] = current === undefined ? value : mergeValue(current, value);
  }
  return target;
}

/** List entries merge by key; leaf-list values are added when new. */
function mergeList(target: Json[], incoming: Json[]): Json[] {
  const names = listKeyNames(target.length > 0 ? target : incoming, undefined, 1);
  for (const item of incoming) {
    if (!isObject(item)) {
      if (!target.includes(item)) target.push(item);
      continue;
    }
    const keys = names.map((name) => scalarText(item[name]) ?? '');
    const index = findEntry(target, names, keys);
    const current = index >= 0 ? target[index] : undefined;
    if (current === undefined) target.push(item);
    else target[index] = mergeValue(current, item);
  }
  return target;
}
