/**
 * Counts failed logins per username (known or not, so a lockout says nothing
 * about whether an account exists) and per client address, and locks either
 * out for a while once it reaches its limit. The counts live in the store
 * (`login_attempts`), so every core behind a load balancer counts together
 * and a restart forgets nothing (docs/auth.md).
 *
 * A window is counted in ten slices, one counter document per key and
 * slice, each added to atomically by the store: failures are those of the
 * current slice and the nine before, so a failure leaves the count between
 * 0.9 and 1 window later. A lockout is a document of its own that expires
 * when it ends; the store drops counters and lockouts past their expiry.
 */
import { DuplicateKeyError } from '../../../kernel/index.ts';
import type { Store } from '../../../kernel/index.ts';

export interface LimiterOptions {
  readonly maxPerUsername: number;
  readonly maxPerAddress: number;
  readonly windowMs: number;
  readonly now?: () => number;
}

const SLICES = 10;
const COLLECTION = 'login_attempts';

interface Lockout {
  readonly _id: string;
  readonly lockedUntil: number;
  readonly expiresAt: number;
}

export class LoginLimiter {
  private readonly now: () => number;
  private readonly sliceMs: number;

  constructor(private readonly store: Store, private readonly options: LimiterOptions) {
    this.now = options.now ?? Date.now;
    this.sliceMs = Math.max(1, Math.floor(options.windowMs / SLICES));
  }

  /** Seconds until the caller may try again, or 0 when not locked out. */
  async retryAfter(username: string, address: string): Promise<number> {
    const now = this.now();
    const locks = (await this.store.collection(COLLECTION).findByIds([lockId(userKey(username)), lockId(addressKey(address))])) as unknown as Lockout[];
    const until = Math.max(0, ...locks.map((l) => l.lockedUntil));
    return until > now ? Math.ceil((until - now) / 1000) : 0;
  }

  async recordFailure(username: string, address: string): Promise<void> {
    await Promise.all([this.bump(userKey(username), this.options.maxPerUsername), this.bump(addressKey(address), this.options.maxPerAddress)]);
  }

  /** A success clears the username's count, not the address's: one good password must not reset a spray. */
  async recordSuccess(username: string): Promise<void> {
    const attempts = this.store.collection(COLLECTION);
    const found = await attempts.findByIds(this.sliceIds(userKey(username), this.now()));
    for (const doc of found) await attempts.deleteOne(doc['_id'] as string);
  }

  /** The ids of the window's slices of a key, the current one first. */
  private sliceIds(key: string, now: number): string[] {
    const current = Math.floor(now / this.sliceMs);
    return Array.from({ length: SLICES }, (_, i) => `${key}@${current - i}`);
  }

  private async bump(key: string, max: number): Promise<void> {
    const now = this.now();
    const [currentId, ...earlierIds] = this.sliceIds(key, now);
    const sliceEnd = (Math.floor(now / this.sliceMs) + 1) * this.sliceMs;
    const attempts = this.store.collection(COLLECTION);
    const [inSlice, earlier] = await Promise.all([
      // Kept until no window that counts its slice is left.
      this.store.increment(COLLECTION, currentId!, sliceEnd + this.options.windowMs, now),
      attempts.findByIds(earlierIds),
    ]);
    const failures = inSlice + earlier.reduce((n, d) => n + (typeof d['count'] === 'number' ? d['count'] : 0), 0);
    if (failures < max) return;
    const lock: Lockout = { _id: lockId(key), lockedUntil: now + this.options.windowMs, expiresAt: now + this.options.windowMs };
    try {
      await attempts.insertOne({ ...lock });
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      await attempts.replaceOne({ ...lock });
    }
    // The failures that earned the lockout are spent, as they were when counted in memory.
    for (const id of [currentId!, ...earlier.map((d) => d['_id'] as string)]) await attempts.deleteOne(id);
  }
}

function userKey(username: string): string {
  return `u:${username.toLowerCase()}`;
}

function addressKey(address: string): string {
  return `a:${address}`;
}

function lockId(key: string): string {
  return `lock:${key}`;
}
