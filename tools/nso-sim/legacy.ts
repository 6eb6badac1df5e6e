/**
 * NSO's legacy REST API (NSO 5.3 and older), over the same tree as
 * RESTCONF: `/api/running/devices/device/ce0/config`. A list entry is the
 * list name followed by its key as the next segment. Single resources are
 * `application/vnd.yang.data+json|xml`, whole lists
 * `application/vnd.yang.collection+json|xml`. GET answers one level below
 * the resource unless `?deep` asks for the whole subtree (`?shallow`: the
 * resource alone). Actions are `POST .../_operations/<action>`.
 */
import { runAction } from './actions.ts';
import { badRequest, notFound, SimError } from './errors.ts';
import { docReply, emptyReply, negotiate, parseJsonBody } from './http.ts';
import type { Format, MediaTypes, Reply } from './http.ts';
import { findEntry, findMember, isObject, listKeyNames, localOf } from './json.ts';
import type { Json } from './json.ts';
import { prune } from './query.ts';
import { change } from './state.ts';
import type { Call } from './state.ts';
import type { Datastore, PathStep } from './tree.ts';

const KINDS = ['data', 'collection', 'api', 'datastore'];
export const LEGACY_TYPES: MediaTypes = {
  json: [...KINDS.map((kind) => `application/vnd.yang.${kind}+json`), 'application/json'],
  xml: [...KINDS.map((kind) => `application/vnd.yang.${kind}+xml`), 'application/xml', 'text/xml'],
};
const DATASTORES = new Set(['running', 'config', 'operational']);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function handleLegacy(call: Call): Reply {
  const format = negotiate(call.headers.accept, LEGACY_TYPES);
  try {
    if (format === null) throw new SimError(406, 'invalid-value', `cannot answer in ${call.headers.accept ?? ''}; accept application/vnd.yang.data+json or +xml`);
    return route(call, format);
  } catch (error) {
    if (error instanceof SimError) return legacyError(error, format ?? 'xml', call.path);
    throw error;
  }
}

/** The legacy API's own error form, not RFC 8040's. */
export function legacyError(error: SimError, format: Format, urlPath: string): Reply {
  const entry = { 'error-message': error.message, 'error-urlpath': urlPath, 'error-tag': error.tag };
  return docReply(error.status, { errors: { error: [entry] } }, format, 'application/vnd.yang.errors', error.headers, 'tailf-rest-error');
}

function route(call: Call, format: Format): Reply {
  for (const name of new Set(call.query.keys())) if (name !== 'deep' && name !== 'shallow') throw badRequest(`unknown query parameter ${name}`);
  const [datastore, ...segments] = call.path.replace(/\/+$/, '').split('/').slice(2).map(decode);
  if (datastore === undefined) {
    readOnly(call);
    const api = { version: '0.5', config: {}, running: {}, operational: {}, operations: {}, rollbacks: {} };
    return docReply(200, { api }, format, 'application/vnd.yang.api', {}, 'tailf-rest');
  }
  if (!DATASTORES.has(datastore)) throw notFound(call.path);
  if (datastore === 'operational' && WRITE_METHODS.has(call.method)) throw new SimError(405, 'operation-not-supported', 'the operational datastore is read-only', { allow: 'GET, HEAD' });
  const store = call.state.store;
  const at = segments.indexOf('_operations');
  if (at >= 0) {
    if (call.method !== 'POST') throw new SimError(405, 'operation-not-supported', 'operations are invoked with POST', { allow: 'POST' });
    const action = segments[at + 1];
    if (action === undefined || at + 2 !== segments.length) throw notFound(call.path);
    const output = runAction(store, [...toSteps(store, segments.slice(0, at)), { name: action, keys: null }]);
    return output === null ? emptyReply(204) : docReply(200, output, format, 'application/vnd.yang.data');
  }
  if (segments.length === 0) {
    readOnly(call);
    return docReply(200, { data: prune(store.root, depthOf(call.query)) }, format, 'application/vnd.yang.datastore', {}, 'tailf-rest');
  }
  const steps = toSteps(store, segments);
  if (call.method === 'GET' || call.method === 'HEAD') {
    const found = store.get(steps);
    if (Array.isArray(found.value) && !found.entry) {
      return docReply(200, { collection: { [found.name]: prune(found.value, depthOf(call.query)) } }, format, 'application/vnd.yang.collection', {}, 'tailf-rest');
    }
    // Pruned as a one-entry list so that a shallow entry keeps its key.
    const value = found.entry ? (prune([found.value], depthOf(call.query)) as Json[])[0] ?? null : prune(found.value, depthOf(call.query));
    return docReply(200, { [found.name]: value }, format, 'application/vnd.yang.data');
  }
  if (!WRITE_METHODS.has(call.method)) throw new SimError(405, 'operation-not-supported', `${call.method} is not supported`, { allow: 'GET, HEAD, POST, PUT, PATCH, DELETE' });
  return write(call, steps, datastore);
}

