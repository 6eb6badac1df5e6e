/**
 * Talks to one automation gateway (IAG 2.x) over its REST API under
 * `<baseUrl>/api/v2.0`: log in, list scripts, playbooks and modules, run one.
 * tools/ag-sim/server.ts documents the subset used.
 *
 * Every failure is an AppError the routes can answer as is: 502 when the
 * gateway cannot be reached or answers wrongly (its refusal of the adapter's
 * credentials included: the caller's own credentials were fine), 504 when it
 * does not answer in the adapter's timeoutMs. Messages name the adapter and
 * the gateway's origin, never a credential or token; no got error is kept as
 * a cause, because got errors carry the request headers.
 */
import got, { RequestError } from 'got';
import type { AdapterConfig } from '../../../config/schema.ts';
import { AppError, isPlainObject, readError } from '../../../kernel/index.ts';

export type ActionKind = 'script' | 'playbook' | 'module';
export const ACTION_KINDS: readonly ActionKind[] = ['script', 'playbook', 'module'];

/** One action a gateway offers, as discovered. */
export interface DiscoveredAction {
  readonly kind: ActionKind;
  readonly name: string;
  readonly description: string;
  /** The JSON Schema of its args, when the gateway has one. */
  readonly parameters: Record<string, unknown> | null;
}

const API = '/api/v2.0';
const PAGE = 100;
// A gateway that keeps answering full pages is misbehaving; stop well before memory does.
const MAX_PAGES = 100;

