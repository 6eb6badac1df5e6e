/**
 * Adapter instances (docs/decisions.md D22): those of the config (`adapters`,
 * env `ADAPTERS`) and those stored as documents in the `adapters` collection.
 *
 * On a name clash the config wins and the document is ignored: the config is
 * what the operator deployed with (and where `$VAULT_` secrets are resolved),
 * so a stored document must not be able to redirect a configured adapter's
 * traffic or credentials.
 */
import Joi from 'joi';
import type { AdapterConfig } from '../../../config/schema.ts';
import type { Condition, Doc, FieldDef, Logger, Store } from '../../../kernel/index.ts';
import { ADAPTERS } from '../store/collections.ts';

export type AdapterSource = 'config' | 'store';

export interface Adapter extends AdapterConfig {
  readonly source: AdapterSource;
}

export interface AdapterRegistry {
  /** The adapter of this name (config first), or null. Disabled adapters are answered too. */
  find(name: string): Promise<Adapter | null>;
  /** Every adapter, config ones first, then stored ones in name order. */
  list(): Promise<Adapter[]>;
}

export interface RegistryDeps {
  readonly configured: readonly AdapterConfig[];
  readonly store: Store;
  readonly logger: Logger;
}

// The adapters collection has no search registry; its unique `name` index
// gives the SQLite store a generated column, so this condition is indexed.
const NAME: FieldDef = { path: 'name', type: 'string', array: false, arrayOfObjects: null, dateEncoding: null, sortable: true, textSearch: false };

/** Stored documents follow the config entry's rules and defaults (config/schema.ts); other properties (`_id`, notes) are ignored. */
const documentSchema = Joi.object({
  name: Joi.string().min(1).max(200).pattern(/^[^/]+$/).required(),
  type: Joi.string().valid('nso', 'gateway').required(),
  baseUrl: Joi.string().uri({ scheme: ['http', 'https'] }).required(),
  credentials: Joi.alternatives()
    .try(Joi.object({ username: Joi.string().required(), password: Joi.string().required() }), Joi.object({ token: Joi.string().required() }))
    .allow(null)
    .default(null),
  timeoutMs: Joi.number().integer().min(1).default(10000),
  tls: Joi.object({ rejectUnauthorized: Joi.boolean().default(true), ca: Joi.string().allow(null).default(null) }).default({ rejectUnauthorized: true, ca: null }),
  enabled: Joi.boolean().default(true),
}).unknown(true);

const STORED_LIMIT = 1000;

export function createAdapterRegistry(deps: RegistryDeps): AdapterRegistry {
  const configured = new Map<string, Adapter>(deps.configured.map((a) => [a.name, { ...a, source: 'config' }]));
  const collection = deps.store.collection(ADAPTERS.name);

  function fromDocument(doc: Doc): Adapter | null {
    const { value, error } = documentSchema.validate(doc, { abortEarly: true, convert: true });
    if (error) {
      // The value is not logged: it may hold credentials.
      deps.logger.warn('adapter document ignored', { id: doc['_id'], problem: error.details[0]?.path.join('.') ?? 'invalid' });
      return null;
    }
    const v = value as AdapterConfig;
    return { name: v.name, type: v.type, baseUrl: v.baseUrl, credentials: v.credentials, timeoutMs: v.timeoutMs, tls: v.tls, enabled: v.enabled, source: 'store' };
  }

  return {
    async find(name) {
      const fromConfig = configured.get(name);
      if (fromConfig) return fromConfig;
      const where: Condition = { kind: 'compare', op: 'eq', field: NAME, value: name };
      const page = await collection.search({ where, sort: [{ field: NAME, direction: 1 }], skip: 0, limit: 1 });
      const doc = page.docs[0];
      return doc ? fromDocument(doc) : null;
    },
    async list() {
      const page = await collection.search({ where: null, sort: [{ field: NAME, direction: 1 }], skip: 0, limit: STORED_LIMIT });
      const stored = page.docs.map(fromDocument).filter((a): a is Adapter => a !== null && !configured.has(a.name));
      return [...configured.values(), ...stored];
    },
  };
}

/** The base URL as it may be shown: without user information, which would be a credential. */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    if (url.username === '' && url.password === '') return baseUrl;
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return baseUrl;
  }
}
