/**
 * Sees every answer of a Koa app once it is final (outside the error
 * middleware): times it for the metrics, and hands it to a tap when one is
 * given (the contract test records answers this way, test/contract/).
 */
import type { Context, Middleware } from 'koa';
import type { ObserveRequest } from '../metrics/http.ts';
import { secondsSince } from '../metrics/http.ts';

/** One answer: the route template it was served by, its status, content type and body (parsed when JSON). */
export interface TappedAnswer {
  readonly service: 'core' | 'gateway';
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly contentType: string;
  /** The JSON value, or undefined when the answer is not JSON or has no body. */
  readonly body?: unknown;
}

export type AnswerTap = (answer: TappedAnswer) => void;

function jsonBody(ctx: Context): unknown {
  const body: unknown = ctx.body;
  if (body === null || body === undefined || !/json/.test(ctx.type)) return undefined;
  if (typeof body === 'string') return JSON.parse(body);
  if (Buffer.isBuffer(body)) return JSON.parse(body.toString('utf8'));
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return undefined;
  return JSON.parse(JSON.stringify(body));
}

export function observeAnswers(service: 'core' | 'gateway', routeOf: (ctx: Context) => string, observe: ObserveRequest | null, tap: AnswerTap | null): Middleware {
  return async function observeAnswersMiddleware(ctx, next) {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = routeOf(ctx);
      observe?.(ctx.method, route, ctx.status, secondsSince(started));
      if (tap) {
        let body: unknown;
        try {
          body = jsonBody(ctx);
        } catch {
          body = '<answer labelled JSON that does not parse>';
        }
        tap({ service, method: ctx.method, route, status: ctx.status, contentType: ctx.type, body });
      }
    }
  };
}