export class AgError extends AppError {
  constructor(status: 502 | 504, message: string) {
    super(status, status === 504 ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_FAILED', message);
  }
}

/** What an error answer of the adapter said, read as our own services' are (kernel readError); a page of text (a proxy's HTML) is not repeated. */
function messageOf(answer: { readonly status: number; readonly body: unknown }): string {
  return isPlainObject(answer.body) ? `: ${readError(answer.status, undefined, answer.body).message.slice(0, 200)}` : '';
}

/** The adapter's base URL with `/api/v2.0` once, whether or not the operator wrote it. */
function apiBase(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(API) ? trimmed : `${trimmed}${API}`;
}

function actionsOf(kind: ActionKind, body: unknown): { items: DiscoveredAction[]; received: number; total: number | null } {
  const data = Array.isArray(body) ? body : isPlainObject(body) && Array.isArray(body['data']) ? body['data'] : null;
  if (!data) throw new Error('not a list');
  const meta = isPlainObject(body) && isPlainObject(body['meta']) ? body['meta'] : {};
  const total = typeof meta['total_count'] === 'number' ? meta['total_count'] : null;
  const items: DiscoveredAction[] = [];
  for (const item of data as unknown[]) {
    // CASE: an entry without a usable name cannot become a task; the rest still can.
    if (!isPlainObject(item) || typeof item['name'] !== 'string' || item['name'] === '') continue;
    const schema = isPlainObject(item['parameters']) ? item['parameters'] : isPlainObject(item['schema']) ? item['schema'] : null;
    items.push({ kind, name: item['name'], description: typeof item['description'] === 'string' ? item['description'] : '', parameters: schema });
  }
  return { items, received: data.length, total };
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

export class AgClient {
  private session: Promise<string> | null = null;
  private readonly base: string;
  private readonly origin: string;

  constructor(readonly adapter: Readonly<AdapterConfig>) {
    this.base = apiBase(adapter.baseUrl);
    // Only the origin is ever shown, so credentials written into the URL cannot leak.
    this.origin = new URL(adapter.baseUrl).origin;
  }

  /** How messages name this gateway. */
  get where(): string {
    return `gateway adapter "${this.adapter.name}" at ${this.origin}`;
  }

  /** Every action of one kind, page by page. */
  async list(kind: ActionKind, signal?: AbortSignal): Promise<DiscoveredAction[]> {
    const out: DiscoveredAction[] = [];
    for (let page = 0, offset = 0; page < MAX_PAGES; page += 1) {
      const path = `/${kind}s?offset=${offset}&limit=${PAGE}`;
      const answer = await this.authorized('GET', path, undefined, signal);
      if (answer.status !== 200) throw new AgError(502, `The ${this.where} answered ${answer.status} to GET /${kind}s${messageOf(answer)}`);
      let parsed: ReturnType<typeof actionsOf>;
      try {
        parsed = actionsOf(kind, answer.body);
      } catch {
        throw new AgError(502, `The ${this.where} answered GET /${kind}s with something other than a list of ${kind}s`);
      }
      out.push(...parsed.items);
      offset += parsed.received;
      if (parsed.received < PAGE || (parsed.total !== null && offset >= parsed.total)) return out;
    }
    throw new AgError(502, `The ${this.where} listed more than ${MAX_PAGES * PAGE} ${kind}s`);
  }

  /** Runs one action; answers the gateway's result, whatever it says about success. */
  async execute(kind: ActionKind, name: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const path = `/${kind}s/${encodeURIComponent(name)}/execute`;
    const answer = await this.authorized('POST', path, body, signal);
    if (answer.status < 200 || answer.status >= 300) {
      throw new AgError(502, `The ${this.where} answered ${answer.status} to running ${kind} ${name}${messageOf(answer)}`);
    }
    return answer.body;
  }

  /**
   * A call with the adapter's credential. A session token is shared by every
   * call (concurrent ones wait for the same login); a refused session token
   * (it expired, the gateway restarted) earns one fresh login.
   */
  private async authorized(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal | undefined): Promise<Answer> {
    const call = `${method} ${path.split('?')[0]}`;
    const credentials = this.adapter.credentials;
    if (credentials === null || 'token' in credentials) {
      const answer = await this.send(method, path, body, credentials === null ? null : credentials.token, signal);
      if (answer.status === 401) throw this.refused(answer, call);
      return answer;
    }
    const reused = this.session !== null;
    const session = this.startSession(credentials);
    const answer = await this.send(method, path, body, await session, signal);
    if (answer.status !== 401) return answer;
    // Another call may already have replaced the refused session; only the refused one is dropped.
    if (this.session === session) this.session = null;
    if (!reused) throw this.refused(answer, call);
    const retried = await this.send(method, path, body, await this.startSession(credentials), signal);
    if (retried.status === 401) throw this.refused(retried, call);
    return retried;
  }

  private startSession(credentials: { username: string; password: string }): Promise<string> {
    if (this.session) return this.session;
    // Not tied to one caller's signal: other calls may be waiting for the same login.
    const session = this.login(credentials);
    this.session = session;
    session.catch(() => {
      if (this.session === session) this.session = null;
    });
    return session;
  }

  private async login(credentials: { username: string; password: string }): Promise<string> {
    const answer = await this.send('POST', '/login', { username: credentials.username, password: credentials.password }, null, undefined);
    if (answer.status === 401 || answer.status === 403) throw this.refused(answer, 'POST /login');
    const token = isPlainObject(answer.body) ? answer.body['token'] : undefined;
    if (answer.status !== 200 || typeof token !== 'string' || token === '') {
      throw new AgError(502, `The ${this.where} answered ${answer.status} to POST /login without a token${messageOf(answer)}`);
    }
    return token;
  }

  private refused(answer: Answer, call: string): AgError {
    return new AgError(502, `The ${this.where} refused the adapter's credentials (${answer.status} to ${call})${messageOf(answer)}`);
  }

  private async send(method: 'GET' | 'POST', path: string, body: unknown, token: string | null, signal: AbortSignal | undefined): Promise<Answer> {
    const { timeoutMs, tls } = this.adapter;
    let status: number;
    let text: string;
    try {
      const res = await got(`${this.base}${path}`, {
        method,
        ...(body === undefined ? {} : { json: body }),
        // IAG takes the bare token in Authorization, not a Bearer scheme.
        headers: { accept: 'application/json', ...(token === null ? {} : { authorization: token }) },
        timeout: { request: timeoutMs },
        // A kept-alive socket the gateway closed fails with ECONNRESET; a read may try once more, running an action may not.
        retry: { limit: method === 'GET' ? 1 : 0, methods: ['GET'], statusCodes: [], errorCodes: ['ECONNRESET', 'EPIPE'], backoffLimit: 200 },
        throwHttpErrors: false,
        responseType: 'text',
        https: { rejectUnauthorized: tls.rejectUnauthorized, ...(tls.ca ? { certificateAuthority: tls.ca } : {}) },
        ...(signal ? { signal } : {}),
      });
      status = res.statusCode;
      text = res.body;
    } catch (err) {
      if (signal?.aborted) throw new Error(`The call to the ${this.where} was canceled`);
      const code = err instanceof RequestError ? err.code : 'unknown error';
      if (code === 'ETIMEDOUT') throw new AgError(504, `The ${this.where} did not answer within ${timeoutMs} ms`);
      throw new AgError(502, `The ${this.where} is unreachable (${code})`);
    }
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : (JSON.parse(text) as unknown);
    } catch {
      // CASE: a proxy's HTML error page; the status alone is reported, and a 2xx non-JSON body is passed on as text.
    }
    return { status, body: parsed };
  }
}
