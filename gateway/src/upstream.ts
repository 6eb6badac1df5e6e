/**
 * The gateway's one connection to its upstream, `core.url`: this project's
 * core over http, or a real Itential Platform, which listens on HTTPS (3443 by
 * default) and takes Basic credentials only over TLS (docs/real-platform.md),
 * possibly behind a reverse proxy under a base path. Built once at start: one
 * keep-alive agent, http or https, that the pass-through, the rewritten calls
 * and the `whoami` checks share, so no call builds TLS options from data.
 *
 * Trust: the runtime's default store (Node's bundled Mozilla list), plus the
 * PEM bundle of `core.caFile` for a private CA. `core.tlsVerify: false` turns
 * certificate checks off and is warned about at every start.
 */
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { ConfigError } from '../../config/load.ts';
import type { Logger } from '../../kernel/index.ts';
import { idleLimited } from './upstream-agent.ts';
import { basePathOf, upstreamPath } from './upstream-path.ts';

export interface UpstreamSettings {
  /** `core.url`: `http(s)://host:port[/base-path]`. */
  readonly url: string;
  /** `core.caFile`: a PEM bundle of CAs trusted beside the default ones, or null. */
  readonly caFile: string | null;
  /** `core.tlsVerify`: false accepts any certificate. */
  readonly tlsVerify: boolean;
  /** Each socket's idle limit, and the time a call may take. */
  readonly timeoutMs: number;
}

export interface Upstream {
  /** The upstream's origin (the URL without its base path). */
  readonly target: URL;
  readonly secure: boolean;
  /** The target's host as sockets take it (an IPv6 address without its brackets) and its port, read once rather than per call. */
  readonly hostname: string;
  readonly port: number;
  /** `''`, or the base path without a trailing slash. */
  readonly basePath: string;
  readonly agent: HttpAgent;
  readonly defaultPort: 80 | 443;
  /** node:http's or node:https's `request`, matching the agent. */
  readonly request: (options: RequestOptions, answer: (res: IncomingMessage) => void) => ClientRequest;
  /** `pathAndQuery` as the upstream is asked it: under the base path; a path that could leave it is a 400 (upstream-path.ts). */
  path(pathAndQuery: string): string;
  close(): void;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle; a start-up error naming the file when it cannot be read or holds none that parse. */
export function readCaBundle(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`config: core.caFile (CORE_CA_FILE) ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`]);
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new ConfigError([`config: core.caFile (CORE_CA_FILE) ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`]);
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block);
    } catch {
      throw new ConfigError([`config: core.caFile (CORE_CA_FILE) ${file}: certificate ${i + 1} of ${blocks.length} is not a valid X.509 certificate`]);
    }
  });
  return blocks;
}

export function createUpstream(settings: UpstreamSettings, logger: Logger | null = null): Upstream {
  const url = new URL(settings.url);
  if (url.username !== '' || url.password !== '') throw new ConfigError(['config: core.url (CORE_URL) must not hold credentials: each caller\'s own go upstream']);
  if (url.search !== '' || url.hash !== '') throw new ConfigError(['config: core.url (CORE_URL) must not have a query or a fragment; a base path is kept']);
  let basePath: string;
  try {
    basePath = basePathOf(url);
  } catch (err) {
    throw new ConfigError([`config: core.url (CORE_URL): ${(err as Error).message}`]);
  }
  const secure = url.protocol === 'https:';
  const target = new URL(url.origin);
  // The idle limit is each socket's own, set once (upstream-agent.ts), not the agent's `timeout`, which resets it on every call.
  const pool = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: 256 };
  // A bad bundle stops the start even where it is not used yet: it would fail the day core.url becomes https.
  const extra = settings.caFile === null ? null : readCaBundle(settings.caFile);
  let agent: HttpAgent;
  if (secure) {
    // `ca` replaces the default store, so the default roots are given with the bundle.
    agent = idleLimited(new HttpsAgent({ ...pool, rejectUnauthorized: settings.tlsVerify, ...(extra ? { ca: [...rootCertificates, ...extra] } : {}) }), settings.timeoutMs, pool.keepAliveMsecs);
  } else {
    agent = idleLimited(new HttpAgent(pool), settings.timeoutMs, pool.keepAliveMsecs);
    if (extra) logger?.warn('core.caFile (CORE_CA_FILE) is set but core.url is http: the CAs are not used', { upstream: target.origin });
  }
  if (!settings.tlsVerify) {
    logger?.warn(
      secure
        ? `core.tlsVerify is false (CORE_TLS_VERIFY): the certificate of ${target.origin} is not checked, so anyone between the gateway and it can read and change every call, callers' credentials included`
        : 'core.tlsVerify is false (CORE_TLS_VERIFY) but core.url is http: nothing is verified or encrypted',
      { upstream: target.origin },
    );
  }
  const defaultPort = secure ? 443 : 80;
  return {
    target,
    secure,
    hostname: target.hostname.replace(/^\[|\]$/g, ''),
    port: target.port === '' ? defaultPort : Number(target.port),
    basePath,
    agent,
    defaultPort,
    request: secure ? httpsRequest : httpRequest,
    path: (pathAndQuery) => upstreamPath(basePath, pathAndQuery),
    close: () => agent.destroy(),
  };
}
