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

export interface DoorParts {
  readonly logger: Logger;
  readonly trusted: TrustedProxies;
  /** The legacy operations (legacy/dispatch.ts). */
  readonly legacy: Stage;
  readonly passThrough: PassThrough;
  /** The gateway's Koa app, for its own routes. */
  readonly koa: KoaHandler;
}

/**
 * The last stage: everything no stage before answered goes upstream as it came.
 * `/nso_manager/*` too: it is the real platform's own prefix of the relay, and
 * our core serves it beside `/orchestrator_manager/*` (docs/real-platform.md).
 */
function passThroughStage(proxy: PassThrough): Stage {
  return (x) => proxy.handle(x);
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
