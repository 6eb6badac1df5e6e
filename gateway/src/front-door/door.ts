/**
 * The gateway's front door, assembled. Every request takes the same stages:
 *
 *   request id → access log → security headers → legacy operation?
 *     → one of the gateway's own routes (Koa)? → the pass-through to the core
 *
 * The first three run for every answer; each of the last three answers the
 * requests that are its own and passes the others on (docs/gateway.md,
 * "The front door").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger, TrustedProxies } from '../../../kernel/index.ts';
import { isOwnPath } from '../own-routes.ts';
import type { PassThrough } from '../proxy.ts';
import { frontDoor } from './chain.ts';
import type { Stage } from './chain.ts';
import { koaStage } from './koa-stage.ts';
import type { KoaHandler } from './koa-stage.ts';
import { accessLogStage, requestIdStage, securityHeadersStage } from './stages.ts';

/** Paths the gateway answers itself, in Koa: its liveness and the audit report. */
const OWN = '/gateway/';

/** The real platform's path of the orchestrator relay, served as an alias (docs/decisions.md D19). */
const ALIASES: ReadonlyArray<readonly [from: string, to: string]> = [['/nso_manager/', '/orchestrator_manager/']];

export interface DoorParts {
  readonly logger: Logger;
  readonly trusted: TrustedProxies;
  /** The legacy operations (legacy/dispatch.ts). */
  readonly legacy: Stage;
  readonly passThrough: PassThrough;
  /** The gateway's Koa app, for its own routes. */
  readonly koa: KoaHandler;
}

/** The last stage: everything no stage before answered goes to the core, under its alias's real path. */
function passThroughStage(proxy: PassThrough): Stage {
  return (x) => {
    for (const [from, to] of ALIASES) {
      if (x.pathname.startsWith(from)) x.req.url = `${to}${(x.req.url ?? '/').slice(from.length)}`;
    }
    proxy.handle(x);
  };
}

export function gatewayDoor(parts: DoorParts): (req: IncomingMessage, res: ServerResponse) => void {
  return frontDoor(parts.logger, parts.trusted, [
    requestIdStage,
    accessLogStage(parts.logger.isLevelEnabled('http')),
    securityHeadersStage,
    parts.legacy,
    koaStage((pathname) => pathname.startsWith(OWN) || isOwnPath(pathname), parts.koa),
    passThroughStage(parts.passThrough),
  ]);
}
