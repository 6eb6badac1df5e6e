/**
 * A stand-in for an Itential Automation Gateway (IAG 2.x) for tests and local
 * runs: node:http only, everything in memory. It speaks the small part of
 * IAG's REST API (base path `/api/v2.0`, default port 8083 on a real gateway)
 * that the gateway manager uses:
 *
 * - `POST /api/v2.0/login` `{username, password}` → 200 `{token}`; 401 `{message}`.
 *   Every other call needs `Authorization: <token>` (the bare token, as IAG's
 *   clients send it); a missing or unknown token is 401 `{message}`.
 * - `GET /api/v2.0/scripts`, `/playbooks`, `/modules`, with optional `offset`
 *   (default 0) and `limit` (default 50, as IAG) → 200
 *   `{data: [{name, description, parameters}], meta: {count, query_object: {offset, limit, filter: null, order: 'ascending'}, total_count}}`.
 *   `count` is the size of this page, `total_count` of the whole list;
 *   `parameters` is the action's JSON Schema (what IAG calls its decoration).
 * - `POST /api/v2.0/{scripts|playbooks|modules}/:name/execute` `{args, hosts?, groups?, env?}`
 *   → 200 `{status: 'success', return_code: 0, stdout, stderr: '', args, ...}`
 *   echoing the args (and hosts, groups, env when given). An action declared
 *   with `fail: true` answers 200 `{status: 'failure', return_code: 1, stdout: '', stderr, args}`.
 *   A property named in `parameters.required` but missing from `args` is
 *   400 `{message}`; an unknown action is 404 `{message}`.
 *
 * The execute answer's field names follow IAG's script results (stdout,
 * stderr, return_code); `status` is lower-case here by choice.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AgActionKind = 'scripts' | 'playbooks' | 'modules';
export const AG_ACTION_KINDS: readonly AgActionKind[] = ['scripts', 'playbooks', 'modules'];

export interface AgSimAction {
  name: string;
  description?: string;
  /** JSON Schema of the action's args. */
  parameters?: Record<string, unknown>;
  /** Executions end with `status: 'failure'` and return code 1. */
  fail?: boolean;
}

export interface AgSimOptions {
  port?: number;
  username?: string;
  password?: string;
  scripts?: AgSimAction[];
  playbooks?: AgSimAction[];
  modules?: AgSimAction[];
  /** Every answer waits this long first, to exercise client timeouts. */
  delayMs?: number;
}

export interface AgSimCall {
  readonly method: string;
  /** Path without the query string, decoded. */
  readonly path: string;
  readonly query: string;
  readonly body: unknown;
  /** Whether the call carried a valid token (login calls: false). */
  readonly authorized: boolean;
  readonly status: number;
}

export interface AgSim {
  readonly url: string;
  /** What the gateway offers; tests may change it between calls. */
  readonly catalog: Record<AgActionKind, AgSimAction[]>;
  /** Every request received, in order. */
  readonly calls: AgSimCall[];
  /** Forgets every issued token, as a gateway restart does. */
  revokeTokens(): void;
  close(): Promise<void>;
}

const BASE = '/api/v2.0';
const DEFAULT_LIMIT = 50;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonNegative(raw: string | null, fallback: number): number {
  const n = raw === null ? NaN : Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}

function listing(actions: readonly AgSimAction[], params: URLSearchParams): unknown {
  const offset = nonNegative(params.get('offset'), 0);
  const limit = nonNegative(params.get('limit'), DEFAULT_LIMIT) || DEFAULT_LIMIT;
  const page = actions.slice(offset, offset + limit).map((a) => ({ name: a.name, description: a.description ?? '', parameters: a.parameters ?? { type: 'object', properties: {} } }));
  return { data: page, meta: { count: page.length, query_object: { offset, limit, filter: null, order: 'ascending' }, total_count: actions.length } };
}

function execute(kind: AgActionKind, action: AgSimAction, body: Record<string, unknown>): [number, unknown] {
  const args = isRecord(body['args']) ? body['args'] : {};
  const required = Array.isArray(action.parameters?.['required']) ? (action.parameters['required'] as unknown[]) : [];
  const missing = required.filter((key): key is string => typeof key === 'string' && !Object.hasOwn(args, key));
  if (missing.length > 0) return [400, { message: `args.${missing.join(', args.')} required by ${action.name}` }];
  const extra: Record<string, unknown> = {};
  for (const key of ['hosts', 'groups', 'env']) if (body[key] !== undefined) extra[key] = body[key];
  if (action.fail) return [200, { status: 'failure', return_code: 1, stdout: '', stderr: `${kind} ${action.name} failed`, args, ...extra }];
  return [200, { status: 'success', return_code: 0, stdout: `${kind} ${action.name} ran with ${JSON.stringify(args)}`, stderr: '', args, ...extra }];
}

export async function startAgSim(options: AgSimOptions = {}): Promise<AgSim> {
  const username = options.username ?? 'admin@itential';
  const password = options.password ?? 'admin';
  const catalog: Record<AgActionKind, AgSimAction[]> = { scripts: options.scripts ?? [], playbooks: options.playbooks ?? [], modules: options.modules ?? [] };
  const calls: AgSimCall[] = [];
  const tokens = new Set<string>();

  async function route(req: IncomingMessage, body: unknown, authorized: boolean): Promise<[number, unknown]> {
    const url = new URL(req.url ?? '/', 'http://ag-sim');
    const path = decodeURIComponent(url.pathname);
    if (body === undefined) return [400, { message: 'request body is not JSON' }];
    if (req.method === 'POST' && path === `${BASE}/login`) {
      const ok = isRecord(body) && body['username'] === username && body['password'] === password;
      if (!ok) return [401, { message: 'Invalid username or password' }];
      const token = randomBytes(16).toString('hex');
      tokens.add(token);
      return [200, { token }];
    }
    if (!authorized) return [401, { message: 'Unauthorized' }];
    const match = /^\/api\/v2\.0\/(scripts|playbooks|modules)(?:\/([^/]+)\/execute)?$/.exec(path);
    if (!match) return [404, { message: `No route ${req.method ?? ''} ${path}` }];
    const kind = match[1] as AgActionKind;
    const name = match[2];
    if (name === undefined) return req.method === 'GET' ? [200, listing(catalog[kind], url.searchParams)] : [405, { message: 'Method not allowed' }];
    if (req.method !== 'POST') return [405, { message: 'Method not allowed' }];
    const action = catalog[kind].find((a) => a.name === name);
    if (!action) return [404, { message: `${kind.slice(0, -1)} ${name} not found` }];
    return execute(kind, action, isRecord(body) ? body : {});
  }

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req);
      const header = req.headers.authorization;
      const authorized = typeof header === 'string' && tokens.has(header);
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const [status, answer] = await route(req, body, authorized);
      const url = new URL(req.url ?? '/', 'http://ag-sim');
      calls.push({ method: req.method ?? '', path: decodeURIComponent(url.pathname), query: url.search.slice(1), body, authorized, status });
      if (!res.destroyed) send(res, status, answer);
    })().catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { message: err instanceof Error ? err.message : String(err) });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    catalog,
    calls,
    revokeTokens: () => tokens.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
