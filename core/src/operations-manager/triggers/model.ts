/**
 * The operations-manager trigger (docs/decisions.md D24): what
 * starts an automation. Common fields, then those of each type. Bodies are
 * checked in two steps, `type` first, so the error names the fields of the
 * type the caller meant.
 */
import Joi from 'joi';
import { joiBody, joiObjectId, schemaProblems, summary, ValidationError } from '../../../../kernel/index.ts';
import type { Validator } from '../../../../kernel/index.ts';

export const TRIGGER_TYPES = ['endpoint', 'manual', 'schedule'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
export type MissedRuns = 'none' | 'last';

/** The named fields; TriggerDoc adds the index signature that lets it pass as a stored Doc. */
export interface TriggerFields {
  _id: string;
  name: string;
  description: string;
  type: TriggerType;
  enabled: boolean;
  actionType: 'automations';
  actionId: string;
  routeName?: string;
  verb?: 'POST';
  schema?: Record<string, unknown>;
  formId?: string | null;
  legacyWrapper?: boolean;
  /** Epoch milliseconds. */
  firstRunAt?: number;
  /** Milliseconds between runs; null runs once. */
  repeatInterval?: number | null;
  processMissedRuns?: MissedRuns;
  /** Epoch milliseconds of the next run; null when none is due (disabled, or a one-off that ran). */
  nextRunAt?: number | null;
  lastRunAt?: number | null;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
  /** Written by the scheduler: its claim, and how the last run went. */
  lockedAt?: number | null;
  lastFinishedAt?: number | null;
  failedAt?: number | null;
  failReason?: string | null;
  failCount?: number;
  _rev: number;
}

export interface TriggerDoc extends TriggerFields {
  [key: string]: unknown;
}

/** What a caller may set on a trigger of any type. */
export type TriggerInput = Partial<Omit<TriggerFields, '_rev' | (typeof BOOKKEEPING)[number]>>;

/** Kinds of ISO text a caller may give for `firstRunAt`; stored as epoch milliseconds like the platform. */
const epochMs = () =>
  Joi.alternatives()
    .try(Joi.number().integer().min(0).max(8.64e15), Joi.date().iso().custom((d: Date) => d.getTime()))
    .messages({ 'alternatives.match': 'must be epoch milliseconds or an ISO-8601 date' });

const common = {
  name: Joi.string().trim().min(1).max(200),
  description: Joi.string().allow('').max(10_000),
  enabled: Joi.boolean(),
  actionType: Joi.string().valid('automations'),
  actionId: joiObjectId(),
};

const byType: Record<TriggerType, Record<string, Joi.Schema>> = {
  endpoint: {
    routeName: Joi.string().pattern(/^[A-Za-z0-9._~-]+$/).max(200).messages({ 'string.pattern.base': 'must be a URL path segment (letters, digits, . _ ~ -)' }),
    // The platform's route is runEndpointTriggerWithPost; other verbs have no route here.
    verb: Joi.string().uppercase().valid('POST'),
    schema: Joi.object().unknown(true),
  },
  manual: {
    formId: Joi.string().max(200).allow(null),
    legacyWrapper: Joi.boolean(),
  },
  schedule: {
    firstRunAt: epochMs(),
    repeatInterval: Joi.number().integer().min(1000).max(10 * 365 * 24 * 3_600_000).allow(null),
    processMissedRuns: Joi.string().valid('none', 'last'),
  },
};

const REQUIRED: Record<TriggerType, readonly string[]> = { endpoint: ['routeName'], manual: [], schedule: ['firstRunAt'] };
const DEFAULTS: Record<TriggerType, Partial<TriggerDoc>> = {
  endpoint: { verb: 'POST', schema: {} },
  manual: { formId: null, legacyWrapper: false },
  schedule: { repeatInterval: null, processMissedRuns: 'none' },
};

/** Bookkeeping an export carries (the scheduler's included); an import accepts it and starts afresh. */
export const BOOKKEEPING = ['created', 'createdBy', 'lastUpdated', 'lastUpdatedBy', 'nextRunAt', 'lastRunAt', 'lastFinishedAt', 'failedAt', 'failReason', 'failCount', 'lockedAt'] as const;
const exported: Record<string, Joi.Schema> = { _id: joiObjectId() };
for (const k of BOOKKEEPING) exported[k] = Joi.any();

const typeOnly = Joi.object({ type: Joi.string().valid(...TRIGGER_TYPES).required().messages({ 'any.only': `must be one of ${TRIGGER_TYPES.join(', ')} (eventSystem triggers are not supported)` }) }).unknown(true);

function readType(raw: unknown, at: string): TriggerType {
  const { error, value } = typeOnly.validate(raw, { errors: { wrap: { label: false } } });
  if (error) throw new ValidationError(`Invalid ${at}: type ${error.details[0]!.message.replace(/^"?type"? /, '')}`, [{ parameter: `${at}.type`, message: error.details[0]!.message.replace(/^"?type"? /, '') }]);
  return (value as { type: TriggerType }).type;
}

function fullSchema(type: TriggerType, forImport: boolean): Joi.ObjectSchema {
  const keys: Record<string, Joi.Schema> = { type: Joi.string().valid(type), ...common, ...byType[type], ...(forImport ? exported : {}) };
  for (const k of ['name', 'actionId', ...REQUIRED[type]]) keys[k] = keys[k]!.required();
  return Joi.object(keys);
}

const checkSchema = (schema: unknown, at: string): void => {
  if (schema === undefined) return;
  const problems = schemaProblems(schema, at);
  if (problems.length > 0) throw new ValidationError(`Invalid ${at}: ${summary(problems)}`, problems);
};

/** A complete trigger as given to create or import, with the defaults of its type filled in. */
export function readTrigger(raw: unknown, at = 'body', forImport = false): TriggerInput {
  const type = readType(raw, at);
  const value = { enabled: true, description: '', actionType: 'automations' as const, ...DEFAULTS[type], ...validateAt(fullSchema(type, forImport), raw, at) };
  if (type === 'endpoint') checkSchema(value.schema, `${at}.schema`);
  return value;
}

function validateAt(schema: Joi.ObjectSchema, raw: unknown, at: string): TriggerInput {
  // joiBody names problems `body.x`; an import item is named by its place in the list.
  try {
    return joiBody<TriggerInput>(schema).validate(raw);
  } catch (err) {
    if (!(err instanceof ValidationError) || at === 'body') throw err;
    const details = err.details.map((d) => ({ ...d, parameter: d.parameter.replace(/^body/, at) }));
    throw new ValidationError(`Invalid ${at}: ${details.map((d) => `${d.parameter} ${d.message}`).join('; ')}`, details);
  }
}

export const createBody: Validator<unknown, TriggerInput> = { validate: (raw) => readTrigger(raw) };

/** A change: the keys of the trigger's type only, known once the trigger is read, so checked in the service. */
export function readPatch(type: TriggerType, raw: unknown): TriggerInput {
  const schema = Joi.object({ type: Joi.string().valid(type).messages({ 'any.only': 'cannot change; create a new trigger instead' }), ...common, ...byType[type] }).min(1);
  const patch = joiBody<TriggerInput>(schema).validate(raw);
  if (type === 'endpoint' && patch.schema !== undefined) checkSchema(patch.schema, 'body.schema');
  return patch;
}

/** A patch body is only shape-checked by the route; which keys apply depends on the stored trigger's type. */
export const patchBody: Validator<unknown, Record<string, unknown>> = {
  validate: (raw) => joiBody<Record<string, unknown>>(Joi.object().unknown(true).min(1)).validate(raw),
};

/** What a caller could set on this trigger: a copy of it without identity and bookkeeping. */
export function settable(t: TriggerDoc): TriggerInput {
  const out: Record<string, unknown> = { ...t };
  for (const k of ['_id', '_rev', ...BOOKKEEPING]) delete out[k];
  return out as TriggerInput;
}
