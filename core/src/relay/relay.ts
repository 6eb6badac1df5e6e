/**
 * The orchestrator relay: restAction and restQuery sent through a named
 * adapter. Used by the HTTP routes and, through `call`, by the workflow
 * engine's relay tasks, so both validate and fail the same way.
 *
 * Answers (decisions to document):
 * - restAction: `[{result: "<status>"}]`; when the orchestrator sent a body,
 *   it is added to that one element as `data` (`[{result: "200", data}]`),
 *   so `result[0].result` is always the status.
 * - restQuery: `{instance_data: <the orchestrator's data>}`, null when it sent
 *   no body. XML answers are passed on as text.
 * - An empty `body` (`{}`, what the interface asks callers to send when there
 *   is no payload) is sent as no body at all; a GET may carry no other.
 * - An orchestrator 4xx/5xx answers with the same status and code
 *   UPSTREAM_FAILED (its errors in `details`), except 401: that is about the
 *   adapter's credentials, not the caller's, so it becomes a 502.
 */
import type { Adapter, AdapterRegistry } from '../adapters/registry.ts';
import { AppError, joiBody, ValidationError } from '../../../kernel/index.ts';
import type { ErrorDetail } from '../../../kernel/index.ts';
import type { OrchestratorAnswer, OrchestratorClient } from './orchestrator.ts';
import { joinPath } from './path.ts';
import { orchestratorErrors } from './restconf-errors.ts';
import { restActionSchema, restQuerySchema } from './schemas.ts';
import type { RelayKind, RelayMethod, RestActionRequest, RestQueryRequest } from './schemas.ts';

export type RestActionAnswer = Array<{ result: string; data?: unknown }>;
export interface RestQueryAnswer {
  instance_data: unknown;
}

export interface Relay {
  /** Validates `body` like the HTTP routes do, then relays it; rejects with the routes' AppErrors. */
  call(kind: RelayKind, adapterId: string, body: Record<string, unknown>): Promise<unknown>;
  /** For already validated requests (the routes). */
  restAction(adapterId: string, request: RestActionRequest): Promise<RestActionAnswer>;
  restQuery(adapterId: string, request: RestQueryRequest): Promise<RestQueryAnswer>;
}

export interface RelayDeps {
  readonly registry: AdapterRegistry;
  readonly client: Pick<OrchestratorClient, 'send'>;
}

const DEFAULT_CONTENT_TYPE = 'application/yang-data+json';
const restActionBody = joiBody(restActionSchema);
const restQueryBody = joiBody(restQuerySchema);

function pathError(message: string): ValidationError {
  return new ValidationError(`Invalid body: body.params.path ${message}`, [{ parameter: 'body.params.path', message }]);
}

function notFound(adapterId: string, message: string): AppError {
  return new AppError(404, 'NOT_FOUND', message, [{ parameter: 'adapterId', message: `"${adapterId}" is not an available orchestrator adapter` }]);
}

/** A short text of a body that is not in a known errors format, so the caller still sees what the orchestrator said. */
function excerpt(data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return text.length > 500 ? `${text.slice(0, 500)}...` : text;
}

function answerError(adapter: Adapter, answer: OrchestratorAnswer): AppError {
  const errors = orchestratorErrors(answer.data);
  const details: ErrorDetail[] = errors.length > 0 ? errors : answer.data === undefined ? [] : [{ parameter: 'orchestrator', message: excerpt(answer.data) }];
  const said = errors.length > 0 ? `: ${errors.map((e) => e.message).join('; ')}` : '';
  if (answer.status === 401) {
    return new AppError(502, 'UPSTREAM_FAILED', `Adapter "${adapter.name}" was refused by the orchestrator (401): check the adapter's credentials${said}`, details);
  }
  if (answer.status < 400) {
    return new AppError(502, 'UPSTREAM_FAILED', `Adapter "${adapter.name}" answered with a redirect (${answer.status}), which the relay does not follow`, details);
  }
  // HTTP cannot answer a status outside 4xx/5xx as an error.
  if (answer.status > 599) return new AppError(502, 'UPSTREAM_FAILED', `Adapter "${adapter.name}" answered with status ${answer.status}${said}`, details);
  return new AppError(answer.status, 'UPSTREAM_FAILED', `Adapter "${adapter.name}" answered ${answer.status}${said}`, details);
}

export function createRelay(deps: RelayDeps): Relay {
  async function adapterNamed(adapterId: string): Promise<Adapter> {
    const adapter = await deps.registry.find(adapterId);
    if (adapter === null) throw notFound(adapterId, `No adapter named "${adapterId}"`);
    if (!adapter.enabled) throw notFound(adapterId, `Adapter "${adapterId}" is disabled`);
    if (adapter.type !== 'nso') throw notFound(adapterId, `Adapter "${adapterId}" is a ${adapter.type} adapter, not an orchestrator`);
    return adapter;
  }

  async function send(adapterId: string, method: RelayMethod, path: string, accept: string, payload: { contentType: string; body: string } | null): Promise<OrchestratorAnswer> {
    const adapter = await adapterNamed(adapterId);
    const url = joinPath(adapter.baseUrl, path);
    if (url === null) throw pathError('must stay under the adapter\'s base URL');
    const answer = await deps.client.send(adapter, { method, url, accept, contentType: payload?.contentType ?? null, body: payload?.body ?? null });
    if (answer.status >= 300) throw answerError(adapter, answer);
    return answer;
  }

  async function restAction(adapterId: string, request: RestActionRequest): Promise<RestActionAnswer> {
    const method = request.params.method ?? 'POST';
    const empty = Object.keys(request.body).length === 0;
    if (method === 'GET' && !empty) {
      throw new ValidationError('Invalid body: body.body must be empty ({}) when params.method is GET', [{ parameter: 'body.body', message: 'must be empty ({}) when params.method is GET' }]);
    }
    const payload = empty ? null : { contentType: request.params.contentType ?? DEFAULT_CONTENT_TYPE, body: JSON.stringify(request.body) };
    const answer = await send(adapterId, method, request.params.path, request.params.accept, payload);
    return [answer.data === undefined ? { result: String(answer.status) } : { result: String(answer.status), data: answer.data }];
  }

  async function restQuery(adapterId: string, request: RestQueryRequest): Promise<RestQueryAnswer> {
    const answer = await send(adapterId, 'GET', request.params.path, request.params.accept, null);
    return { instance_data: answer.data ?? null };
  }

  return {
    restAction,
    restQuery,
    async call(kind, adapterId, body) {
      if (kind === 'restAction') return restAction(adapterId, restActionBody.validate(body));
      return restQuery(adapterId, restQueryBody.validate(body));
    },
  };
}
