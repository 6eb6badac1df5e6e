/**
 * Tokens are 32 random bytes in hex: URL-safe, so clients can put them in a
 * query string unencoded. Only their SHA-256 is stored.
 */
import { createHash, randomBytes } from 'node:crypto';

export function newToken(): string {
  return randomBytes(32).toString('hex');
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A stable 24-hex id derived from a name, for documents that must keep one id across restarts and stores. */
export function stableId(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 24);
}
