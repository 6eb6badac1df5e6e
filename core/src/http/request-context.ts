/**
 * Gives every request an id (the caller's X-Request-Id when well formed, else
 * a new one), a child logger carrying it, and one access-log line when done.
 * The query string is never logged: it may carry a token.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../logger.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestState {
  requestId: string;
  logger: Logger;
}

export function requestContext(logger: Logger): Middleware {
  return async function requestContextMiddleware(ctx, next) {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const state = ctx.state as RequestState;
    state.requestId = requestId;
    state.logger = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      state.logger.http('request', { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 100) / 100 });
    }
  };
}
