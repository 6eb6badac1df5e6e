/**
 * Decides, before a hostile request is sent, whether the core will refuse it
 * before its handler runs, from the core's own route table: the same router
 * (@koa/router, mounted by mountRoutes) finds the route and decodes its path
 * parameters, and the route's own validators are called in-process on the
 * same input. A request is `rejected` only when that is certain: no route,
 * missing or wrong credentials, a role the caller lacks, a body the parser
 * cannot read, or a validator that throws. Otherwise the handler would run:
 * a `read` (GET) may be sent as it is; a `write` must be given a defect first,
 * so that no request of a fuzz run can legitimately change the store.
 */
import type Router from '@koa/router';
import { bodyDepthError } from '../../kernel/http/body-depth.ts';
import type { AnyRoute } from '../../kernel/http/route.ts';
import { mountRoutes } from '../../core/src/http/mount.ts';
import { withoutCredentials } from '../../core/src/auth/credentials.ts';
import { splitQueryString } from '../../kernel/search/query-string.ts';
import { bodyBytes } from './wire.ts';
import type { HostileRequest } from './wire.ts';

export type Verdict =
  | { readonly kind: 'rejected'; readonly route: AnyRoute | null; readonly reason: string }
  | { readonly kind: 'read' | 'write'; readonly route: AnyRoute };

export interface RouteTable {
  readonly routes: readonly AnyRoute[];
  readonly router: Router;
  /** `${provenance}.${name}` of every method the reader account may call. */
  readonly readerMethods: ReadonlySet<string>;
}

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** What @koa/bodyparser reads as JSON (its defaults) and as a form. */
const JSON_TYPES = /^application\/(json|json-patch\+json|vnd\.api\+json|csp-report|scim\+json)\s*(;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;
/** co-body's strict mode: a JSON body must be an object or an array. */
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*(\[|\{)/;

/** Role names of each provenance whose every method is a GET: the reader account holds exactly these. */
export function readOnlyRoles(routes: readonly AnyRoute[]): Array<{ provenance: string; name: string }> {
  const out: Array<{ provenance: string; name: string }> = [];
  const pairs = new Set(routes.flatMap((r) => (Array.isArray(r.roles) ? r.roles.map((name) => `${r.provenance}\u0000${name}`) : [])));
  for (const pair of pairs) {
    const [provenance, name] = pair.split('\u0000') as [string, string];
    if (name === 'admin') continue;
    const methods = new Set(routes.filter((r) => r.provenance === provenance && Array.isArray(r.roles) && r.roles.includes(name)).map((r) => r.name));
    if (routes.every((r) => r.provenance !== provenance || !methods.has(r.name) || r.method === 'GET')) out.push({ provenance, name });
  }
  return out;
}

export function routeTable(routes: readonly AnyRoute[]): RouteTable {
  const roles = readOnlyRoles(routes);
  const readerMethods = new Set(
    routes.filter((r) => Array.isArray(r.roles) && roles.some((role) => role.provenance === r.provenance && (r.roles as readonly string[]).includes(role.name))).map((r) => `${r.provenance}.${r.name}`),
  );
  return { routes, router: mountRoutes(routes), readerMethods };
}

/** The route the core's router runs for this method and path, with its decoded parameters. */
export function findRoute(table: RouteTable, method: string, pathname: string): { route: AnyRoute; params: Record<string, string> } | null {
  const lookup = method === 'HEAD' ? 'GET' : method;
  const matched = table.router.match(pathname, method);
  const layer = matched.pathAndMethod.find((l) => l.methods.length > 0);
  if (!layer) return null;
  const route = table.routes.find((r) => r.method === lookup && r.path === layer.path);
  if (!route) return null;
  return { route, params: layer.params(pathname, layer.captures(pathname)) as Record<string, string> };
}

/** The body as the core's body parser leaves it, `unknown` when this oracle cannot say, or the reason it refuses it. */
function parsedBody(req: HostileRequest): { ok: true; raw: unknown } | { ok: true; unknown: true } | { ok: false; reason: string } {
  if (!PARSED_METHODS.has(req.method)) return { ok: true, raw: undefined };
  if (req.body.kind === 'oversize') return { ok: false, reason: 'body over the limit' };
  const { bytes, contentType } = bodyBytes(req.body);
  if (!bytes || !contentType) return { ok: true, raw: {} };
  if (FORM_TYPE.test(contentType)) return { ok: true, unknown: true };
  if (!JSON_TYPES.test(contentType)) return { ok: true, raw: {} };
  if (/charset=(?!utf-?8\b)/i.test(contentType)) return { ok: true, unknown: true };
  // raw-body decodes with iconv-lite, which drops a leading byte order mark.
  const text = bytes.toString('utf8').replace(/^\ufeff/, '');
  if (text.length === 0) return { ok: true, raw: {} };
  if (!STRICT_JSON.test(text)) return { ok: false, reason: 'body is not a JSON object or array' };
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  return bodyDepthError(raw) ? { ok: false, reason: 'body nested too deep' } : { ok: true, raw };
}

function isEmptyBody(body: unknown): boolean {
  return body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0);
}

function throws(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export function judge(table: RouteTable, req: HostileRequest): Verdict {
  const body = parsedBody(req);
  const found = findRoute(table, req.method, req.pathname);
  if (!body.ok) return { kind: 'rejected', route: found?.route ?? null, reason: body.reason };
  if (!found) return { kind: 'rejected', route: null, reason: 'no route for this method and path' };
  const { route, params } = found;
  const c = req.credential;
  if (route.roles !== 'public') {
    if (c.kind !== 'admin' && c.kind !== 'reader') return { kind: 'rejected', route, reason: 'no valid credentials' };
    if (c.kind === 'reader' && route.roles !== 'authenticated' && !table.readerMethods.has(`${route.provenance}.${route.name}`)) return { kind: 'rejected', route, reason: 'the reader may not call it' };
  }
  const paramsProblem = route.input.params ? throws(() => route.input.params!.validate({ ...params })) : null;
  if (paramsProblem) return { kind: 'rejected', route, reason: `params: ${paramsProblem}` };
  // Credentials are authentication's alone: every route reads its query without them (docs/auth.md).
  const query = withoutCredentials(req.query);
  const queryProblem = route.input.query
    ? throws(() => route.input.query!.validate(query))
    : throws(() => {
        if (splitQueryString(query).length > 0) throw new Error('undeclared query parameter');
      });
  if (queryProblem) return { kind: 'rejected', route, reason: `query: ${queryProblem}` };
  if ('raw' in body) {
    const bodyProblem = route.input.body ? throws(() => route.input.body!.validate(body.raw ?? {})) : isEmptyBody(body.raw) ? null : 'takes no body';
    if (bodyProblem) return { kind: 'rejected', route, reason: `body: ${bodyProblem}` };
  }
  return { kind: req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'write', route };
}
