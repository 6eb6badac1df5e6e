/**
 * Secrets in the configuration: `$VAULT_<secretPath>/<key>` references found
 * in the merged layers, and the built-in reader that resolves them from the
 * vault (the removed `$ENC` form is refused with a way out).
 */
import { resolve } from 'node:path';
import { hint, isObject, setPath } from './layers.ts';
import type { Json, JsonObject, Sources } from './layers.ts';
import type { VaultConfig } from './schema.ts';
import { createVaultClient, readTokenFile } from './vault.ts';

/** A parsed `$VAULT_<secretPath>/<key>` reference found at `configKey`. */
export interface SecretRef {
  configKey: string;
  secretPath: string;
  key: string;
}

/** Replaces the built-in Vault reader (e.g. in other modules' tests). */
export type SecretReader = (ref: SecretRef, vault: Readonly<VaultConfig>) => Promise<string>;

const VAULT_PREFIX = '$VAULT_';
const ENC_PREFIX = '$ENC';

/** The vault references among the merged values, and every key written in a secret form (checked after resolution). */
export interface FoundSecrets {
  readonly refs: SecretRef[];
  readonly special: Set<string>;
}

export function findSecrets(merged: Json, sources: Sources, problems: string[]): FoundSecrets {
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
  return { refs, special };
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

export function defaultSecretReader(cwd: string): SecretReader {
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


/**
 * Reads every reference at once and writes each value in its place; answers which key came from which
 * reference, so a value that then fails validation can name its vault path. A failed read is a problem.
 */
export async function resolveSecrets(
  merged: JsonObject,
  refs: readonly SecretRef[],
  vault: Readonly<VaultConfig>,
  readSecret: SecretReader,
  sources: Sources,
  problems: string[],
): Promise<Map<string, SecretRef>> {
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
  return refOf;
}
