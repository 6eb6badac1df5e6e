/**
 * Starts an HTTP server for a Koa app. The header limit is raised above the
 * search's own query-length limit, so an oversized query gets our clear 400
 * instead of Node's bodiless 431.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ServerOptions } from 'node:http';
import type Koa from 'koa';
import { requestIdOf } from './request-context.ts';
import type { RequestNotes } from './stall-detector.ts';
import { takeTurns } from './turns.ts';

export const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Connections the kernel holds for us before we accept them. Node's default
 * (511) overflowed when a thousand clients, and the gateway's pools of up to
 * 2 × 256 sockets to the core, connected at once while the event loop was
 * busy: the kernel dropped about 1,500 handshakes (ListenOverflows in
 * /proc/net/netstat) and those clients retried only after 1, 3, 7, 15 s
 * (RELIABILITY.md, load). The kernel caps it at net.core.somaxconn.
 */
export const LISTEN_BACKLOG = 4096;

/** Requests started per turn of the event loop, so a busy server keeps accepting connections (turns.ts). */
export const REQUESTS_PER_TURN = 8;

/**
 * Every request gets its id here, once, in the header every handler reads
 * (Koa's, the gateway's node:http ones), and is noted for the stall detector
 * under that id.
 */
function noted(handle: (req: IncomingMessage, res: ServerResponse) => void, notes: RequestNotes | null): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const requestId = requestIdOf(req.headers['x-request-id']);
    req.headers['x-request-id'] = requestId;
    notes?.note(req, res, requestId);
    handle(req, res);
  };
}

export interface ListenOptions {
  /** The stall detector that notes this server's requests; none in tests that start none. */
  readonly requests?: RequestNotes;
}

/** An app that writes some of its headers in a response class of its own (the gateway's front door) names it here. */
export type ListenedApp = Koa & { readonly serverResponse?: ServerOptions['ServerResponse'] };

export function listen(app: ListenedApp, port: number, host: string, options: ListenOptions = {}): Promise<Server> {
  const serverOptions: ServerOptions = app.serverResponse ? { maxHeaderSize: MAX_HEADER_BYTES, ServerResponse: app.serverResponse } : { maxHeaderSize: MAX_HEADER_BYTES };
  const server = createServer(serverOptions, takeTurns(noted(app.callback(), options.requests ?? null), REQUESTS_PER_TURN));
  // Clients on keep-alive connections (the gateway's pool) must see the close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // A client that sends its request too slowly is cut off rather than held forever.
  server.requestTimeout = 120_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
