/**
 * Mounts a table of route records on a router: validates each declared input,
 * refuses undeclared ones, and calls the handler with typed input.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { AuthState } from '../auth/authenticate.ts';
import { withoutCredentials } from '../auth/credentials.ts';
import { can } from '../auth/caller.ts';
import { indexRouteMatch } from './route-match.ts';
import type { Caller } from '../auth/caller.ts';
import { ForbiddenError, QueryStringError, splitQueryString, UnauthenticatedError, ValidationError } from '../../../kernel/index.ts';
import type { AnyRoute, Logger, RawParam, RequestState, ResponseShape, RouteContext, ShapeState } from '../../../kernel/index.ts';

function checkNoQuery(queryString: string): Record<string, never> {
  let params: RawParam[];
  try {
    params = splitQueryString(queryString);
  } catch (err) {
    // A name with malformed percent-encoding (`?%ZZ=1`) is the caller's mistake like any other.
    if (!(err instanceof QueryStringError)) throw err;
    throw new ValidationError(`Invalid query: ${err.parameter} ${err.message}`, [{ parameter: err.parameter, message: err.message }]);
  }
  if (params.length > 0) {
    const details = params.map((p) => ({ parameter: p.name, message: 'is not a parameter of this operation' }));
    throw new ValidationError(`Invalid query: ${details.map((d) => d.parameter).join(', ')} not accepted`, details);
  }
  return {};
}

function isEmptyBody(body: unknown): boolean {
  return body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0);
}

/** What a handler is given of its request; the logger is the request's, made only if the handler logs (request-context.ts). */
class Call implements RouteContext {
  readonly requestId: string;

  constructor(readonly koa: Context, readonly caller: Caller | null) {
    this.requestId = (koa.state as RequestState).requestId;
  }

  get logger(): Logger {
    return (this.koa.state as RequestState).logger;
  }
}

/** 401 without a valid credential, 403 when no role allows the method; checked before any input is read. */
function authorize(route: AnyRoute, auth: AuthState): Caller | null {
  if (route.roles === 'public') return auth.caller;
  if (!auth.caller) throw auth.authFailure ?? new UnauthenticatedError();
  if (route.roles !== 'authenticated' && !can(auth.caller, route.provenance, route.name)) {
    throw new ForbiddenError(`${auth.caller.username} has no role that allows ${route.provenance}.${route.name}`);
  }
  return auth.caller;
}

export function mountRoutes(routes: readonly AnyRoute[]): Router {
  const router = new Router();
  for (const route of routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](route.path, async (ctx: Context) => {
      (ctx.state as ShapeState).shape = route.shape;
      const caller = authorize(route, ctx.state as AuthState);
      const rawBody = (ctx.request as { body?: unknown }).body;
      const params = route.input.params ? route.input.params.validate({ ...ctx.params }) : {};
      // Credentials are authentication's alone (it has read them already): no validator ever sees them.
      const queryString = withoutCredentials(ctx.querystring);
      const query = route.input.query ? route.input.query.validate(queryString) : checkNoQuery(queryString);
      let body: unknown;
      if (route.input.body) body = route.input.body.validate(rawBody ?? {});
      else if (!isEmptyBody(rawBody)) {
        throw new ValidationError('This operation takes no request body', [{ parameter: 'body', message: 'must be empty' }]);
      }
      const result = await route.handle({ params, query, body }, new Call(ctx, caller));
      ctx.status = result.status ?? 200;
      if ('json' in result) {
        ctx.type = 'application/json';
        ctx.body = result.json;
      } else if (typeof result.body === 'string') {
        // CASE: a bare string answer (a login token, a legacy message) is still JSON.
        ctx.type = 'application/json';
        ctx.body = JSON.stringify(result.body);
      } else {
        ctx.body = result.body;
      }
    });
  }
  indexRouteMatch(router);
  return router;
}

/**
 * The surface of the route the router would run for a method and path: an
 * error raised before it runs (an unreadable body) answers in its shape too.
 */
export function routeShapes(routes: readonly AnyRoute[], router: Router): (method: string, path: string) => ResponseShape | undefined {
  const find = routeFinder(routes, router);
  return (method, path) => find(method, path)?.shape;
}

/** The route record the router would run for a method and path, for middleware that runs before it. */
export function routeFinder(routes: readonly AnyRoute[], router: Router): (method: string, path: string) => AnyRoute | undefined {
  const byPath = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
  return (method, path) => {
    const lookup = method === 'HEAD' ? 'GET' : method;
    const layer = router.match(path, method).pathAndMethod.find((l) => l.methods.length > 0);
    return layer ? byPath.get(`${lookup} ${layer.path}`) : undefined;
  };
}
