// The joi pieces several config keys share, and the shape of an adapter entry.
// Messages never echo the offending value: after $VAULT_ resolution the value
// may be a secret, and the same schema validates it.
import Joi from 'joi';

export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The sizes `http.bodyLimit` accepts; `config/size.ts` reads the same form into bytes. */
export const SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)$/i;

export const port = (): Joi.NumberSchema => Joi.number().integer().min(0).max(65535);
/** A whole number from `min` to `max`. */
export const whole = (min: number, max?: number): Joi.NumberSchema => (max === undefined ? Joi.number().integer().min(min) : Joi.number().integer().min(min).max(max));
export const count = (): Joi.NumberSchema => whole(1);

/** An address to listen on: an IP address (0.0.0.0 and :: for every interface) or a host name. */
export const listenHost = (): Joi.AlternativesSchema =>
  Joi.alternatives()
    .try(Joi.string().ip({ cidr: 'forbidden' }), Joi.string().hostname())
    .messages({ 'alternatives.match': 'must be an IP address or a host name to listen on' });

export const httpUrl = (): Joi.StringSchema =>
  Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .messages({ 'string.uri': 'must be an http:// or https:// URL', 'string.uriCustomScheme': 'must be an http:// or https:// URL' });

export const bodySize = (): Joi.StringSchema =>
  Joi.string().pattern(SIZE_PATTERN).messages({ 'string.pattern.base': 'must be a size like 512kb or 1mb' });

/** An adapter instance (docs/decisions.md D22): an orchestrator (`nso`) or an automation gateway (`gateway`). */
export interface AdapterConfig {
  /** The `adapterId` of the relay routes; may contain spaces. */
  name: string;
  type: 'nso' | 'gateway';
  baseUrl: string;
  credentials: { username: string; password: string } | { token: string } | null;
  timeoutMs: number;
  tls: { rejectUnauthorized: boolean; ca: string | null };
  enabled: boolean;
}

export interface Brownout {
  operations: string[];
  from: string;
  until: string;
}

// Entries are written by operators, so what they may leave out is marked optional with its default.
export const adapterEntry = (): Joi.ObjectSchema<AdapterConfig> =>
  Joi.object<AdapterConfig>({
    name: Joi.string().min(1).max(200).pattern(/^[^/]+$/).required().messages({ 'string.pattern.base': 'must not contain /' }),
    type: Joi.string().valid('nso', 'gateway').required(),
    baseUrl: httpUrl().required(),
    credentials: Joi.alternatives()
      .try(Joi.object({ username: Joi.string().required(), password: Joi.string().required() }), Joi.object({ token: Joi.string().required() }))
      .allow(null)
      .optional()
      .default(null),
    timeoutMs: count().optional().default(10000),
    tls: Joi.object({ rejectUnauthorized: Joi.boolean().optional().default(true), ca: Joi.string().allow(null).optional().default(null) })
      .optional()
      .default({ rejectUnauthorized: true, ca: null }),
    enabled: Joi.boolean().optional().default(true),
  });

/**
 * When the gateway stops serving a removed operation (decision 31): a release
 * or an ISO date. Only the form is checked here; whether the calendar dates
 * the release, whether the date is a real one and which operations exist,
 * the gateway checks at its start (gateway/src/legacy/serve-until.ts).
 */
export const serveUntilValue = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^(?:\d{4}\.\d+|\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?)?)$/)
    .messages({ 'string.pattern.base': 'must be a release like 2024.1 or an ISO date like 2024-06-30 (or 2024-06-30T12:00:00Z)' });

export const brownoutEntry = (): Joi.ObjectSchema<Brownout> =>
  Joi.object<Brownout>({ operations: Joi.array().items(Joi.string()).min(1).required(), from: Joi.string().isoDate().required(), until: Joi.string().isoDate().required() });
