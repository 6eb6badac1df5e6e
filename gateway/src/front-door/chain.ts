/**
 * The gateway's one front door: every request, legacy, pass-through or one
 * of the gateway's own routes, goes through the same short chain of plain
 * `(exchange, next)` stages on node:http, in the manner of koa-compose but
 * without Koa's context, which cost the two busiest paths more than their
 * own work (BENCHMARKS.md). The stages in front (request id, access log,
 * security headers) run for every answer; the last ones each either answer
 * the request or pass it on (stages.ts, door.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
// Imported, not the global: Node's global `performance` is a getter, read again on every use.
import { performance } from 'node:perf_hooks';
import { forwardedOf, requestIdOf } from '../../../kernel/index.ts';
import type { Forwarded, Logger, TrustedProxies } from '../../../kernel/index.ts';

/** One request on its way through the door. */
export class Exchange {
  /** The path without its query, read once. */
  readonly pathname: string;
  /** The query string without its `?`; empty when there is none. */
  readonly search: string;
  readonly requestId: string;
  /** When the request entered the door, in `performance.now()` milliseconds: a number, where a bigint clock allocates. */
  readonly startedAt = performance.now();
  /** The last stage it entered (compose's guard against a stage passing it on twice). */
  reached = -1;
  private child: Logger | null = null;
  private seen: Forwarded | null = null;

  constructor(readonly req: IncomingMessage, readonly res: ServerResponse, private readonly logger: Logger, private readonly trusted: TrustedProxies) {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.pathname = q === -1 ? url : url.slice(0, q);
    this.search = q === -1 ? '' : url.slice(q + 1);
    this.requestId = requestIdOf(req.headers['x-request-id']);
  }

  /** A logger carrying the request id, made only when something logs (most requests log nothing). */
  log(): Logger {
    return (this.child ??= this.logger.child({ requestId: this.requestId }));
  }

  /** Who the client is, as the trusted proxies' headers say (kernel/http/forwarded.ts); read when first asked. */
  forwarded(): Forwarded {
    return (this.seen ??= forwardedOf(this.peer(), Boolean((this.req.socket as { encrypted?: boolean }).encrypted), this.req.headers, this.trusted));
  }

  /** The address the request came from: the client, or the proxy in front of us. */
  peer(): string {
    return this.req.socket.remoteAddress ?? '';
  }

  /** Milliseconds since the request entered the door, to two decimals. */
  elapsedMs(): number {
    return Math.round((performance.now() - this.startedAt) * 100) / 100;
  }

  /** Seconds since the request entered the door, as the metrics take them. */
  elapsedSeconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }
}

/** Passes the exchange on to the next stage. */
export type Next = (x: Exchange) => void;

/** A stage either answers the request or passes it on with `next(x)`, at most once. */
export type Stage = (x: Exchange, next: Next) => void;

/**
 * Composes the stages once. Each stage's `next` is made here, not per
 * request, so passing a request along allocates nothing. A stage that calls
 * `next` twice is a bug that would answer twice, so it throws, as
 * koa-compose does; past the last stage nothing happens.
 */
export function compose(stages: readonly Stage[]): Next {
  for (const s of stages) if (typeof s !== 'function') throw new TypeError('every stage must be a function');
  let run: Next = () => {};
  for (let i = stages.length - 1; i >= 0; i -= 1) {
    const stage = stages[i]!;
    const next = run;
    run = (x) => {
      if (i <= x.reached) throw new Error('next() called multiple times');
      x.reached = i;
      stage(x, next);
    };
  }
  return run;
}

/** The door as a node:http handler. */
export function frontDoor(logger: Logger, trusted: TrustedProxies, stages: readonly Stage[]): (req: IncomingMessage, res: ServerResponse) => void {
  const run = compose(stages);
  return (req, res) => run(new Exchange(req, res, logger, trusted));
}
