/**
 * Tokens are 32 random bytes in hex: URL-safe, so clients can put them in a
 * query string unencoded. Only their SHA-256 is stored.
 */
import { hash, randomBytes } from 'node:crypto';

export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** Every authenticated call hashes its token: the one-shot form makes no Hash object. */
export function tokenHash(token: string): string {
  return hash('sha256', token, 'hex');
}
