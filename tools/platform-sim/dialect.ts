/**
 * Where the platform's interface differs from our core's, for one request:
 * which query parameters the platform reads on a list (a filter it does not
 * know is dropped, so the answer holds everything, as the platform answers),
 * its page cap, the bodies it takes, and the paths it serves under other
 * names. The platform's own filters, bodies and `/nso_manager` reach the core
 * as they came: our core reads them beside the interface's forms.
 * docs/platform-sim.md names the public source of each rule.
 */

export class Refusal extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export interface QueryResult {
  /** The query string to send our core (without `?`). */
  readonly query: string;
  /** Parameters the platform does not read on this route: dropped, answered as if absent. */
  readonly ignored: readonly string[];
}

type Kind = 'authorization' | 'search' | 'generic' | 'workflows' | null;

const AUTHORIZATION_LISTS = new Set(['/authorization/accounts', '/authorization/groups', '/authorization/roles']);
const SEARCH_LISTS = new Set(['/operations-manager/jobs', '/operations-manager/tasks']);
const GENERIC_LISTS = new Set(['/health/applications', '/health/adapters', '/workflow_engine/jobs/metrics', '/workflow_engine/tasks/metrics']);
const PAGE = ['limit', 'skip', 'sort', 'order'];
const GENERIC = [...PAGE, 'equals', 'equalsField', 'contains', 'containsField', 'startsWith', 'startsWithField'];
const SEARCH_OPERATOR = /^(equals|contains|starts-with|ends-with|in|not-in|gt|gte|lt|lte)\[.+\]$/;
const WORKFLOW_OPERATOR = /^(equals|contains|starts-with)\[.+\]$/;
const AUTHORIZATION_FILTER = /^multi(Equals|Contains|StartsWith)\[(.+)\]$/;
/** The credential; never a filter, always passed on. */
const TOKEN = 'token';

function kindOf(method: string, path: string): Kind {
  if (method !== 'GET') return null;
  if (AUTHORIZATION_LISTS.has(path)) return 'authorization';
  if (SEARCH_LISTS.has(path)) return 'search';
  if (GENERIC_LISTS.has(path)) return 'generic';
  if (path === '/automation-studio/workflows') return 'workflows';
  return null;
}

function known(kind: Exclude<Kind, null>, name: string): boolean {
  switch (kind) {
    case 'authorization':
      return [...PAGE, 'inactive', 'groupId'].includes(name) || AUTHORIZATION_FILTER.test(name);
    case 'search':
      return [...PAGE, 'q', 'include', 'exclude', 'dereference'].includes(name) || SEARCH_OPERATOR.test(name);
    case 'generic':
      return GENERIC.includes(name);
    case 'workflows':
      return [...GENERIC, 'include', 'exclude', 'exclude-project-members'].includes(name) || WORKFLOW_OPERATOR.test(name);
  }
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** Lowers `limit` to the cap (and sets it when a missing one would default above the cap). */
function capped(parts: string[][], cap: number): string[][] {
  const limit = parts.find(([name]) => name === 'limit');
  if (!limit) return cap < 25 ? [...parts, ['limit', String(cap)]] : parts;
  const asked = Number(decodeName(limit[1] ?? ''));
  if (Number.isInteger(asked) && asked > cap) limit[1] = String(cap);
  return parts;
}

/**
 * The query our core is sent for a request the platform would read this way.
 * `pageCap`: the largest page the stand-in gives (the platform's, a setting).
 */
export function translateQuery(method: string, path: string, rawQuery: string, pageCap: number): QueryResult {
  const kind = kindOf(method, path);
  if (kind === null || rawQuery === '') return { query: rawQuery, ignored: [] };
  const ignored: string[] = [];
  let parts: string[][] = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const rawName = eq === -1 ? piece : piece.slice(0, eq);
    const rawValue = eq === -1 ? '' : piece.slice(eq + 1);
    const name = decodeName(rawName);
    if (name === TOKEN) parts.push([rawName, rawValue]);
    else if (!known(kind, name)) ignored.push(name);
    else parts.push([rawName, rawValue]);
  }
  if (kind !== null) parts = capped(parts, pageCap);
  return { query: parts.map(([n, v]) => `${n}=${v}`).join('&'), ignored };
}

/** The path our core serves the platform's path under (`/nso_manager/*` it serves as it is). */
export function translatePath(method: string, path: string): string {
  if (method === 'GET' && path === '/help/openapi') return '/openapi.json';
  return path;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Refuses a body the platform does not take on this route (the interface's
 * bare forms and `taskId`); a body it takes passes unchanged. That a role's
 * name and provenance cannot be patched in `{"updates"}` is the core's own
 * rule now, so the core answers it.
 */
export function checkBody(method: string, path: string, body: unknown): void {
  const patch = /^\/authorization\/(accounts|groups|roles)\/[^/]+$/.exec(path);
  if (method === 'PATCH' && patch) {
    if (!isRecord(body) || !isRecord(body['updates']) || Object.keys(body).length !== 1) {
      throw new Refusal(400, `PATCH /authorization/${patch[1]!}/:id takes {"updates": {...}} on the platform`);
    }
  }
  const create = /^\/authorization\/(groups|roles)$/.exec(path);
  if (method === 'POST' && create) {
    const key = create[1] === 'groups' ? 'group' : 'role';
    if (!isRecord(body) || !isRecord(body[key]) || Object.keys(body).length !== 1) throw new Refusal(400, `POST /authorization/${create[1]!} takes {"${key}": {...}} on the platform`);
  }
  if (method === 'POST' && /^\/operations-manager\/jobs\/[^/]+\/continue$/.test(path)) {
    if (!isRecord(body) || typeof body['fromTask'] !== 'string' || Object.hasOwn(body, 'taskId')) {
      throw new Refusal(400, 'POST /operations-manager/jobs/:jobId/continue takes {"fromTask": "<task key>"} on the platform');
    }
  }
}
