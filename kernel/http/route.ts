/**
 * Routes are records. Each declares the method name and provenance it is
 * known by (what roles grant), the roles that may call it, the surface whose
 * response shape it answers in, and a validator for every input it reads. A
 * route that reads an input it did not declare cannot: undeclared query
 * parameters and bodies are refused before the handler runs.
 */
import { fileURLToPath } from 'node:url';
import type { Schema } from 'joi';
import type { Context } from 'koa';
import type { Caller } from './caller.ts';
import type { Logger } from '../logger.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The response shape family a route answers in (errors included). */
export type ResponseShape = 'operations-manager' | 'plain' | 'oauth';

/** What a validator checks, for the interface's description (kernel/openapi/). */
export type InputSchema = { readonly joi: Schema } | { readonly jsonSchema: Readonly<Record<string, unknown>> };

/** What a success answer holds, described as inputs are (Joi converted by joi-to-json, or JSON Schema as it is). */
export type AnswerSchema = InputSchema;

/** Turns raw input into a typed value or throws a ValidationError naming what was wrong. */
export interface Validator<Raw, Out> {
  validate(raw: Raw): Out;
  /** The schema it checks, when it has one; validators without one are described loosely. */
  readonly schema?: InputSchema;
}

export interface RouteInput<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
}

export interface RouteContext {
  readonly requestId: string;
  /** Who is calling; null only on public routes. */
  readonly caller: Caller | null;
  readonly logger: Logger;
  readonly koa: Context;
}

export type RouteResult =
  | { readonly status?: number; readonly body: unknown }
  /** A body already serialised as JSON, text or UTF-8 bytes, sent as is. */
  | { readonly status?: number; readonly json: string | Buffer };

export interface RouteDef<P = Record<string, never>, Q = Record<string, never>, B = undefined> {
  readonly method: HttpMethod;
  /** Path under the app root, in @koa/router syntax (`/jobs/:id`). */
  readonly path: string;
  /** Method name as the authorization module lists it, e.g. `getJobs`. */
  readonly name: string;
  /** Application the method belongs to, e.g. `OperationsManager`. */
  readonly provenance: string;
  /**
   * Role names (of the provenance) whose built-in roles allow it; `admin` of
   * the provenance always does. `authenticated`: any caller with valid
   * credentials (login-session routes). `public`: no credentials at all
   * (liveness, login).
   */
  readonly roles: readonly string[] | 'authenticated' | 'public';
  readonly shape: ResponseShape;
  readonly description: string;
  /**
   * The schema of the success answer's body (docs/openapi.md): on the operations-manager surface the schema
   * of its `data`, which the envelope wraps, with `answerMetadata` as its `metadata` (an empty object when
   * not given). Null for an answer that is not JSON (text, HTML, no body).
   */
  readonly answer: AnswerSchema | null;
  readonly answerMetadata?: AnswerSchema;
  /**
   * Takes form bodies (`application/x-www-form-urlencoded`, `multipart/form-data`, `text/plain`) from a
   * caller authenticated by the token cookie, from its own origin (cross-site.ts). Absent: such a caller
   * must send JSON. Callers with Bearer, Basic or `?token=` are not concerned.
   */
  readonly acceptsForms?: boolean;
  readonly input: {
    readonly params?: Validator<Record<string, string>, P>;
    /** Receives the raw query string, so search parsing sees `%2C` as written. */
    readonly query?: Validator<string, Q>;
    readonly body?: Validator<unknown, B>;
  };
  handle(input: RouteInput<P, Q, B>, ctx: RouteContext): Promise<RouteResult>;
  /** The source file that declared it, relative to the repository (`core/src/workflows/routes.ts`); set by `routeHelper` (docs/route-index.md). */
  readonly declaredIn?: string;
}

/**
 * Erases the input types so routes of different shapes can sit in one table.
 * `any` is deliberate: each route's handler is checked against its own
 * validators where it is defined; the table only needs the common fields.
 */
export type AnyRoute = RouteDef<any, any, any>;

/** What a module fixes once for all its routes: whose methods they are and the shape they answer in. */
export interface RouteOwner {
  readonly provenance: string;
  readonly shape: ResponseShape;
}

/** A route record without the fields its module's helper fills in. */
export type OwnedRoute<P, Q, B> = Omit<RouteDef<P, Q, B>, keyof RouteOwner>;

/**
 * Makes a module's route helper: `const route = routeHelper({ provenance: 'Jst', surface: 'plain' })`,
 * then `route({ method, path, name, roles, ... })`. The input types are inferred from the route's own
 * validators, so a handler reads what they produce; an input without a validator is the default (empty, or
 * no body), never what the table it goes into would accept. The owner's fields are written once per
 * module, so no route can drift to another provenance by a copy-paste.
 */
export function routeHelper(owner: RouteOwner) {
  return function route<P = Record<string, never>, Q = Record<string, never>, B = undefined>(def: OwnedRoute<P, Q, B>): RouteDef<NoInfer<P>, NoInfer<Q>, NoInfer<B>> {
    const declaredIn = callerFile(route);
    return { ...def, provenance: owner.provenance, shape: owner.shape, ...(declaredIn ? { declaredIn } : {}) };
  };
}

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The file of the code that called `fn`, relative to the repository, read from a stack trace once per
 * declaration: some paths are computed (`/operations-manager/jobs/${action}`), so grepping for a path cannot
 * find its route, but the route index can (scripts/route-index.ts). Undefined outside the repository.
 */
function callerFile(fn: (...args: never[]) => unknown): string | undefined {
  const holder: { stack?: unknown } = {};
  // The caller's frame alone, unformatted: about 15 µs a declaration, where formatting the default ten frames
  // through tsx's source maps cost about 90. Both globals are put back before anything else can run.
  const limit = Error.stackTraceLimit;
  const prepare = Error.prepareStackTrace;
  let file: string | null | undefined;
  Error.stackTraceLimit = 1;
  Error.prepareStackTrace = (_error, sites) => sites[0]?.getFileName();
  try {
    Error.captureStackTrace(holder, fn);
    file = holder.stack as string | null | undefined;
  } finally {
    Error.stackTraceLimit = limit;
    Error.prepareStackTrace = prepare;
  }
  // A file URL for a module, a plain path for CommonJS.
  const path = !file ? '' : file.startsWith('file:') ? fileURLToPath(file) : file;
  return path.startsWith(REPOSITORY) ? path.slice(REPOSITORY.length) : undefined;
}
