/**
 * Joi pieces shared by the authorization routes: references to roles and
 * groups as the platform writes them, ids in paths, and bodies that may come
 * wrapped (`{group: {...}}`) or bare, since real clients send both.
 */
import Joi from 'joi';
import { joiBody } from '../../../kernel/index.ts';
import type { Validator } from '../../../kernel/index.ts';

export interface RoleRef {
  roleId: string;
}

export interface GroupRef {
  groupId: string;
  aaaManaged: boolean;
}

const MAX_REFS = 1000;
const ID = Joi.string().min(1).max(64);

export const roleRefs = Joi.array()
  .items(Joi.object({ roleId: ID.required() }))
  .max(MAX_REFS);

export const groupRefs = Joi.array()
  .items(Joi.object({ groupId: ID.required(), aaaManaged: Joi.boolean().default(false) }))
  .max(MAX_REFS);

export const text = (max: number): Joi.StringSchema => Joi.string().max(max).allow('');

export function idParam(name: string): Joi.ObjectSchema {
  return Joi.object({ [name]: ID.required() });
}

/** A body of fields `T`, bare or under one key; the handler reads it through `unwrap` (context.ts). */
export type WrappedOrBare<T> = T | Record<string, T>;

/**
 * The wrapped form when the body has `key`, else the bare form: errors then
 * name the fields of the form the client chose, not both alternatives.
 */
export function wrapperOrBare<T>(key: string, inner: Joi.ObjectSchema): Validator<unknown, WrappedOrBare<T>> {
  return joiBody(
    Joi.alternatives().conditional(Joi.object({ [key]: Joi.exist() }).unknown(), {
      then: Joi.object({ [key]: inner.required() }),
      otherwise: inner,
    }),
  );
}

const AT_LEAST_ONE = { 'object.min': 'must name at least one field to change' };

/**
 * PATCH bodies: `{updates: {...}}` (the platform's form) or the bare fields
 * (the interface's), with at least one field to change. `fixedOnPlatform`
 * names fields the platform's form cannot change (a role's `name` and
 * `provenance`, per its update-role reference): in the wrapped form they
 * are refused as the platform refuses them, so a client written against our
 * core does not come to rely on a change the platform would not make; the
 * bare form still changes them.
 */
export function updatesBody<T>(fields: Record<string, Joi.Schema>, fixedOnPlatform: readonly string[] = []): Validator<unknown, WrappedOrBare<T>> {
  const wrapped: Record<string, Joi.Schema> = { ...fields };
  for (const name of fixedOnPlatform) {
    wrapped[name] = Joi.any().forbidden().messages({ 'any.unknown': `cannot be changed in the platform's form {"updates": {...}}; send the fields bare to change ${name}` });
  }
  return joiBody(
    Joi.alternatives().conditional(Joi.object({ updates: Joi.exist() }).unknown(), {
      then: Joi.object({ updates: Joi.object(wrapped).min(1).messages(AT_LEAST_ONE).required() }),
      otherwise: Joi.object(fields).min(1).messages(AT_LEAST_ONE),
    }),
  );
}
