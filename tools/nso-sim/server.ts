/**
 * nso-sim: a small stand-in for a Cisco NSO orchestrator, speaking RESTCONF
 * (RFC 8040, under /restconf) and NSO's legacy REST API (under /api) over one
 * in-memory tree, for tests and for trying the platform without an NSO.
 * Test tooling only: the platform's relay knows nothing about it.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SimError, tagForStatus } from './errors.ts';
import { negotiate, RESTCONF_TYPES, send } from './http.ts';
import type { Reply } from './http.ts';
import { handleLegacy, legacyError, LEGACY_TYPES } from './legacy.ts';
import { handleRestconf, restconfError } from './restconf.ts';
import { seedTree, emptyTree } from './seed.ts';
import type { Call, SimState } from './state.ts';
import { Datastore } from './tree.ts';
import { readBodyUpTo } from '../read-body.ts';

export interface NsoSimOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  username?: string;
  password?: string;
  /** Start with devices ce0, ce1 and pe0 (default true); false starts with empty devices and services. */
  seed?: boolean;
}

export interface Fault {
  /** Wait this long before answering each request. */
  delayMs?: number;
  /** Answer every request with this status and an `ietf-restconf:errors` body; null clears it. */
  failStatus?: number | null;
  /** Close every connection (open ones at once, new ones as they arrive) without answering. */
  refuse?: boolean;
}

export interface RecordedRequest {
  readonly method: string;
  /** The request target as sent, query included. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface NsoSim {
  /** `http://host:port`, without /restconf. */
  readonly url: string;
  /** Every request received, in order (refused connections send none). Cleared by reset(). */
  readonly requests: readonly RecordedRequest[];
  /** Changes only the fields given; the others keep their current value. */
  setFault(fault: Fault): void;
  /** Clears faults and the request log and restores the starting data. */
  reset(): void;
  close(): Promise<void>;
}

const BODY_LIMIT = 1024 * 1024;

export async function startNsoSim(options: NsoSimOptions = {}): Promise<NsoSim> {
  const host = options.host ?? '127.0.0.1';
  const credentials = `${options.username ?? 'admin'}:${options.password ?? 'admin'}`;
  const initial = (): SimState => ({ store: new Datastore(options.seed === false ? emptyTree() : seedTree()), rollbackId: 10000 });
  let state = initial();
  let fault: Required<Fault> = { delayMs: 0, failStatus: null, refuse: false };
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const closing = new AbortController();

  // Refusing needs no check here: setFault destroys every open socket and new ones die on connect.
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readBodyUpTo(req, BODY_LIMIT))?.toString('utf8') ?? null;
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: { ...req.headers }, body: body ?? '' });
    if (fault.delayMs > 0) await sleep(fault.delayMs, undefined, { signal: closing.signal });
    send(res, answer(req, body, state));
  }

  function answer(req: IncomingMessage, body: string | null, current: SimState): Reply {
    const url = new URL(req.url ?? '/', 'http://nso-sim.invalid');
    const legacy = url.pathname === '/api' || url.pathname.startsWith('/api/');
    const failWith = (error: SimError): Reply =>
      legacy ? legacyError(error, negotiate(req.headers.accept, LEGACY_TYPES) ?? 'xml', url.pathname) : restconfError(error, negotiate(req.headers.accept, RESTCONF_TYPES) ?? 'xml');
    if (fault.failStatus !== null) {
      const error = new SimError(fault.failStatus, tagForStatus(fault.failStatus), `nso-sim fault: every request fails with ${fault.failStatus}`);
      return restconfError(error, negotiate(req.headers.accept, RESTCONF_TYPES) ?? 'xml');
    }
    if (!authorized(req.headers.authorization, credentials)) {
      return failWith(new SimError(401, 'access-denied', 'access denied: Basic credentials are required', { 'www-authenticate': 'Basic realm="restconf"' }));
    }
    if (body === null) return failWith(new SimError(413, 'too-big', `the body is larger than ${BODY_LIMIT} bytes`));
    const call: Call = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      origin: `http://${req.headers.host ?? `${host}:${port}`}`,
      state: current,
    };
    try {
      if (url.pathname === '/.well-known/host-meta') return hostMeta(call.method);
      if (url.pathname === '/restconf' || url.pathname.startsWith('/restconf/')) return handleRestconf(call);
      if (legacy) return handleLegacy(call);
      return failWith(new SimError(404, 'invalid-value', `no resource at ${url.pathname}; RESTCONF is under /restconf, the legacy REST API under /api`));
    } catch (error) {
      if (error instanceof SimError) return failWith(error);
      // A bug in the simulator should show in the test that hit it, not hang the client.
      const message = error instanceof Error ? error.message : String(error);
      return failWith(new SimError(500, 'operation-failed', `nso-sim internal error: ${message}`));
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket: Socket) => {
    if (fault.refuse) return void socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | null = null;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    setFault(next: Fault): void {
      if (next.delayMs !== undefined && !(Number.isFinite(next.delayMs) && next.delayMs >= 0)) throw new RangeError('delayMs must be a finite number >= 0');
      if (next.failStatus !== undefined && next.failStatus !== null && !(Number.isInteger(next.failStatus) && next.failStatus >= 400 && next.failStatus <= 599)) {
        throw new RangeError('failStatus must be an integer from 400 to 599, or null');
      }
      fault = {
        delayMs: next.delayMs ?? fault.delayMs,
        failStatus: next.failStatus === undefined ? fault.failStatus : next.failStatus,
        refuse: next.refuse ?? fault.refuse,
      };
      if (fault.refuse) for (const socket of sockets) socket.destroy();
    },
    reset(): void {
      fault = { delayMs: 0, failStatus: null, refuse: false };
      requests.length = 0;
      state = initial();
    },
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}


function authorized(header: string | undefined, expected: string): boolean {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  return match?.[1] !== undefined && Buffer.from(match[1], 'base64').toString('utf8') === expected;
}

function hostMeta(method: string): Reply {
  if (method !== 'GET' && method !== 'HEAD') throw new SimError(405, 'operation-not-supported', 'host-meta is read-only', { allow: 'GET, HEAD' });
  const body = '<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n  <Link rel="restconf" href="/restconf"/>\n</XRD>\n';
  return { status: 200, headers: { 'content-type': 'application/xrd+xml' }, body };
}
