/**
 * Reads a legacy request's body as the platform's body parser did: JSON
 * (objects and arrays) and URL-encoded forms on POST, PUT and PATCH, up to
 * `http.bodyLimit` (in bytes, read once by the config loader); any other method or content type has no body. A body
 * that cannot be read is answered, not run: its error is returned.
 */
import type { IncomingMessage } from 'node:http';
import coBody from 'co-body';
import { bodyDepthError, bodyError } from '../../../kernel/index.ts';
import type { AppError } from '../../../kernel/index.ts';

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPES = ['application/json', 'application/json-patch+json', 'application/vnd.api+json', 'application/csp-report', 'application/reports+json', 'application/scim+json'];
const FORM_TYPES = ['application/x-www-form-urlencoded'];

export type BodyResult = { readonly body: unknown } | { readonly error: AppError };

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

export async function readLegacyBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  if (!PARSED_METHODS.has(req.method ?? '')) return { body: {} };
  const type = mediaType(req.headers['content-type']);
  const kind = JSON_TYPES.includes(type) ? 'json' : FORM_TYPES.includes(type) ? 'form' : null;
  if (kind === null) return { body: {} };
  try {
    const body: unknown = kind === 'json' ? await coBody.json(req, { limit, encoding: 'utf-8', jsonTypes: JSON_TYPES }) : await coBody.form(req, { limit, encoding: 'utf-8', formTypes: FORM_TYPES });
    const tooDeep = bodyDepthError(body);
    return tooDeep ? { error: tooDeep } : { body: body ?? {} };
  } catch (err) {
    return { error: bodyError(err instanceof Error ? err : new Error(String(err))) };
  }
}
