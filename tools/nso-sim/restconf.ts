/**
 * The RESTCONF area (RFC 8040) as NSO serves it: the root resource,
 * `/restconf/data` with GET/HEAD/POST/PUT/PATCH/DELETE/OPTIONS, actions by
 * POST under `/restconf/data` or `/restconf/operations`, and NSO's
 * `dry-run` and `rollback-id` query parameters on changes.
 */
import { isActionPath, runAction } from './actions.ts';
import { parseDryRun } from './dry-run.ts';
import { badRequest, errorType, notFound, SimError } from './errors.ts';
import { docReply, emptyReply, negotiate, parseJsonBody, RESTCONF_TYPES } from './http.ts';
import type { Format, Reply } from './http.ts';
import type { JsonObject } from './json.ts';
import { parseDepth, parseFields, prune, select } from './query.ts';
import { change } from './state.ts';
import type { Call } from './state.ts';
import type { Datastore, PathStep } from './tree.ts';

const YANG_DATA = 'application/yang-data';
const DATA_METHODS = 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE';
// NSO's commit parameters are accepted so clients that send them work; nothing here acts on them.
const COMMIT_PARAMS = ['no-networking', 'no-out-of-sync-check', 'no-overwrite', 'no-revision-drop', 'no-deploy', 'commit-queue', 'rollback-comment', 'rollback-label', 'unhide'];
const KNOWN_PARAMS = new Set(['depth', 'fields', 'content', 'with-defaults', 'dry-run', 'rollback-id', ...COMMIT_PARAMS]);

export function handleRestconf(call: Call): Reply {
  const format = negotiate(call.headers.accept, RESTCONF_TYPES);
  try {
    if (format === null) throw new SimError(406, 'invalid-value', `cannot answer in ${call.headers.accept ?? ''}; accept application/yang-data+json or application/yang-data+xml`);
    return route(call, format);
  } catch (error) {
    if (error instanceof SimError) return restconfError(error, format ?? 'xml');
    throw error;
  }
}

export function restconfError(error: SimError, format: Format): Reply {
  const entry = { 'error-type': errorType(error.tag), 'error-tag': error.tag, 'error-message': error.message };
  return docReply(error.status, { 'ietf-restconf:errors': { error: [entry] } }, format, YANG_DATA, error.headers);
}

function route(call: Call, format: Format): Reply {
  const path = call.path.replace(/\/+$/, '');
  checkQuery(call.query);
  if (path === '/restconf') {
    allow(call, 'GET, HEAD, OPTIONS');
    return reply(call, 200, { 'ietf-restconf:restconf': { data: {}, operations: {}, 'yang-library-version': '2019-01-04' } }, format);
  }
  if (path === '/restconf/yang-library-version') {
    allow(call, 'GET, HEAD, OPTIONS');
    return reply(call, 200, { 'ietf-restconf:yang-library-version': '2019-01-04' }, format);
  }
  if (path === '/restconf/operations') {
    allow(call, 'GET, HEAD, OPTIONS');
    return reply(call, 200, { 'ietf-restconf:operations': {} }, format);
  }
  if (path.startsWith('/restconf/operations/')) {
    allow(call, 'POST, OPTIONS');
    return call.method === 'OPTIONS' ? emptyReply(200, { allow: 'POST, OPTIONS' }) : operation(call, format, parsePath(path.slice('/restconf/operations/'.length)));
  }
  if (path === '/restconf/data' || path.startsWith('/restconf/data/')) return data(call, format, parsePath(path.slice('/restconf/data/'.length)));
  throw notFound(call.path);
}

/** Splits `a:b/c=k1,k2` into steps; segments are decoded one by one so encoded `/` and `,` stay inside keys. */
export function parsePath(raw: string): PathStep[] {
  if (raw === '') return [];
  // RFC 8040 3.5.3 wants the module on the first segment; the legacy API is the lenient one.
  if (!/^[^/=]+:/.test(raw)) throw badRequest(`the first path segment must be module-qualified, e.g. tailf-ncs:devices (got ${raw.split('/')[0] ?? raw})`);
  return raw.split('/').map((segment) => {
    if (segment === '') throw badRequest('empty path segment', 'malformed-message');
    const eq = segment.indexOf('=');
    const name = decode(eq < 0 ? segment : segment.slice(0, eq));
    return { name, keys: eq < 0 ? null : segment.slice(eq + 1).split(',').map(decode) };
  });
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw badRequest(`bad percent-encoding in "${text}"`, 'malformed-message');
  }
}

export function dataPath(steps: readonly PathStep[]): string {
  const segment = (step: PathStep): string => encodeURIComponent(step.name).replace(/%3A/gi, ':') + (step.keys === null ? '' : `=${step.keys.map(encodeURIComponent).join(',')}`);
  return `/restconf/data/${steps.map(segment).join('/')}`;
}

