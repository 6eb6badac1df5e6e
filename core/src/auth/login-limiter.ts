/**
 * Counts failed logins per username (known or not, so a lockout says nothing
 * about whether an account exists) and per client address, and locks either
 * out for a while once it reaches its limit. Kept in memory: a restart forgets
 * failures, which is acceptable for slowing down guessing.
 */

export interface LimiterOptions {
  readonly maxPerUsername: number;
  readonly maxPerAddress: number;
  readonly windowMs: number;
  readonly now?: () => number;
}

interface Entry {
  failures: number[];
  lockedUntil: number;
}

export class LoginLimiter {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly options: LimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Seconds until the caller may try again, or 0 when not locked out. */
  retryAfter(username: string, address: string): number {
    const now = this.now();
    const until = Math.max(this.entries.get(`u:${username.toLowerCase()}`)?.lockedUntil ?? 0, this.entries.get(`a:${address}`)?.lockedUntil ?? 0);
    return until > now ? Math.ceil((until - now) / 1000) : 0;
  }

  recordFailure(username: string, address: string): void {
    this.bump(`u:${username.toLowerCase()}`, this.options.maxPerUsername);
    this.bump(`a:${address}`, this.options.maxPerAddress);
  }

  /** A success clears the username's count, not the address's: one good password must not reset a spray. */
  recordSuccess(username: string): void {
    this.entries.delete(`u:${username.toLowerCase()}`);
  }

  private bump(key: string, max: number): void {
    const now = this.now();
    const entry = this.entries.get(key) ?? { failures: [], lockedUntil: 0 };
    entry.failures = entry.failures.filter((t) => now - t < this.options.windowMs);
    entry.failures.push(now);
    if (entry.failures.length >= max) {
      entry.lockedUntil = now + this.options.windowMs;
      entry.failures = [];
    }
    this.entries.set(key, entry);
    if (this.entries.size > 100_000) this.prune(now);
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.lockedUntil <= now && entry.failures.every((t) => now - t >= this.options.windowMs)) this.entries.delete(key);
    }
  }
}
