/**
 * The legacy operations of the mapping table as OpenAPI operations: each is
 * `deprecated`, names the releases that deprecate and remove it, until when
 * this gateway serves it and that sunset date (`x-deprecated-in`,
 * `x-removed-in`, `x-served-until`, `x-sunset`: the serving policy's end,
 * docs/gateway.md "Serving policy"), and links to its successor, by
 * operation id where the successor is in the document.
 */
import { jsonResponse, openApiPath, pathParamNames } from '../../../kernel/index.ts';
import type { OpenApiOperation, OpenApiResponse, Paths } from '../../../kernel/index.ts';
import type { Entry, Route } from '../mapping/types.ts';
import type { ReleaseCalendar } from '../releases.ts';
import { describeEnd, instantOf, SCHEDULE } from '../legacy/serve-until.ts';
import type { EndOf, ServeEnd } from '../legacy/serve-until.ts';

/** Every legacy error answer's status; `X-Error-Code` names the code (docs/errors.md, "Legacy operations"). */
const LEGACY_ERRORS: Readonly<Record<number, string>> = {
  400: 'A fields or sort path through __proto__, constructor or prototype, or an id in the path that is . or .. (BAD_REQUEST), named, as a JSON string',
  401: 'Missing or invalid credentials, in the legacy form: a JSON string',
  403: 'No role of the caller allows the operation its call becomes',
  410: 'No longer served: from its removal release, or from the end gateway.serveUntil gives it (or inside a brownout window); the string names the replacement',
  413: 'The body is larger than http.bodyLimit',
  429: 'Locked out for failed logins; Retry-After says for how many seconds',
  500: 'The legacy error form: a JSON string naming what went wrong; X-Error-Code says whether the gateway could not rewrite the call (LEGACY_FAILED), the core refused it (the core\'s code) or could not be reached (UPSTREAM_FAILED, UPSTREAM_TIMEOUT)',
};

/** The statuses an entry answers on success: 200, or what its `answer` steps declare. */
function successStatuses(entry: Entry): number[] {
  const declared = entry.steps.flatMap((s) => ('answer' in s && s.status !== undefined ? [s.status] : []));
  return [...new Set([200, ...declared])].sort((a, b) => a - b);
}

/** The legacy error answers, once, for components.responses. */
export function legacyErrorResponses(): Record<string, OpenApiResponse> {
  const out: Record<string, OpenApiResponse> = {};
  for (const [status, description] of Object.entries(LEGACY_ERRORS)) {
    out[`Legacy${status}`] = {
      description,
      headers: { 'X-Error-Code': { description: 'The stable error code (docs/errors.md)', schema: { $ref: '#/components/schemas/ErrorCode' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/LegacyError' } } },
    };
  }
  return out;
}

export function legacyOperationId(entry: Entry): string {
  return `legacy.${entry.id}`;
}

function headers(entry: Entry, end: ServeEnd, sunset: Date): Record<string, unknown> {
  const until = end.kind === 'release' && end.release === entry.removed ? `its removal, release ${entry.removed}` : `${describeEnd(end)} (gateway.serveUntil; removed in release ${entry.removed})`;
  const out: Record<string, unknown> = {
    Deprecation: { description: `When the operation was deprecated (release ${entry.deprecated}), RFC 9745`, schema: { type: 'string' } },
    Sunset: { description: `When this gateway stops serving it, RFC 8594: ${until}`, schema: { type: 'string', examples: [sunset.toUTCString()] } },
  };
  if (entry.replacement) out['Link'] = { description: 'The successor operation, rel="successor-version"', schema: { type: 'string' } };
  return out;
}

/**
 * Legacy operations by path; `successorOf` finds the operation id of a
 * replacement route in the final document (a core operation or another
 * legacy one), or null when the document does not hold it.
 */
export function legacyPaths(entries: readonly Entry[], calendar: ReleaseCalendar, successorOf: (route: Route) => string | null, endOf: EndOf = SCHEDULE): Paths {
  const paths: Paths = {};
  for (const entry of entries) {
    const end = endOf(entry);
    // The start-up check refused an end the calendar cannot date, so the removal's date is only a guard.
    const sunset = new Date(instantOf(end, calendar) ?? calendar.dateOf(entry.removed).getTime());
    const servedLonger = !(end.kind === 'release' && end.release === entry.removed);
    const successorId = entry.replacement ? successorOf(entry.replacement) : null;
    const responses: OpenApiOperation['responses'] = {};
    for (const status of successStatuses(entry)) {
      const ok = jsonResponse('The legacy answer, in the shape the operation always had', {});
      ok.headers = headers(entry, end, sunset);
      if (successorId) ok.links = { successor: { operationId: successorId, description: 'The operation that replaces this one' } };
      responses[String(status)] = ok;
    }
    for (const status of Object.keys(LEGACY_ERRORS)) responses[status] = { $ref: `#/components/responses/Legacy${status}` };
    const replacement = entry.replacement ? `Use \`${entry.replacement.method} ${entry.replacement.path}\` instead.` : 'It has no replacement.';
    const op: OpenApiOperation = {
      operationId: legacyOperationId(entry),
      summary: `${entry.operation} (legacy ${entry.source})`,
      description: `Deprecated in release ${entry.deprecated}, removed in ${entry.removed}${servedLonger ? `, served by this gateway until ${describeEnd(end)}` : ''} (sunset ${sunset.toISOString().slice(0, 10)}). ${replacement}${entry.note ? ` ${entry.note}` : ''}`,
      tags: [`legacy ${entry.source}`],
      deprecated: true,
      'x-deprecated-in': entry.deprecated,
      'x-removed-in': entry.removed,
      'x-served-until': end.kind === 'release' ? end.release : end.text,
      'x-sunset': sunset.toISOString().slice(0, 10),
      'x-successor': entry.replacement ? { method: entry.replacement.method, path: openApiPath(entry.replacement.path), ...(successorId ? { operationId: successorId } : {}) } : null,
      responses,
    };
    const params: Array<Record<string, unknown>> = pathParamNames(entry.legacy.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    // Legacy queries and bodies are read by the mapping's steps, not by a schema: described as free-form.
    params.push({ name: 'query', in: 'query', required: false, style: 'form', explode: true, description: 'The legacy operation\'s query parameters', schema: { type: 'object', additionalProperties: { type: 'string' } } });
    op.parameters = params;
    if (entry.legacy.method !== 'GET' && entry.legacy.method !== 'DELETE') op.requestBody = { required: false, content: { 'application/json': { schema: {} } } };
    (paths[openApiPath(entry.legacy.path)] ??= {})[entry.legacy.method.toLowerCase()] = op;
  }
  return paths;
}
