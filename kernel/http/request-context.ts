/**
 * Gives every request an id (the caller's X-Request-Id when well formed, else
 * a new one), a child logger carrying it, and one access-log line when done.
 * The query string is never logged: it may carry a token. The child logger is
 * made only when something logs: at the default level most requests log
 * nothing, and making one per request cost measurable throughput. The core's
 * Koa app uses it; the gateway does the same in its front door's stages
 * (gateway/src/front-door/), in front of its Koa app as of every other answer.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../logger.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestState {
  requestId: string;
  logger: Logger;
}

/** The caller's X-Request-Id when well formed (one header, not a list), else a new one. */
export function requestIdOf(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * A request's state: its id, and its logger made on first use. A class, so the logger's getter is on the prototype
 * instead of defined on every request's object (which cost a closure and a slow property definition each).
 */
class RequestScope implements RequestState {
  private child: Logger | null = null;

  constructor(readonly requestId: string, private readonly base: Logger) {}

  get logger(): Logger {
    return (this.child ??= this.base.child({ requestId: this.requestId }));
  }
}

export function requestContext(logger: Logger): Middleware {
  const accessLog = logger.isLevelEnabled('http');
  return async function requestContextMiddleware(ctx, next) {
    const requestId = requestIdOf(ctx.get('x-request-id'));
    // First to write the state: everything after adds its own fields (the caller, the route's shape) to it.
    ctx.state = new RequestScope(requestId, logger);
    ctx.res.setHeader('X-Request-Id', requestId);
    if (!accessLog) return next();
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // `client` is the caller's address as forwarded.ts decided it: behind the gateway, the gateway's client.
      (ctx.state as RequestState).logger.http('request', { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 100) / 100, client: ctx.ip });
    }
  };
}
