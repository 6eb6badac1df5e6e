/**
 * The stages every request passes before it is answered: its id, its
 * access-log line and the headers every answer carries. On the gateway's own
 * server the answer's head gets the id and the security headers from
 * GatewayResponse (response.ts), so the handlers behind never write them; on
 * any other server (a test mounting the door by hand) they are set here.
 */
import { SECURITY_HEADERS } from '../../../kernel/index.ts';
import type { Stage } from './chain.ts';
import { GatewayResponse } from './response.ts';

const SECURITY = Object.entries(SECURITY_HEADERS);

/** The request's id on the answer, and on the request itself for the core to log under (listen.ts set it already when it could). */
export const requestIdStage: Stage = (x, next) => {
  x.req.headers['x-request-id'] = x.requestId;
  if (x.res instanceof GatewayResponse) x.res.requestId = x.requestId;
  else x.res.setHeader('X-Request-Id', x.requestId);
  next(x);
};

export const securityHeadersStage: Stage = (x, next) => {
  if (!(x.res instanceof GatewayResponse)) for (const [name, value] of SECURITY) x.res.setHeader(name, value);
  next(x);
};

/**
 * One line per answer, written when it has gone out, with the client as the
 * trusted proxies' headers name it. The query string is never logged: it may
 * carry a token. `enabled` is read once: at the default level nothing is
 * logged and no listener is added.
 */
export function accessLogStage(enabled: boolean): Stage {
  if (!enabled) return (x, next) => next(x);
  return (x, next) => {
    x.res.once('finish', () => x.log().http('request', { method: x.req.method, path: x.pathname, status: x.res.statusCode, ms: x.elapsedMs(), client: x.forwarded().client }));
    next(x);
  };
}
