/**
 * Request bodies of the two relay operations, as the interface states them
 * (docs/relay.md): no additional properties at any level the interface defines;
 * `body` itself is the orchestrator's payload and is passed on as it is.
 */
import Joi from 'joi';
import { withFastCheck } from '../../../kernel/index.ts';
import { pathProblem } from './path.ts';

export type RelayKind = 'restAction' | 'restQuery';
export type RelayMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestActionRequest {
  readonly params: { readonly path: string; readonly accept: string; readonly method?: RelayMethod; readonly contentType?: string };
  readonly body: Record<string, unknown>;
}

export interface RestQueryRequest {
  readonly params: { readonly path: string; readonly accept: string };
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
// One media range with optional parameters; the values become request
// headers, so anything outside visible ASCII (CR, LF) is refused here.
const MEDIA_RANGE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;[\\x20-\\x7e]*)?$`);
const JSON_MEDIA_TYPE = new RegExp(`^${TOKEN}/(${TOKEN}\\+)?json(\\s*;[\\x20-\\x7e]*)?$`, 'i');

const path = Joi.string()
  .min(1)
  .max(4096)
  .custom((value: string, helpers) => {
    const problem = pathProblem(value);
    return problem === null ? value : helpers.message({ custom: problem });
  });

// Accept may list several ranges (`a/b, c/d;q=0.5`), as the header does.
const accept = Joi.string()
  .max(512)
  .custom((value: string, helpers) =>
    value.split(',').every((part) => MEDIA_RANGE.test(part.trim())) ? value : helpers.message({ custom: 'must be a media type such as application/yang-data+json' }),
  );

// The relay sends `body` JSON-encoded, so a content type of another family would mislabel it.
const contentType = Joi.string()
  .max(256)
  .pattern(JSON_MEDIA_TYPE)
  .messages({ 'string.pattern.base': 'must be a JSON media type such as application/yang-data+json (the body is sent as JSON)' });

// The platform reads the method case-insensitively; it is passed on upper-cased.
const method = Joi.string().valid('GET', 'POST', 'PUT', 'PATCH', 'DELETE').insensitive();

export const restActionSchema: Joi.ObjectSchema<RestActionRequest> = Joi.object<RestActionRequest>({
  params: Joi.object({ path: path.required(), accept: accept.required(), method, contentType }).required(),
  body: Joi.object().unknown(true).required(),
});

export const restQuerySchema: Joi.ObjectSchema<RestQueryRequest> = withFastCheck(
  Joi.object<RestQueryRequest>({
    params: Joi.object({ path: path.required(), accept: accept.required() }).required(),
  }),
  restQueryFast,
);

function plainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The valid form of a restQuery body, checked without Joi: every call of the relay's hot path has it. Exactly
 * `params` with exactly a path and an accept, both strings the rules above accept; the value is Joi's (a copy of
 * the body). Anything else goes to Joi, which says what is wrong (test/core/relay/schemas.test.ts holds them equal).
 */
function restQueryFast(raw: unknown): RestQueryRequest | undefined {
  if (!plainObject(raw) || Object.keys(raw).length !== 1 || !Object.hasOwn(raw, 'params')) return undefined;
  const params = raw['params'];
  if (!plainObject(params) || Object.keys(params).length !== 2) return undefined;
  const { path: p, accept: a } = params;
  if (typeof p !== 'string' || typeof a !== 'string' || !Object.hasOwn(params, 'path') || !Object.hasOwn(params, 'accept')) return undefined;
  if (p.length === 0 || p.length > 4096 || pathProblem(p) !== null) return undefined;
  if (a.length === 0 || a.length > 512 || !a.split(',').every((part) => MEDIA_RANGE.test(part.trim()))) return undefined;
  return { params: { ...params } as RestQueryRequest['params'] };
}

export const adapterIdSchema = Joi.object<{ adapterId: string }>({ adapterId: Joi.string().min(1).max(200).required() });
