/**
 * Who may read the gateway's own audit report and metrics. The gateway keeps
 * no accounts, so it asks its upstream, with the caller's own credentials in
 * the form the caller sent them: `GET /whoami` for the ids of the caller's
 * roles, then `GET /authorization/roles` for the ids of the roles that bear
 * the accepted names. A role is recognised by its provenance and name, never
 * by an id worked out in advance: on a real platform role ids are ObjectIds
 * made at install time (ipctl's 2023.2 `whoami` fixture lists only such ids,
 * with no names; docs/real-platform.md), and an id that happens to equal one
 * we would derive proves nothing.
 */
import type { Context } from 'koa';
import { AppError, ForbiddenError, UnauthenticatedError } from '../../kernel/index.ts';
import type { CoreClient } from './core-client.ts';
import { credentialsOf } from './legacy/policy.ts';
import type { CallCore, CoreAnswer } from './mapping/run.ts';
import { forwardingHeaders } from './proxy.ts';

export interface RoleName {
  readonly provenance: string;
  readonly name: string;
}

/** A method whose grant also admits the caller, read from whoami's `methods` (by provenance). */
export interface MethodName {
  readonly provenance: string;
  readonly name: string;
}

/** Pages of the role list read at most; a platform that ignored the provenance filter still ends. */
const MAX_PAGES = 50;
const PAGE = 100;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The upstream's refusals that mean the same here; anything else unexpected is the upstream's failure. */
function refusalOf(answer: CoreAnswer, asking: string): AppError | null {
  if (answer.status === 401) return new UnauthenticatedError('The credentials are not valid');
  // A locked-out caller stays locked out here too.
  if (answer.status === 429) return new AppError(429, 'TOO_MANY_REQUESTS', 'Too many failed attempts; try again later');
  return new AppError(502, 'UPSTREAM_FAILED', `The upstream answered ${answer.status} when asked ${asking}`);
}

async function ask(call: CallCore, path: string, query: Record<string, string>, asking: string): Promise<CoreAnswer> {
  try {
    return await call({ method: 'GET', path, query, body: undefined });
  } catch (err) {
    throw new AppError(502, 'UPSTREAM_FAILED', `The upstream could not be asked ${asking}`, [], { cause: err });
  }
}

/** Whether whoami's `methods` grants one of `methods`; read through own keys only. */
function grants(whoami: Record<string, unknown>, methods: readonly MethodName[]): boolean {
  const granted = whoami['methods'];
  if (!isRecord(granted)) return false;
  return methods.some((m) => {
    const names = Object.hasOwn(granted, m.provenance) ? granted[m.provenance] : undefined;
    return Array.isArray(names) && names.includes(m.name);
  });
}

/**
 * The ids of the upstream's roles named in `accepted`, read page by page, one
 * provenance at a time; null when the caller may not read the role list. The
 * provenance filter only saves pages: each role is checked here by its own
 * provenance and name, since a platform ignores a filter it does not know.
 */
async function idsOfRoles(call: CallCore, accepted: readonly RoleName[]): Promise<Set<string> | null> {
  const ids = new Set<string>();
  for (const provenance of new Set(accepted.map((r) => r.provenance))) {
    const names = new Set(accepted.filter((r) => r.provenance === provenance).map((r) => r.name));
    let skip = 0;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await ask(call, '/authorization/roles', { 'multiEquals[provenance]': provenance, limit: String(PAGE), skip: String(skip) }, 'for the roles');
      if (answer.status === 403) return null;
      if (answer.status !== 200) throw refusalOf(answer, 'for the roles');
      const body = answer.body;
      const results = isRecord(body) && Array.isArray(body['results']) ? body['results'] : null;
      if (results === null) throw new AppError(502, 'UPSTREAM_FAILED', 'The upstream\'s role list is not {results, total}');
      for (const role of results) {
        if (isRecord(role) && role['provenance'] === provenance && typeof role['name'] === 'string' && names.has(role['name']) && typeof role['_id'] === 'string') ids.add(role['_id']);
      }
      skip += results.length;
      const total = isRecord(body) && typeof body['total'] === 'number' ? body['total'] : skip;
      if (results.length === 0 || skip >= total) break;
    }
  }
  return ids;
}

export interface RoleCheck {
  /** Roles, by provenance and name, that admit the caller. */
  readonly roles: readonly RoleName[];
  /** Methods whose grant also admits a caller who may not read the role list (a metrics scraper). */
  readonly methods?: readonly MethodName[];
  /** The 403's message. */
  readonly refusal: string;
}

/**
 * Refuses (401; 403 with `check.refusal`) unless the caller holds one of the
 * accepted roles, or, when the caller may not read the role list, is granted
 * one of the accepted methods. Shared by the audit report and the metrics.
 */
export async function requireRole(ctx: Context, client: CoreClient, check: RoleCheck): Promise<void> {
  const credentials = credentialsOf(ctx.req.headers, new URLSearchParams(ctx.querystring));
  if (!credentials.authorization && !credentials.cookie && !credentials.token) throw new UnauthenticatedError();
  // The upstream counts a failed Basic login against the client, not the gateway (docs/auth.md, "Forwarded addresses").
  const forwarded = { client: ctx.ip, proto: ctx.protocol === 'https' ? 'https' : 'http', host: ctx.host, viaProxy: false } as const;
  // The front door has put its own request id in place of the caller's (front-door/stages.ts).
  const requestId = ctx.req.headers['x-request-id'];
  const call = client.forCaller(credentials, { ...forwardingHeaders(ctx.req.socket.remoteAddress ?? '', ctx.req.headers, forwarded), ...(typeof requestId === 'string' ? { 'x-request-id': requestId } : {}) });
  const answer = await ask(call, '/whoami', {}, 'who the caller is');
  if (answer.status !== 200) throw refusalOf(answer, 'who the caller is');
  const whoami = isRecord(answer.body) ? answer.body : {};
  const held = Array.isArray(whoami['roles']) ? whoami['roles'].filter((r): r is string => typeof r === 'string') : [];
  if (held.length > 0) {
    const ids = await idsOfRoles(call, check.roles);
    if (ids !== null && held.some((id) => ids.has(id))) return;
    if (ids === null && check.methods && grants(whoami, check.methods)) return;
  }
  throw new ForbiddenError(check.refusal);
}
