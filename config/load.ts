// The only module that reads process.env: everything else receives the frozen
// AppConfig, so tests and services never depend on the ambient environment.
import { access, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidationError } from 'joi';
import { envFormsOf, envVarsOf } from './declare.ts';
import { CONFIG_KEYS } from './keys.ts';
import { configDefaults, configSchema } from './schema.ts';
import type { AppConfig, DeclaredConfig, VaultConfig } from './schema.ts';
import { parseSize } from './size.ts';
import { createVaultClient, readTokenFile } from './vault.ts';

export type { AppConfig } from './schema.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
  /** One line per problem, each starting `config: `. */
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.problems = Object.freeze([...problems]);
  }
}

/**
 * Environment variable → config key, from the declaration in keys.ts.
 * Environment variables win over every file. An empty variable counts as
 * unset, so `FOO=` in a compose file does not turn a default into an empty string.
 */
export const ENV_VARS: Readonly<Record<string, string>> = envVarsOf(CONFIG_KEYS);
const ENV_FORMS = envFormsOf(CONFIG_KEYS);

/** A parsed `$VAULT_<secretPath>/<key>` reference found at `configKey`. */
export interface SecretRef {
  configKey: string;
  secretPath: string;
  key: string;
}

/** Replaces the built-in Vault reader (e.g. in other modules' tests). */
export type SecretReader = (ref: SecretRef, vault: Readonly<VaultConfig>) => Promise<string>;

export interface LoadConfigOptions {
  /** Defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Directory holding local.json and <NODE_ENV>.json; defaults to this module's directory. */
  dir?: string;
  /** Base for relative paths (dataDir, vault.tokenFile); defaults to process.cwd(). */
  cwd?: string;
  readSecret?: SecretReader;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const VAULT_PREFIX = '$VAULT_';
const ENC_PREFIX = '$ENC';
const DEFAULT_DIR = fileURLToPath(new URL('.', import.meta.url));
/** The source of a value nobody set. */
const DEFAULTS = 'the defaults';

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Where each key's value came from: an env variable name or a file name. */
type Sources = Map<string, string>;

function hint(sources: Sources, path: string): string {
  let key = path;
  let source = sources.get(key);
  // An item of a list (`http.trustedProxies.1`) came from where its list did.
  while (source === undefined && key.includes('.')) {
    key = key.slice(0, key.lastIndexOf('.'));
    source = sources.get(key);
  }
  if (source === undefined) return '';
  if (source === DEFAULTS) return ' (default)';
  return Object.hasOwn(ENV_VARS, source) ? ` (${source})` : ` (in ${source})`;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

async function readLayer(dir: string, name: string): Promise<JsonObject | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, name), 'utf8');
  } catch (err) {
    if (isObject(err) && err.code === 'ENOENT') return undefined;
    throw new ConfigError([`config: cannot read ${join(dir, name)}`]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // Only the position is kept: V8's message quotes the surrounding text,
    // which may be a plaintext secret someone put in local.json.
    const pos = err instanceof Error ? /position (\d+)/.exec(err.message)?.[1] : undefined;
    throw new ConfigError([`config: ${name} is not valid JSON${pos === undefined ? '' : ` (near character ${pos})`}`]);
  }
  if (!isObject(parsed)) throw new ConfigError([`config: ${name} must hold a JSON object`]);
  return parsed;
}

function record(value: Json, path: string, label: string, sources: Sources): void {
  sources.set(path, label);
  if (isObject(value)) for (const [k, v] of Object.entries(value)) record(v, `${path}.${k}`, label, sources);
}

function mergeInto(target: JsonObject, layer: JsonObject, label: string, sources: Sources, prefix: string, problems: string[]): void {
  for (const [k, v] of Object.entries(layer)) {
    const path = prefix === '' ? k : `${prefix}.${k}`;
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') {
      problems.push(`config: ${path} (in ${label}) is not allowed`);
      continue;
    }
    const existing = target[k];
    if (isObject(existing) && isObject(v)) {
      sources.set(path, label);
      mergeInto(existing, v, label, sources, path, problems);
    } else {
      target[k] = structuredClone(v);
      record(v, path, label, sources);
    }
  }
}

/** Sets a dotted path; numeric parts index into arrays (a `$VAULT_` secret inside `adapters.0.credentials`). */
function setPath(target: JsonObject, path: string, value: Json): void {
  const parts = path.split('.');
  let node: JsonObject | Json[] = target;
  for (const part of parts.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(node) ? node[Number(part)] : node[part];
    if (isObject(next) || Array.isArray(next)) node = next;
    else if (Array.isArray(node)) node = node[Number(part)] = {};
    else node = node[part] = {};
  }
  const last = parts[parts.length - 1]!;
  if (Array.isArray(node)) node[Number(last)] = value;
  else node[last] = value;
}

