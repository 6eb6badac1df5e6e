/**
 * Inputs of the service catalog's operations. The interface gives no bodies,
 * so these shapes are this project's (docs/service-catalog.md); bodies refuse
 * properties they do not define, so a misspelt field is an error rather than
 * a silently ignored one.
 */
import Joi from 'joi';
import { joiBody, joiObjectId, joiParams, joiQuery } from '../../../kernel/index.ts';
import type { Validator } from '../../../kernel/index.ts';
import { pageParams } from '../http/list-query.ts';
import type { ListLimits } from '../http/list-query.ts';

export interface ServiceFields {
  name?: string;
  description?: string;
  workflow?: string;
  formId?: string;
  groups?: string[];
}

export interface NewService extends ServiceFields {
  name: string;
  workflow: string;
}

export interface NewForm {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  uiSchema: Record<string, unknown>;
}

export interface AddServiceBody {
  service: NewService;
  form?: NewForm;
}

export interface UpdateServiceBody {
  service: ServiceFields & { _id: string };
  form?: NewForm;
}

export interface OrderBody {
  serviceId?: string;
  service_id?: string;
  name?: string;
  formData: Record<string, unknown>;
  description?: string;
}

export interface Page {
  limit: number;
  skip: number;
}

export const MAX_NAME_LENGTH = 256;

const name = Joi.string()
  .min(1)
  .max(MAX_NAME_LENGTH)
  .pattern(/^\S(?:.*\S)?$/)
  .messages({ 'string.pattern.base': 'must not be empty or start or end with a space' });

const serviceFields = {
  name,
  description: Joi.string().allow('').max(4096),
  workflow: Joi.string().min(1).max(MAX_NAME_LENGTH),
  formId: joiObjectId(),
  groups: Joi.array().items(joiObjectId()).unique().max(100),
};

// The schema's own validity is checked by ajv (form-schema.ts), which names what is wrong with it.
const form = Joi.object<NewForm>({
  name: name.required(),
  description: Joi.string().allow('').max(4096).default(''),
  schema: Joi.object().unknown(true).required(),
  uiSchema: Joi.object().unknown(true).default({}),
});

export const addServiceBody = joiBody<AddServiceBody>(
  Joi.object({
    service: Joi.object({ ...serviceFields, name: name.required(), workflow: serviceFields.workflow.required(), description: serviceFields.description.default(''), groups: serviceFields.groups.default([]) }).required(),
    form,
  }),
);

export const updateServiceBody = joiBody<UpdateServiceBody>(
  Joi.object({
    service: Joi.object({ ...serviceFields, _id: joiObjectId().required() }).required(),
    form,
  }),
);

export const orderBody = joiBody<OrderBody>(
  Joi.object({
    serviceId: joiObjectId(),
    service_id: joiObjectId(),
    name: Joi.string().min(1).max(MAX_NAME_LENGTH),
    formData: Joi.object().unknown(true).default({}),
    description: Joi.string().allow('').max(4096),
  })
    .xor('serviceId', 'service_id', 'name')
    .messages({ 'object.missing': 'must name the service by serviceId, service_id or name', 'object.xor': 'must name the service once: serviceId, service_id or name' }),
);

// A POST whose path says everything; clients of POST routes tend to send `{}`, which is all it accepts.
export const emptyBody = joiBody<Record<string, never>>(Joi.object({}));

export const idParam = (key: string) => joiParams<Record<string, string>>(Joi.object({ [key]: joiObjectId().required() }));

// `all` lists every service; anything else is a part of the name (see docs).
export const filterParam = joiParams<{ filter: string }>(Joi.object({ filter: Joi.string().min(1).max(MAX_NAME_LENGTH).required() }));

export function pageQuery(limits: ListLimits): Validator<string, Page> {
  return joiQuery<Page>(Joi.object(pageParams(limits)));
}

export const serviceModelsQuery = joiQuery<{ adapterId?: string }>(Joi.object({ adapterId: Joi.string().min(1).max(200) }));
