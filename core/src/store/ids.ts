/** New document ids in the shapes the real platform uses. */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';

/** Five random bytes drawn once: two processes writing one store never make the same id. */
const PROCESS_PART = randomBytes(5).toString('hex');
let counter = randomInt(0x1000000);

/**
 * 24 hex characters laid out as a MongoDB ObjectId: the creation second, a
 * value unique to this process, and a counter. Random bytes per id cost a
 * call into OpenSSL each time, which showed in the gateway's per-call
 * profile (one id per audited legacy call); ids are names, not secrets.
 */
export function newObjectId(now = Date.now()): string {
  counter = (counter + 1) & 0xffffff;
  return Math.floor(now / 1000).toString(16).padStart(8, '0') + PROCESS_PART + counter.toString(16).padStart(6, '0');
}

export function newUuid(): string {
  return randomUUID();
}

/** A MongoDB ObjectId as text, in either case (stored ids are lower case). */
export const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID.test(value);
}
