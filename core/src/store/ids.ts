/** New document ids in the shapes the real platform uses. */
import { randomBytes, randomUUID } from 'node:crypto';

/** 24 hex characters: creation second, then random bytes, like a MongoDB ObjectId. */
export function newObjectId(now = Date.now()): string {
  return Math.floor(now / 1000).toString(16).padStart(8, '0') + randomBytes(8).toString('hex');
}

export function newUuid(): string {
  return randomUUID();
}
