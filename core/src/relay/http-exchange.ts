/**
 * One HTTP exchange with an orchestrator on `node:http`/`node:https`: the
 * request written in one go, the whole answer read as text, and a deadline
 * on the exchange as a whole. The relay's client was chosen by measurement
 * (docs/relay.md, "What a relay call costs"): got cost the core about
 * 250 µs of CPU per call more than this, for features the relay uses few of.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface Exchange {
  readonly method: string;
  readonly url: URL;
  readonly headers: OutgoingHttpHeaders;
  readonly body: string | null;
  readonly timeoutMs: number;
  /** For https: whether to check the certificate, and the PEM roots that replace the default ones. */
  readonly tls: { readonly rejectUnauthorized: boolean; readonly ca: string | null };
}

export interface Answered {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** The exchange took longer than its deadline; not retried, since the orchestrator may still act on it. */
export class ExchangeTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'ExchangeTimeout';
  }
}

/** Kept-alive connections: a relay call then costs no TCP (or TLS) handshake. */
export interface Pools {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
}

export function keptAlivePools(): Pools {
  return { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
}

/**
 * Sends one request and reads its answer. Rejects with the socket's error (it carries a `code` such as
 * ECONNREFUSED) or with ExchangeTimeout. Redirects are answers like any other: nothing is followed.
 */
export function exchange(pools: Pools, x: Exchange): Promise<Answered> {
  return new Promise((resolve, reject) => {
    const headers: OutgoingHttpHeaders = x.body === null ? x.headers : { ...x.headers, 'content-length': Buffer.byteLength(x.body) };
    const host = x.url.hostname;
    // An IPv6 literal's brackets are URL syntax, not part of the address.
    const hostname = host.startsWith('[') ? host.slice(1, -1) : host;
    const path = x.url.search === '' ? x.url.pathname : `${x.url.pathname}${x.url.search}`;
    // The https agent keeps sockets apart by `ca` and `rejectUnauthorized`, so adapters with other TLS settings share none.
    const req =
      x.url.protocol === 'https:'
        ? httpsRequest({ method: x.method, hostname, port: x.url.port, path, headers, agent: pools.https, rejectUnauthorized: x.tls.rejectUnauthorized, ...(x.tls.ca === null ? {} : { ca: x.tls.ca }) })
        : httpRequest({ method: x.method, hostname, port: x.url.port, path, headers, agent: pools.http });
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => {
      const err = new ExchangeTimeout(x.timeoutMs);
      settle(() => reject(err));
      req.destroy(err);
    }, x.timeoutMs);
    req.on('error', (err) => settle(() => reject(err)));
    req.on('response', (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => settle(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, text })));
      res.on('error', (err) => settle(() => reject(err)));
    });
    // Headers and body leave in one write.
    req.end(x.body ?? undefined);
  });
}
