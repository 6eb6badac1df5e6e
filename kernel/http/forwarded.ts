/**
 * Who the client is, when proxies stand between it and us. X-Forwarded-For,
 * -Proto and -Host are believed only from peers named in `http.trustedProxies`:
 * anyone can send those headers, so from anyone else they mean nothing. The
 * client is the right-most address of the chain that is not a trusted proxy:
 * each trusted proxy appends the peer it saw, so everything left of the first
 * untrusted address was written by someone we do not trust (docs/auth.md,
 * "Forwarded addresses").
 */
import { BlockList, isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { Middleware } from 'koa';

/** Whether a peer's forwarding headers are believed. */
export type TrustedProxies = (address: string) => boolean;

/** What a request says of its client once the trusted proxies' headers are read. */
export interface Forwarded {
  /** The client's address. */
  readonly client: string;
  readonly proto: 'http' | 'https';
  /** The host the client asked for (its Host header, or the trusted proxy's X-Forwarded-Host). */
  readonly host: string;
  /** The peer was a trusted proxy whose headers were read. */
  readonly viaProxy: boolean;
}

/** `::ffff:127.0.0.1`, as a dual-stack listener reports an IPv4 peer, is `127.0.0.1`. */
export function plainAddress(address: string): string {
  const trimmed = address.trim();
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(trimmed) ? trimmed.slice(7) : trimmed;
}

/** How many addresses' answers `trustedProxies` remembers. */
const KNOWN_ADDRESSES = 1024;

/** The test for a list of addresses and CIDR blocks (`10.0.0.1`, `10.1.0.0/16`, `::1`). */
export function trustedProxies(list: readonly string[]): TrustedProxies {
  if (list.length === 0) return () => false;
  const blocks = new BlockList();
  for (const item of list) {
    const [address = '', prefix] = item.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) blocks.addAddress(address, family);
    else blocks.addSubnet(address, Number(prefix), family);
  }
  // The list is fixed once read, so each address is checked once: a check builds a SocketAddress, a few µs on every
  // request from a proxy. Addresses in X-Forwarded-For are the caller's to choose, so the memory is bounded.
  const known = new Map<string, boolean>();
  return (address) => {
    let trusted = known.get(address);
    if (trusted === undefined) {
      const plain = plainAddress(address);
      const family = isIP(plain);
      trusted = family !== 0 && blocks.check(plain, family === 6 ? 'ipv6' : 'ipv4');
      if (known.size >= KNOWN_ADDRESSES) known.clear();
      known.set(address, trusted);
    }
    return trusted;
  };
}

/** A header's comma-separated values, however many times it was sent. */
function values(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  return (Array.isArray(header) ? header.join(',') : header).split(',').map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * The client, protocol and host of a request that reached us from `peer`.
 * From an untrusted peer: the peer, the connection's own protocol and Host.
 * From a trusted one: the right-most untrusted address of X-Forwarded-For
 * (the left-most when every one is trusted), and the right-most X-Forwarded-Proto
 * and -Host, which the nearest trusted proxy wrote.
 */
export function forwardedOf(peer: string, encrypted: boolean, headers: IncomingHttpHeaders, trusted: TrustedProxies): Forwarded {
  const own: Forwarded = { client: plainAddress(peer), proto: encrypted ? 'https' : 'http', host: typeof headers.host === 'string' ? headers.host : '', viaProxy: false };
  if (!trusted(peer)) return own;
  const chain = values(headers['x-forwarded-for']).map(plainAddress);
  let client = own.client;
  for (let i = chain.length - 1; i >= 0; i -= 1) {
    client = chain[i]!;
    if (!trusted(client)) break;
  }
  const proto = values(headers['x-forwarded-proto']).at(-1)?.toLowerCase();
  const host = values(headers['x-forwarded-host']).at(-1);
  return { client, proto: proto === 'https' ? 'https' : proto === 'http' ? 'http' : own.proto, host: host ?? own.host, viaProxy: true };
}

/**
 * Koa: sets `ctx.ip` to the client, and `ctx.protocol` (so `ctx.secure` and
 * the cookies' Secure flag) and `ctx.host` to what a trusted proxy reported.
 * First in the chain, before anything reads them. `app.proxy` stays false:
 * Koa's own reading takes the left-most address, the one a client can choose.
 */
export function forwardedRequest(trusted: TrustedProxies): Middleware {
  return function forwardedRequestMiddleware(ctx, next) {
    const forwarded = forwardedOf(ctx.req.socket.remoteAddress ?? '', Boolean((ctx.req.socket as { encrypted?: boolean }).encrypted), ctx.req.headers, trusted);
    ctx.request.ip = forwarded.client;
    if (forwarded.viaProxy) {
      // Own properties shadow Koa's getters for this request only, when they differ from what the getters say: a
      // property defined on every request from a trusted address (loopback, where the gateway and local tools call
      // from) was measurable.
      if (forwarded.proto !== ctx.request.protocol) Object.defineProperty(ctx.request, 'protocol', { value: forwarded.proto, configurable: true });
      // Koa's getter takes the first of a list and drops user information: the Host header as sent when it has neither.
      // For a plain host behind a proxy (every call through the gateway) the header itself becomes the forwarded
      // host, which that getter then answers as it is: a property defined on each such request cost the core about a
      // tenth more CPU per call through the gateway than through a bare proxy (BENCHMARKS.md, the front door again).
      const sent = ctx.req.headers.host;
      const plain = ctx.req.httpVersionMajor < 2 && !/[,@]/.test(forwarded.host);
      if (forwarded.host !== sent && plain) ctx.req.headers.host = forwarded.host;
      else if (forwarded.host !== sent || /[,@]/.test(sent) || ctx.req.httpVersionMajor >= 2) Object.defineProperty(ctx.request, 'host', { value: forwarded.host, configurable: true });
    }
    return next();
  };
}
