/**
 * Request options for node:http calls to the core, made here from values the
 * gateway chose. Every option node:http reads to decide where a call goes is
 * an own property, so none can be read from `Object.prototype`: the gateway
 * once sent `host` alone, and an inherited `hostname` planted by a legacy
 * projection sent every caller's credentials elsewhere (issue 26,
 * docs/security.md). Keeping data out of prototypes is the first wall; this is
 * the second, with `--disable-proto=delete` (scripts/supervise.ts).
 *
 * Which options those are was read from Node's source (lib/_http_client.js):
 * `ClientRequest` copies the options into a plain object (`Object.assign({},
 * options)`) and reads these from it. The agent and the socket read the rest
 * (`localAddress`, `family`, `lookup`, TLS options) from copies it makes
 * without a prototype (`{ __proto__: null, ...options }`), so an inherited
 * value never reaches them. Those are left out here on purpose: with more
 * than 19 properties, `Object.assign`'s copy turns into a slow dictionary,
 * and then so does every copy after it, and every read from them; that was a
 * few percent of a pass-through call's CPU.
 */
import type { OutgoingHttpHeaders, RequestOptions } from 'node:http';
import type { Upstream } from './upstream.ts';

/**
 * The options of one call upstream, where the upstream (upstream.ts) says
 * it is. `path` is already under the base path (`upstream.path`).
 * TLS options (`ca`, `rejectUnauthorized`) are the agent's, which Node puts
 * over the request's, so none can come from here either.
 */
export function coreRequestOptions(upstream: Pick<Upstream, 'secure' | 'hostname' | 'port' | 'defaultPort' | 'agent'>, method: string, path: string, headers: OutgoingHttpHeaders | readonly string[]): RequestOptions {
  return {
    protocol: upstream.secure ? 'https:' : 'http:',
    hostname: upstream.hostname,
    port: upstream.port,
    defaultPort: upstream.defaultPort,
    socketPath: undefined,
    auth: undefined,
    createConnection: undefined,
    setHost: true,
    // The idle limit is the socket's own (upstream-agent.ts); one set here would reset the socket's timer on every call.
    timeout: undefined,
    signal: undefined,
    insecureHTTPParser: undefined,
    maxHeaderSize: undefined,
    joinDuplicateHeaders: undefined,
    uniqueHeaders: undefined,
    method,
    path,
    headers,
    agent: upstream.agent,
  };
}
