// The configuration's types and joi schema, both made from the declaration in
// keys.ts, so a key cannot be in one and missing from the other.
import type Joi from 'joi';
import { defaultsOf, schemaOf } from './declare.ts';
import type { ConfigTree } from './declare.ts';
import { CONFIG_KEYS } from './keys.ts';

export { LOG_LEVELS } from './rules.ts';
export type { AdapterConfig, Brownout, LogLevel } from './rules.ts';

/** The keys as declared: `{'core.port': KeySpec<number>, …}` becomes `{core: {port: number, …}, …}`. */
export type DeclaredConfig = ConfigTree<typeof CONFIG_KEYS>;

/**
 * What `loadConfig()` returns: the declared keys, and what the loader works
 * out from them once so that no reader does it again.
 */
export type AppConfig = DeclaredConfig & {
  http: {
    /** `http.bodyLimit` in bytes: the one number every body reader uses. */
    bodyLimitBytes: number;
  };
};

export type SearchConfig = AppConfig['search'];
export type VaultConfig = AppConfig['vault'];

export const configSchema: Joi.ObjectSchema<DeclaredConfig> = schemaOf(CONFIG_KEYS);

/** Every key's default, nested by path: the weakest layer of the configuration. A fresh copy each call. */
export function configDefaults(): DeclaredConfig {
  return defaultsOf(CONFIG_KEYS) as unknown as DeclaredConfig;
}
