/**
 * Request options for node:http calls to the core, made here from values the
 * gateway chose. Every option node:http reads to decide where a call goes is
 * an own property, so none can be read from `Object.prototype`: the gateway
 * once sent `host` alone, and an inherited `hostname` planted by a legacy
 * projection sent every caller's credentials elsewhere (issue 26,
 * docs/security.md). Keeping data out of prototypes is the first wall; this is
 * the second, with `--disable-proto=delete` (scripts/supervise.ts).
 */
import type { Agent, OutgoingHttpHeaders, RequestOptions } from 'node:http';

/** The options of one call to `target` (an http: URL); `hostname` without IPv6 brackets, as sockets take it. */
export function coreRequestOptions(target: URL, method: string, path: string, headers: OutgoingHttpHeaders, agent: Agent): RequestOptions {
  return {
    protocol: 'http:',
    hostname: target.hostname.replace(/^\[|\]$/g, ''),
    port: target.port === '' ? 80 : Number(target.port),
    defaultPort: 80,
    socketPath: undefined,
    localAddress: undefined,
    family: undefined,
    lookup: undefined,
    auth: undefined,
    createConnection: undefined,
    setHost: true,
    timeout: undefined,
    signal: undefined,
    insecureHTTPParser: undefined,
    maxHeaderSize: undefined,
    joinDuplicateHeaders: undefined,
    uniqueHeaders: undefined,
    method,
    path,
    headers,
    agent,
  };
}
