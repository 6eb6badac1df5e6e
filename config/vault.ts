// A minimal HashiCorp Vault KV v2 reader: just enough to resolve `$VAULT_`
// config values at start-up.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import got, { RequestError } from 'got';

export interface VaultClientOptions {
  url: string;
  token: string;
  /** KV v2 mount plus `data`, e.g. `secret/data`. */
  endpoint: string;
  timeoutMs: number;
}

/**
 * Messages name the vault address and path but never the token or any secret
 * value, and no underlying error is attached as `cause`: got's errors carry the
 * request options, headers included, and would print the token when inspected.
 */
export class VaultError extends Error {
  override name = 'VaultError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface VaultClient {
  /** Reads the `data.data` object of a KV v2 secret. */
  read(secretPath: string): Promise<Record<string, unknown>>;
  /** The request path for a secret, as shown in error messages. */
  describe(secretPath: string): string;
}

const trimSlashes = (s: string): string => s.replace(/^\/+|\/+$/g, '');

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function vaultMessages(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed) && Array.isArray(parsed.errors)) {
      const texts = parsed.errors.filter((e): e is string => typeof e === 'string');
      if (texts.length > 0) return `: ${texts.join('; ').slice(0, 200)}`;
    }
  } catch {
    // A non-JSON error page says nothing useful; the status is reported instead.
  }
  return '';
}

export function createVaultClient(opts: VaultClientOptions): VaultClient {
  let origin: string;
  try {
    // Only the origin is ever shown, so credentials in the URL cannot leak.
    origin = new URL(opts.url).origin;
  } catch {
    throw new VaultError('vault address is not a valid URL');
  }
  const base = opts.url.replace(/\/+$/, '');
  const mount = trimSlashes(opts.endpoint);
  const requestPath = (secretPath: string): string =>
    `/v1/${mount}/${trimSlashes(secretPath).split('/').map(encodeURIComponent).join('/')}`;
  const describe = (secretPath: string): string => `${origin}${requestPath(secretPath)}`;

  async function read(secretPath: string): Promise<Record<string, unknown>> {
    const where = describe(secretPath);
    let status: number;
    let body: string;
    try {
      const res = await got(`${base}${requestPath(secretPath)}`, {
        headers: { 'X-Vault-Token': opts.token, accept: 'application/json' },
        timeout: { request: opts.timeoutMs },
        throwHttpErrors: false,
        // A 4xx is a definite answer (bad token, wrong path); only transient
        // network hiccups are worth one quick retry. Timeouts are not retried
        // so that timeoutMs stays the bound a user configured.
        retry: { limit: 1, methods: ['GET'], statusCodes: [], errorCodes: ['ECONNRESET', 'EPIPE', 'EAI_AGAIN'], backoffLimit: 200 },
        responseType: 'text',
      });
      status = res.statusCode;
      body = res.body;
    } catch (err) {
      const code = err instanceof RequestError ? err.code : 'unknown error';
      const reason = code === 'ETIMEDOUT' ? `no answer within ${opts.timeoutMs} ms` : code;
      throw new VaultError(`vault unreachable at ${where} (${reason})`);
    }

    if (status === 403) throw new VaultError(`vault refused the token for ${where} (403${vaultMessages(body)})`, 403);
    if (status === 404) throw new VaultError(`vault has no secret at ${where} (404)`, 404);
    if (status < 200 || status >= 300) throw new VaultError(`vault answered ${status} for ${where}${vaultMessages(body)}`, status);

    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new VaultError(`vault answer for ${where} is not JSON`, status);
    }
    const data = isRecord(parsed) && isRecord(parsed.data) ? parsed.data.data : undefined;
    if (!isRecord(data)) {
      // KV v1 mounts and deleted versions answer without data.data.
      throw new VaultError(`vault answer for ${where} has no data.data (is ${mount} a KV v2 mount?)`, status);
    }
    return data;
  }

  return { read, describe };
}

/** Reads a token file (as written by a Vault agent), relative to the working directory. */
export async function readTokenFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(resolve(file), 'utf8');
  } catch (err) {
    const code = isRecord(err) && typeof err.code === 'string' ? err.code : 'unreadable';
    throw new VaultError(`cannot read vault token file ${file} (${code})`);
  }
  const token = text.trim();
  if (token === '') throw new VaultError(`vault token file ${file} is empty`);
  return token;
}
