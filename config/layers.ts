/**
 * The layers a configuration is merged from, weakest first: the declared
 * defaults, local.json, <NODE_ENV>.json, then environment variables. Each
 * value remembers where it came from, so a problem can name the file or
 * variable to fix. The environment itself is handed in by load.ts.
 */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { envFormsOf, envVarsOf } from './declare.ts';
import { CONFIG_KEYS } from './keys.ts';

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

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The source of a value nobody set. */
export const DEFAULTS = 'the defaults';

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Where each key's value came from: an env variable name or a file name. */
export type Sources = Map<string, string>;

export function hint(sources: Sources, path: string): string {
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

export async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

export async function readLayer(dir: string, name: string): Promise<JsonObject | undefined> {
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

export function mergeInto(target: JsonObject, layer: JsonObject, label: string, sources: Sources, prefix: string, problems: string[]): void {
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
export function setPath(target: JsonObject, path: string, value: Json): void {
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

/** Sets each environment variable that is set and not empty, in the form its key declares. */
export function applyEnv(merged: JsonObject, env: Readonly<Record<string, string | undefined>>, sources: Sources, problems: string[]): void {
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
}
