/**
 * platform-sim: a stand-in for a real Itential Platform 2023.2, for tests and
 * for trying the gateway in front of one. An HTTPS front of our core that
 * behaves as the platform does wherever the platform differs from the
 * interface document: it refuses the routes the platform does not serve,
 * takes only its bodies and credential forms, gives role ids that are not
 * ours, pages with its own cap, and ignores a list filter it does not know,
 * answering everything. docs/platform-sim.md names the source of each rule.
 */
import { createServer as createHttpServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { checkCredentials, Tokens } from './credentials.ts';
import type { CredentialForm } from './credentials.ts';
import { checkBody, Refusal, translatePath, translateQuery } from './dialect.ts';
import { mapRoleIds, RoleIds } from './role-ids.ts';
import type { Json } from './role-ids.ts';
import { routeTable } from './route-table.ts';
import { makeTls } from './tls.ts';
import type { TlsMaterial } from './tls.ts';
import { callCore, passableHeaders } from './upstream.ts';
import type { Upstream } from './upstream.ts';
import { readBodyUpTo } from '../read-body.ts';

export interface PlatformSimOptions {
  /** Our core, e.g. http://127.0.0.1:3001. */
  readonly coreUrl: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** The largest page a list gives (default 100); a larger `limit` is lowered to it without a word. */
  readonly pageCap?: number;
  /** Also listen on plain HTTP (the platform's 3000), where Basic is refused; off by default. */
  readonly plainPort?: number | null;
  /** Certificates to serve with; made with openssl when absent. */
  readonly tls?: TlsMaterial;
  /**
   * Serve under this prefix (`/iap`), as a platform behind a reverse proxy is:
   * the path is decoded and its dot segments resolved as such a proxy does,
   * and a request that then falls outside the prefix is refused (404).
   */
  readonly basePath?: string;
  /** Platform role ids chosen for some core role ids (core id to platform id); the others are random. */
  readonly roleIds?: ReadonlyMap<string, string>;
}

export interface RecordedRequest {
  readonly method: string;
  /** As the client sent it, query included. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly secure: boolean;
  credentials: CredentialForm | null;
  /** Why the stand-in refused it, or null when it reached the core. */
  refused: string | null;
  /** Query parameters the platform would not read, dropped before the core saw them. */
  ignored: readonly string[];
  /** Method and target the core was sent. */
  forwarded: string | null;
}

export interface PlatformSim {
  /** `https://host:port` */
  readonly url: string;
  /** `http://host:port` when plainPort was given, else null. */
  readonly plainUrl: string | null;
  /** The CA that signed the server certificate (PEM): what a client trusts. */
  readonly ca: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

const BODY_LIMIT = 10 * 1024 * 1024;


function parseJson(text: string): Json | undefined {
  try {
    // A __proto__ member would become a prototype of the objects rebuilt from it, not data.
    return JSON.parse(text, (key: string, value: unknown) => {
      if (key === '__proto__') throw new Error('__proto__');
      return value;
    }) as Json;
  } catch {
    return undefined;
  }
}

/**
 * Whether a request target stays under `basePath` once a reverse proxy has
 * percent-decoded its path (slashes and backslashes included) and resolved
 * its dot segments, as nginx does before it picks a location.
 */
function underBase(target: string, basePath: string): boolean {
  const q = target.indexOf('?');
  let path = q === -1 ? target : target.slice(0, q);
  for (let i = 0; i < 3; i += 1) path = path.replace(/%[0-9a-fA-F]{2}/g, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));
  const resolved: string[] = [];
  for (const segment of path.replace(/\\/g, '/').split('/')) {
    if (segment === '..') resolved.pop();
    else if (segment !== '.' && segment !== '') resolved.push(segment);
  }
  const normal = `/${resolved.join('/')}`;
  return normal === basePath || normal.startsWith(`${basePath}/`);
}

function send(res: ServerResponse, status: number, headers: Record<string, string | string[]>, body: Buffer | string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function refuse(res: ServerResponse, record: RecordedRequest, refusal: Refusal): void {
  record.refused = refusal.message;
  send(res, refusal.status, { 'content-type': 'application/json; charset=utf-8', 'x-platform-sim': 'refused' }, JSON.stringify({ message: refusal.message }));
}

export async function startPlatformSim(options: PlatformSimOptions): Promise<PlatformSim> {
  const coreUrl = new URL(options.coreUrl);
  const host = options.host ?? '127.0.0.1';
  const pageCap = options.pageCap ?? 100;
  if (!(Number.isInteger(pageCap) && pageCap >= 1)) throw new RangeError('pageCap must be an integer of at least 1');
  const tls = options.tls ?? makeTls();
  const table = routeTable();
  const tokens = new Tokens();
  const roles = new RoleIds(options.roleIds);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const requests: RecordedRequest[] = [];

  /**
   * The request body as the core is sent it: on the routes that name roles (authorization and
   * service accounts), role ids this stand-in gave out become the core's; elsewhere a `roleId`
   * member is a user's data and passes as it is.
   */
  function inwardBody(path: string, raw: Buffer, json: Json | undefined): Buffer {
    if (json === undefined || !(path.startsWith('/authorization/') || path.startsWith('/oauth/serviceAccounts'))) return raw;
    let unknown: string | null = null;
    const mapped = mapRoleIds(json, (id) => roles.inward(id) ?? ((unknown ??= id), id), new Set());
    if (unknown !== null) throw new Refusal(400, `role ${unknown as string} does not exist on this platform`);
    return Buffer.from(JSON.stringify(mapped));
  }

  /** The core's answer as the platform gives it. */
  function outward(method: string, path: string, answer: Upstream): Buffer {
    const type = String(answer.headers['content-type'] ?? '');
    if (method === 'POST' && path === '/login' && answer.status === 200) {
      const token = parseJson(answer.body.toString('utf8'));
      if (typeof token === 'string') {
        tokens.login.add(token);
        // The platform answers the token as bare text, not a JSON string (its authentication page).
        answer.headers['content-type'] = 'text/plain; charset=utf-8';
        return Buffer.from(token);
      }
    }
    if (!type.includes('json')) return answer.body;
    const json = parseJson(answer.body.toString('utf8'));
    if (json === undefined) return answer.body;
    if (method === 'POST' && path === '/oauth/token' && answer.status === 200 && typeof json === 'object' && json !== null && !Array.isArray(json) && typeof json['access_token'] === 'string') {
      tokens.oauth.add(json['access_token']);
    }
    const keys = path === '/whoami' ? new Set(['roles']) : path.startsWith('/authorization/roles') ? new Set(['_id']) : new Set<string>();
    if (path !== '/whoami' && !path.startsWith('/authorization/') && !path.startsWith('/oauth/serviceAccounts')) return answer.body;
    return Buffer.from(JSON.stringify(mapRoleIds(json, (id) => roles.outward(id), keys)));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, secure: boolean): Promise<void> {
    const raw = await readBodyUpTo(req, BODY_LIMIT);
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'https://platform-sim.invalid');
    const record: RecordedRequest = { method, url: req.url ?? '/', headers: { ...req.headers }, body: raw?.toString('utf8') ?? '', secure, credentials: null, refused: null, ignored: [], forwarded: null };
    requests.push(record);
    try {
      if (raw === null) throw new Refusal(413, `the body is larger than ${BODY_LIMIT} bytes`);
      if (basePath !== '') {
        if (!underBase(req.url ?? '/', basePath)) throw new Refusal(404, `${req.url ?? '/'} is outside the base path ${basePath} once a proxy resolves it`);
        url.pathname = url.pathname.slice(basePath.length) || '/';
      }
      if (!table.serves(method, url.pathname)) throw new Refusal(404, `${method} ${url.pathname} is not a route of Itential Platform 2023.2`);
      record.credentials = checkCredentials(req.headers, url.searchParams, secure, tokens);
      let path = url.pathname;
      const rolePath = /^\/authorization\/roles\/([^/]+)$/.exec(path);
      if (rolePath) {
        const coreId = roles.inward(decodeURIComponent(rolePath[1]!));
        if (coreId === null) throw new Refusal(404, `role ${rolePath[1]!} does not exist on this platform`);
        path = `/authorization/roles/${coreId}`;
      }
      path = translatePath(method, path);
      const isJson = String(req.headers['content-type'] ?? '').includes('json');
      const json = isJson && raw.length > 0 ? parseJson(raw.toString('utf8')) : undefined;
      if (isJson && raw.length > 0 && json === undefined) throw new Refusal(400, 'the body is not valid JSON');
      checkBody(method, url.pathname, json);
      const body = inwardBody(url.pathname, raw, json);
      const query = translateQuery(method, url.pathname, url.search.slice(1), pageCap);
      record.ignored = query.ignored;
      const target = query.query === '' ? path : `${path}?${query.query}`;
      record.forwarded = `${method} ${target}`;
      const answer = await callCore(coreUrl, method, target, req.headers, body);
      const out = outward(method, url.pathname, answer);
      send(res, answer.status, passableHeaders(answer.headers) as Record<string, string | string[]>, out);
    } catch (error) {
      if (error instanceof Refusal) return refuse(res, record, error);
      record.refused = `platform-sim could not reach the core: ${error instanceof Error ? error.message : String(error)}`;
      send(res, 502, { 'content-type': 'application/json; charset=utf-8' }, JSON.stringify({ message: record.refused }));
    }
  }

  const servers: Server[] = [];
  const listen = async (server: Server, port: number): Promise<number> => {
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  };
  const https = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => void handle(req, res, true).catch(() => res.destroy()));
  const name = host.includes(':') ? `[${host}]` : host;
  const port = await listen(https, options.port ?? 0);
  let plainUrl: string | null = null;
  if (options.plainPort !== undefined && options.plainPort !== null) {
    const plain = createHttpServer((req, res) => void handle(req, res, false).catch(() => res.destroy()));
    plainUrl = `http://${name}:${await listen(plain, options.plainPort)}`;
  }
  let closed: Promise<void> | null = null;
  return {
    url: `https://${name}:${port}`,
    plainUrl,
    ca: tls.ca,
    requests,
    close() {
      closed ??= Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      ).then(() => undefined);
      return closed;
    },
  };
}
