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
