/**
 * Joi pieces shared by the authorization routes: references to roles and
 * groups as the platform writes them, ids in paths, and bodies that may come
 * wrapped (`{group: {...}}`) or bare, since real clients send both.
 */
import Joi from 'joi';

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

/**
 * The wrapped form when the body has `key`, else the bare form: errors then
 * name the fields of the form the client chose, not both alternatives.
 */
export function wrapperOrBare(key: string, inner: Joi.ObjectSchema): Joi.Schema {
  return Joi.alternatives().conditional(Joi.object({ [key]: Joi.exist() }).unknown(), {
    then: Joi.object({ [key]: inner.required() }),
    otherwise: inner,
  });
}

/** PATCH bodies: `{updates: {...}}` or the bare fields, with at least one field to change. */
export function updatesBody(fields: Record<string, Joi.Schema>): Joi.Schema {
  return wrapperOrBare('updates', Joi.object(fields).min(1).messages({ 'object.min': 'must name at least one field to change' }));
}
