/** New document ids in the shapes the real platform uses. */
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';

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

/** A stable 24-hex id derived from a name, for documents that must keep one id across restarts and stores. */
export function stableId(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 24);
}

/** The id of a built-in role, the same in every store: a service can name one without reading it. */
export function roleId(provenance: string, name: string): string {
  return stableId(`role:${provenance}.${name}`);
}