function checkQuery(query: URLSearchParams): void {
  for (const name of new Set(query.keys())) {
    if (!KNOWN_PARAMS.has(name)) throw badRequest(`unknown query parameter ${name}`);
    if (query.getAll(name).length > 1) throw badRequest(`query parameter ${name} given more than once`);
  }
}

function allow(call: Call, methods: string): void {
  if (!methods.split(', ').includes(call.method)) throw new SimError(405, 'operation-not-supported', `${call.method} is not allowed on ${call.path}`, { allow: methods });
}

function reply(call: Call, status: number, doc: JsonObject, format: Format): Reply {
  return call.method === 'OPTIONS' ? emptyReply(200, { allow: 'GET, HEAD, OPTIONS' }) : docReply(status, doc, format, YANG_DATA);
}

function data(call: Call, format: Format, steps: PathStep[]): Reply {
  const { method, query, state } = call;
  if (method === 'GET' || method === 'HEAD') {
    if (query.has('dry-run') || query.has('rollback-id')) throw badRequest('dry-run and rollback-id apply to changes, not to GET');
    const found = state.store.get(steps);
    let value = found.entry ? [found.value] : found.value;
    const fields = query.get('fields');
    if (fields !== null) value = select(value, parseFields(fields));
    return docReply(200, { [found.name]: prune(value, parseDepth(query.get('depth'))) }, format, YANG_DATA);
  }
  if (method === 'OPTIONS') return emptyReply(200, { allow: DATA_METHODS, 'accept-patch': 'application/yang-data+json' });
  if (method === 'POST' && isActionPath(steps) && !state.store.has(steps)) return operation(call, format, steps);
  if (method === 'DELETE') {
    if (steps.length === 0) throw new SimError(405, 'operation-not-supported', 'the datastore itself cannot be deleted', { allow: 'GET, HEAD, OPTIONS, POST, PUT, PATCH' });
    return commit(call, format, (draft) => {
      draft.delete(steps);
      return { status: 204, headers: {} };
    });
  }
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') throw new SimError(405, 'operation-not-supported', `${method} is not allowed on a data resource`, { allow: DATA_METHODS });
  const body = parseJsonBody(call.body, call.headers['content-type'], RESTCONF_TYPES.json);
  if (method === 'POST') {
    return commit(call, format, (draft) => ({ status: 201, headers: { location: call.origin + dataPath(draft.post(steps, body)) } }));
  }
  if (method === 'PUT') return commit(call, format, (draft) => ({ status: draft.put(steps, body) === 'created' ? 201 : 204, headers: {} }));
  return commit(call, format, (draft) => {
    draft.patch(steps, body);
    return { status: 204, headers: {} };
  });
}

interface Written {
  readonly status: number;
  readonly headers: Record<string, string>;
}

/**
 * Applies a change, or only reports it for `dry-run`. NSO answers
 * `rollback-id=true` with the id in a `tailf-restconf:result` body; a 204
 * cannot carry one, so such an answer becomes 200.
 */
function commit(call: Call, format: Format, op: (draft: Datastore) => Written): Reply {
  const dryRun = parseDryRun(call.query.get('dry-run'));
  const rollback = call.query.get('rollback-id');
  if (rollback !== null && rollback !== '' && rollback !== 'true' && rollback !== 'false') throw badRequest(`rollback-id must be true or false, not "${rollback}"`);
  const outcome = change(call.state, op, dryRun);
  if (outcome.kind === 'dry-run') return docReply(200, outcome.result, format, YANG_DATA, {}, 'tailf-restconf');
  const { status, headers } = outcome.value;
  if (rollback === null || rollback === 'false') return emptyReply(status, headers);
  return docReply(status === 204 ? 200 : status, { 'tailf-restconf:result': { rollback: { id: outcome.rollbackId } } }, format, YANG_DATA, headers);
}

function operation(call: Call, format: Format, steps: PathStep[]): Reply {
  if (call.method !== 'POST') throw new SimError(405, 'operation-not-supported', 'operations are invoked with POST', { allow: 'POST, OPTIONS' });
  if (call.query.has('dry-run') || call.query.has('rollback-id')) throw badRequest('dry-run and rollback-id do not apply to actions');
  // The input is checked for form only; no simulated action reads it.
  if (call.body.trim() !== '') parseJsonBody(call.body, call.headers['content-type'], RESTCONF_TYPES.json);
  const output = runAction(call.state.store, steps);
  return output === null ? emptyReply(204) : docReply(200, output, format, YANG_DATA);
}
