/**
 * The gateway's answers carry their request id and the security headers
 * (kernel/http/raw-answer.ts) because this response class adds them as the
 * head is written, whoever writes it: the pass-through, the legacy writers or
 * Koa. Setting them earlier with `setHeader` would send every `writeHead`
 * that brings its own headers down Node's header-merge path, which revalidates
 * each of the core's headers one by one; added to the writer's literal here,
 * the head is written in one pass (BENCHMARKS.md, the front door).
 */
import { ServerResponse } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import { SECURITY_HEADERS } from '../../../kernel/index.ts';

/**
 * Lower-case, as Node gives the core's answer headers to the pass-through, so
 * a name the core also sent is replaced, never sent twice.
 */
const ALWAYS: ReadonlyArray<readonly [string, string]> = Object.entries(SECURITY_HEADERS).map(([name, value]) => [name.toLowerCase(), value] as const);

/** The same as one name, value list, appended to a writer's list. */
const ALWAYS_LIST: readonly string[] = ALWAYS.flat();

type Head = OutgoingHttpHeaders | OutgoingHttpHeader[];

/** The names every head gets from here; a writer handing a list leaves them out, since a list is appended to, not merged. */
export const WRITTEN_ON_EVERY_HEAD: ReadonlySet<string> = new Set([...ALWAYS.map(([name]) => name), 'x-request-id']);

export class GatewayResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Set by the front door's first stage (stages.ts). */
  requestId = '';

  override writeHead(statusCode: number, statusMessage?: string | Head, headers?: Head): this {
    const head = typeof statusMessage === 'string' ? headers : statusMessage;
    if (head === undefined) {
      // Koa, or an answer ended without a head: its headers were set one by one already.
      for (const [name, value] of ALWAYS) this.setHeader(name, value);
      if (this.requestId) this.setHeader('x-request-id', this.requestId);
    } else if (Array.isArray(head)) {
      for (let i = 0; i < ALWAYS_LIST.length; i += 1) head.push(ALWAYS_LIST[i]!);
      if (this.requestId) head.push('x-request-id', this.requestId);
    } else {
      for (const [name, value] of ALWAYS) head[name] = value;
      if (this.requestId) head['x-request-id'] = this.requestId;
    }
    return typeof statusMessage === 'string' ? super.writeHead(statusCode, statusMessage, head) : super.writeHead(statusCode, head);
  }
}