function collectStrings(value: Json, path: string, out: Array<[string, string]>): void {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => collectStrings(v, `${path}.${i}`, out));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) collectStrings(v, path === '' ? k : `${path}.${k}`, out);
}

function parseVaultRef(configKey: string, value: string): SecretRef | undefined {
  const rest = value.slice(VAULT_PREFIX.length);
  const cut = rest.lastIndexOf('/');
  const secretPath = rest.slice(0, cut);
  const key = rest.slice(cut + 1);
  const segments = secretPath.split('/');
  if (cut <= 0 || key === '' || segments.some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return { configKey, secretPath, key };
}

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

function defaultSecretReader(cwd: string): SecretReader {
  const cache = new Map<string, Promise<Record<string, unknown>>>();
  let tokenPromise: Promise<string> | undefined;
  return async (ref, vault) => {
    if (vault.url === null) throw new Error('the vault is not configured: set vault.url (VAULT_ADDR)');
    if (vault.token === null && vault.tokenFile === null) {
      throw new Error('no vault token: set vault.token (VAULT_TOKEN) or vault.tokenFile (VAULT_TOKEN_FILE)');
    }
    const { url, token, tokenFile } = vault;
    tokenPromise ??= token !== null ? Promise.resolve(token) : readTokenFile(resolve(cwd, tokenFile!));
    const client = createVaultClient({ url, token: await tokenPromise, endpoint: vault.endpoint, timeoutMs: vault.timeoutMs });
    // Several keys usually share one secret; read it once.
    let pending = cache.get(ref.secretPath);
    if (!pending) cache.set(ref.secretPath, (pending = client.read(ref.secretPath)));
    const data = await pending;
    const value = data[ref.key];
    const where = client.describe(ref.secretPath);
    if (value === undefined) throw new Error(`vault secret at ${where} has no key "${ref.key}"`);
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new Error(`vault secret at ${where} key "${ref.key}" is not a string, number or boolean`);
  };
}

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
  for (const [name, key] of Object.entries(ENV_VARS)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const form = ENV_FORMS.get(name);
    if (form === 'json') {
      try {
        setPath(merged, key, JSON.parse(value) as Json);
      } catch {
        problems.push(`config: ${key} (${name}) must be JSON`);
        continue;
      }
    } else if (form === 'list') {
      setPath(merged, key, value.split(',').map((item) => item.trim()).filter((item) => item !== ''));
    } else setPath(merged, key, value);
    sources.set(key, name);
  }

  const strings: Array<[string, string]> = [];
  collectStrings(merged, '', strings);
  const refs: SecretRef[] = [];
  const special = new Set<string>();
  for (const [key, value] of strings) {
    if (value.startsWith(ENC_PREFIX)) {
      special.add(key);
      problems.push(`config: ${key}${hint(sources, key)} uses the $ENC form, which was removed in 2021.2; store the secret in the vault and write $VAULT_<path>/<key> instead`);
    } else if (value.startsWith(VAULT_PREFIX)) {
      special.add(key);
      const ref = parseVaultRef(key, value);
      if (!ref) problems.push(`config: ${key}${hint(sources, key)} must be written $VAULT_<secret path>/<key>`);
      else if (key.startsWith('vault.')) problems.push(`config: ${key}${hint(sources, key)} cannot itself come from the vault`);
      else refs.push(ref);
    }
  }

  // A reference's own value is checked after resolution, so its type errors are
  // skipped here; everything else is reported now, together.
  const first = configSchema.validate(merged, VALIDATE);
  problems.push(...validationProblems(first.error, (p) => hint(sources, p), (p, type) => special.has(p) && type !== 'object.unknown'));
  if (problems.length > 0) throw new ConfigError(problems);

  let result = first.value;
  if (refs.length > 0) {
    const vault = first.value.vault;
    const readSecret = opts.readSecret ?? defaultSecretReader(cwd);
    const secrets = await Promise.allSettled(refs.map((ref) => readSecret(ref, vault)));
    const refOf = new Map<string, SecretRef>();
    secrets.forEach((outcome, i) => {
      const ref = refs[i]!;
      refOf.set(ref.configKey, ref);
      if (outcome.status === 'fulfilled') {
        setPath(merged, ref.configKey, outcome.value);
      } else {
        const reason = outcome.reason instanceof Error ? outcome.reason.message : 'unknown error';
        problems.push(`config: ${ref.configKey}${hint(sources, ref.configKey)} could not be read from the vault (path ${ref.secretPath}, key ${ref.key}): ${reason}`);
      }
    });
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