function write(call: Call, steps: PathStep[], datastore: string): Reply {
  const state = call.state;
  if (call.method === 'DELETE') {
    change(state, (draft) => draft.delete(steps), null);
    return emptyReply(204);
  }
  const body = parseJsonBody(call.body, call.headers['content-type'], LEGACY_TYPES.json);
  if (call.method === 'POST') {
    const outcome = change(state, (draft) => draft.post(steps, body), null);
    const location = outcome.kind === 'committed' ? outcome.value : [];
    return emptyReply(201, { location: `${call.origin}/api/${datastore}/${legacyPath(location)}` });
  }
  if (call.method === 'PUT') {
    const outcome = change(state, (draft: Datastore) => draft.put(steps, body), null);
    return emptyReply(outcome.kind === 'committed' && outcome.value === 'created' ? 201 : 204);
  }
  change(state, (draft) => draft.patch(steps, body), null);
  return emptyReply(204);
}

function readOnly(call: Call): void {
  if (call.method !== 'GET' && call.method !== 'HEAD') throw new SimError(405, 'operation-not-supported', `${call.method} is not allowed on ${call.path}`, { allow: 'GET, HEAD' });
}

function depthOf(query: URLSearchParams): number {
  if (query.has('deep')) return Infinity;
  return query.has('shallow') ? 1 : 2;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw badRequest(`bad percent-encoding in "${text}"`, 'malformed-message');
  }
}

/**
 * Legacy paths do not mark keys, so the tree decides: a segment naming an
 * existing list takes the next segment as its key (`k1,k2` for several).
 * A path into a list that does not exist yet therefore reads as containers.
 */
export function toSteps(store: Datastore, segments: readonly string[]): PathStep[] {
  const steps: PathStep[] = [];
  let node: Json | undefined = store.root;
  for (let i = 0; i < segments.length; i++) {
    const written = segments[i] ?? '';
    // Legacy paths carry YANG prefixes (`ios:interface`) where the tree has module names, so the local name decides.
    const exact: string | undefined = isObject(node) ? findMember(node, written) : undefined;
    const key: string | undefined = exact ?? (isObject(node) ? findMember(node, localOf(written)) : undefined);
    const name = exact === undefined && key !== undefined ? key : written;
    const value: Json | undefined = key !== undefined && isObject(node) ? node[key] : undefined;
    const next = segments[i + 1];
    if (Array.isArray(value) && next !== undefined) {
      const keys = next.split(',');
      steps.push({ name, keys });
      node = value[findEntry(value, listKeyNames(value, undefined, keys.length), keys)];
      i++;
    } else {
      steps.push({ name, keys: null });
      node = value;
    }
  }
  return steps;
}

function legacyPath(steps: readonly PathStep[]): string {
  return steps.flatMap((step) => [step.name, ...(step.keys === null ? [] : [step.keys.join(',')])].map((part) => encodeURIComponent(part).replace(/%3A/gi, ':').replace(/%2C/gi, ','))).join('/');
}
