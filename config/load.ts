// The only module that reads process.env: everything else receives the frozen
// AppConfig, so tests and services never depend on the ambient environment.
// The layers it merges are read in layers.ts, the vault references in secrets.ts.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidationError } from 'joi';
import { applyEnv, ConfigError, DEFAULTS, exists, hint, mergeInto, readLayer } from './layers.ts';
import type { JsonObject, Sources } from './layers.ts';
import { configDefaults, configSchema } from './schema.ts';
import type { AppConfig, DeclaredConfig } from './schema.ts';
import { defaultSecretReader, findSecrets, resolveSecrets } from './secrets.ts';
import type { SecretReader } from './secrets.ts';
import { parseSize } from './size.ts';

export type { AppConfig } from './schema.ts';
export { ConfigError, ENV_VARS } from './layers.ts';
export type { SecretReader, SecretRef } from './secrets.ts';

export interface LoadConfigOptions {
  /** Defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Directory holding local.json and <NODE_ENV>.json; defaults to this module's directory. */
  dir?: string;
  /** Base for relative paths (dataDir, vault.tokenFile); defaults to process.cwd(). */
  cwd?: string;
  readSecret?: SecretReader;
}

const DEFAULT_DIR = fileURLToPath(new URL('.', import.meta.url));

function validationProblems(error: ValidationError | undefined, describe: (path: string) => string, skip: (path: string, type: string) => boolean): string[] {
  if (!error) return [];
  const out: string[] = [];
  for (const d of error.details) {
    const path = d.path.join('.');
    if (skip(path, d.type)) continue;
    out.push(`config: ${path === '' ? '(root)' : path}${describe(path)} ${d.message}`);
  }
  return out;
}

const VALIDATE = { convert: true, abortEarly: false, errors: { label: false } } as const;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Adds what is worked out from the keys once, here, so that no reader works it out again (differently). */
function withDerived(config: DeclaredConfig): AppConfig {
  return { ...config, http: { ...config.http, bodyLimitBytes: parseSize(config.http.bodyLimit) } };
}

export async function loadConfig(opts: LoadConfigOptions = {}): Promise<Readonly<AppConfig>> {
  const env = opts.env ?? process.env;
  const dir = opts.dir ?? DEFAULT_DIR;
  const cwd = opts.cwd ?? process.cwd();
  const problems: string[] = [];

  // Weakest first, so each later layer overrides the one before.
  const nodeEnv = env.NODE_ENV ?? '';
  if (nodeEnv !== '' && !/^[A-Za-z0-9_-]+$/.test(nodeEnv)) {
    throw new ConfigError([`config: NODE_ENV must be a plain name (letters, digits, - and _) because it names config/<NODE_ENV>.json`]);
  }
  // A default.json left from before the keys were declared in code would be
  // silently ignored, and whatever someone changed in it lost; say so instead.
  if (await exists(join(dir, 'default.json'))) {
    throw new ConfigError([`config: ${join(dir, 'default.json')} is no longer read: every default is declared in config/keys.ts; move what you changed in it to local.json`]);
  }
  const layers: Array<[string, JsonObject | undefined]> = [
    [DEFAULTS, configDefaults() as unknown as JsonObject],
    ['local.json', await readLayer(dir, 'local.json')],
  ];
  if (nodeEnv !== '') layers.push([`${nodeEnv}.json`, await readLayer(dir, `${nodeEnv}.json`)]);

  const merged: JsonObject = {};
  const sources: Sources = new Map();
  for (const [name, layer] of layers) if (layer) mergeInto(merged, layer, name, sources, '', problems);
  applyEnv(merged, env, sources, problems);

  const { refs, special } = findSecrets(merged, sources, problems);

  // A reference's own value is checked after resolution, so its type errors are
  // skipped here; everything else is reported now, together.
  const first = configSchema.validate(merged, VALIDATE);
  problems.push(...validationProblems(first.error, (p) => hint(sources, p), (p, type) => special.has(p) && type !== 'object.unknown'));
  if (problems.length > 0) throw new ConfigError(problems);

  let result = first.value;
  if (refs.length > 0) {
    const vault = first.value.vault;
    const refOf = await resolveSecrets(merged, refs, vault, opts.readSecret ?? defaultSecretReader(cwd), sources, problems);
    if (problems.length > 0) {
      // Belt and braces: no reader, built-in or injected, may echo the token.
      const token = vault.token;
      throw new ConfigError(token === null ? problems : problems.map((p) => p.split(token).join('[redacted]')));
    }
    const second = configSchema.validate(merged, VALIDATE);
    const describe = (p: string): string => {
      const ref = refOf.get(p);
      return ref ? ` (from vault path ${ref.secretPath}, key ${ref.key})` : hint(sources, p);
    };
    const late = validationProblems(second.error, describe, () => false);
    if (late.length > 0) throw new ConfigError(late);
    result = second.value;
  }

  result.dataDir = resolve(cwd, result.dataDir);
  // Moving the core with CORE_PORT alone should not strand the gateway on the
  // old default address.
  if (sources.get('core.url') === DEFAULTS && sources.get('core.port') !== DEFAULTS) {
    result.core.url = `http://127.0.0.1:${result.core.port}`;
  }
  return deepFreeze(withDerived(result));
}
