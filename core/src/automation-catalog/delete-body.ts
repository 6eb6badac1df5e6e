/**
 * The body of `DELETE /automation_catalog/automations`. The core's body
 * parser reads POST, PUT and PATCH bodies only, so this route reads its own
 * request stream; should the parser ever read DELETE too, its result is used.
 */
import Joi from 'joi';
import { AppError, joiBody, joiObjectId, ValidationError } from '../../../kernel/index.ts';
import type { RouteContext } from '../../../kernel/index.ts';

const MAX_BYTES = 1024 * 1024;
export const MAX_IDS = 1000;

const ids = () => Joi.array().items(joiObjectId('an automation id')).min(1).max(MAX_IDS);
const schema = joiBody<string[] | { ids: string[] }>(Joi.alternatives().try(ids(), Joi.object({ ids: ids().required() })));

async function readStream(ctx: RouteContext): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.koa.req) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      size += buf.length;
      if (size > MAX_BYTES) throw new AppError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large');
      chunks.push(buf);
    }
  } catch (err) {
    // The stream fails only when the client goes away mid-body ("aborted"): its mistake, not an internal failure.
    if (err instanceof AppError) throw err;
    throw new AppError(400, 'BAD_REQUEST', 'Request body could not be read: the connection closed before it ended');
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    // Only the position: V8's message may quote the body.
    const pos = err instanceof Error ? /position (\d+)/.exec(err.message)?.[1] : undefined;
    throw new AppError(400, 'INVALID_JSON', `Request body is not valid JSON${pos === undefined ? '' : ` (near character ${pos})`}`);
  }
}

/** The ids to delete: a JSON array of ids, or `{ids: [...]}`. */
export async function deleteIds(ctx: RouteContext): Promise<string[]> {
  const parsed = (ctx.koa.request as { body?: unknown }).body;
  const raw = parsed === undefined ? await readStream(ctx) : parsed;
  if (raw === undefined) throw new ValidationError('Invalid body: give the ids to delete, as an array or {ids: [...]}', [{ parameter: 'body', message: 'is required' }]);
  const body = schema.validate(raw);
  return Array.isArray(body) ? body : body.ids;
}
