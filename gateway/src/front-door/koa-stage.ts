/**
 * The gateway's own routes (its liveness, documents, metrics and the audit
 * report) are Koa middleware. They enter Koa behind the front door, which has
 * already given the request its id, its access-log line and the headers every
 * answer carries; Koa only learns the id and the logger from it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { Logger, RequestState, TrustedProxies } from '../../../kernel/index.ts';
import { Exchange } from './chain.ts';
import type { Stage } from './chain.ts';

const exchanges = new WeakMap<IncomingMessage, Exchange>();

/** Koa's own handler for a request. */
export type KoaHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The stage that hands the requests `mine` accepts to Koa, and passes the others on. */
export function koaStage(mine: (pathname: string) => boolean, handle: KoaHandler): Stage {
  return (x, next) => {
    if (!mine(x.pathname)) {
      next(x);
      return;
    }
    exchanges.set(x.req, x);
    void handle(x.req, x.res);
  };
}

/** The exchange a request entered Koa with; a new one for a request that did not come through the door. */
export function exchangeOf(req: IncomingMessage, res: ServerResponse, logger: Logger, trusted: TrustedProxies): Exchange {
  return exchanges.get(req) ?? new Exchange(req, res, logger, trusted);
}

/** Koa's first middleware: the request's id and logger, as `requestContext` gives them to the core's routes. */
export function fromFrontDoor(fallback: Logger): Middleware {
  return async function fromFrontDoorMiddleware(ctx, next) {
    const x = exchanges.get(ctx.req);
    const state = ctx.state as RequestState;
    if (x) {
      state.requestId = x.requestId;
      Object.defineProperty(state, 'logger', { get: () => x.log(), configurable: true, enumerable: true });
    } else {
      // Reached without the door (a test calling Koa's handler itself): still an id, never a crash.
      state.requestId = String(ctx.get('x-request-id') || '');
      state.logger = fallback;
    }
    await next();
  };
}
