/**
 * Reads the errors an orchestrator reports with a 4xx/5xx answer: RESTCONF's
 * `ietf-restconf:errors` (RFC 8040 section 7.1) in JSON or XML, and the
 * legacy NSO REST API's `errors` object, which has the same inner shape.
 */
import type { ErrorDetail } from '../../../kernel/index.ts';

/** One orchestrator error, as `details` of the relay's answer carry it. */
export interface OrchestratorError extends ErrorDetail {
  /** `error-path` when the orchestrator gave one, else `error-tag`. */
  readonly parameter: string;
  readonly message: string;
  readonly errorType: string | null;
  readonly errorTag: string | null;
  readonly errorPath: string | null;
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

function fromFields(get: (name: string) => string | null): OrchestratorError {
  const errorTag = get('error-tag');
  const errorPath = get('error-path');
  return {
    parameter: errorPath ?? errorTag ?? 'orchestrator',
    message: get('error-message') ?? errorTag ?? 'error without a message',
    errorType: get('error-type'),
    errorTag,
    errorPath,
  };
}

function fromJson(data: unknown): OrchestratorError[] {
  if (typeof data !== 'object' || data === null) return [];
  const record = data as Record<string, unknown>;
  const errors = record['ietf-restconf:errors'] ?? record['errors'];
  if (typeof errors !== 'object' || errors === null) return [];
  const list = (errors as Record<string, unknown>)['error'];
  const items = Array.isArray(list) ? list : list === undefined ? [] : [list];
  return items
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .map((item) => fromFields((name) => text(item[name])));
}

const XML_SCAN_LIMIT = 64 * 1024;

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function unescapeXml(value: string): string {
  return value.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-f]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? entity;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

/**
 * Only the few leaf elements of `<error>` are read, so a full XML parser is
 * not needed; element names may carry a namespace prefix.
 */
function fromXml(body: string): OrchestratorError[] {
  // Bounded so that a huge or malformed answer cannot make the scan slow.
  const blocks = body.slice(0, XML_SCAN_LIMIT).match(/<(?:[\w.-]+:)?error(?:\s[^>]*)?>[\s\S]*?<\/(?:[\w.-]+:)?error>/g) ?? [];
  return blocks.map((block) =>
    fromFields((name) => {
      const match = new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:[\\w.-]+:)?${name}>`).exec(block);
      return match ? unescapeXml(match[1]!.trim()) : null;
    }),
  );
}

/** The errors in an error answer's body (already parsed when it was JSON), or none. */
export function orchestratorErrors(data: unknown): OrchestratorError[] {
  if (typeof data === 'string') return data.trimStart().startsWith('<') ? fromXml(data) : [];
  return fromJson(data);
}
