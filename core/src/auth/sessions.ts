/**
 * Sessions behind tokens. A login session expires after `logoutTime`
 * minutes without use; a client-credentials token after a fixed lifetime.
 * Use is recorded at most every 30 seconds, so reads do not become writes.
 *
 * A session read from the store is trusted for `staleAfterMs` (docs/http-path.md,
 * "The session read"): within it a token costs a hash and a map lookup. Its
 * expiry is still checked against the clock on every use. Whatever ends
 * sessions on this core says so after the deletion has committed (`end`,
 * `ended`), so the end is honoured at once here; another core's, within the window.
 */
import { StoreFullError, StoreUnavailableError } from '../../../kernel/index.ts';
import type { Store } from '../../../kernel/index.ts';
import { newToken, tokenHash } from './tokens.ts';
import { SESSIONS } from '../store/collections.ts';

export type SessionKind = 'login' | 'oauth';

export interface Session {
  readonly _id: string;
  readonly accountId: string;
  /** Which collection the principal lives in. */
  readonly principal: 'account' | 'service';
  readonly kind: SessionKind;
  readonly createdAt: number;
  readonly lastUsed: number;
  readonly expiresAt: number;
}

const TOUCH_EVERY_MS = 30_000;

/**
 * A write a read makes on the side (recording use, removing an expired
 * session) must not fail the read when the store cannot take writes (disk
 * full; busy, or a MongoDB replica set without a primary during failover):
 * the read goes on, and the write is made at a later use. What the write
 * answered, or undefined when it was not made.
 */
async function bestEffort<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof StoreFullError || err instanceof StoreUnavailableError) return undefined;
    throw err;
  }
}

export interface SessionOptions {
  readonly idleMinutes: number;
  readonly now?: () => number;
  /** How long a session read from the store is trusted without reading it again; 0 (the default) reads every time. */
  readonly staleAfterMs?: number;
}

/** Bounds the memory a flood of distinct live tokens can take; past it the cache starts over. */
const MAX_CACHED = 10_000;
const TOKEN_SHAPE = /^[0-9a-f]{64}$/;

export class Sessions {
  private readonly now: () => number;
  private readonly staleAfterMs: number;
  /** Live sessions by id (the token's hash, never the token), with when they were read. */
  private readonly recent = new Map<string, { session: Session; at: number }>();
  /**
   * Counts the times sessions were ended. A read that began before one may
   * have found a session that is gone now: it answers its own request but is
   * not cached.
   */
  private generation = 0;

  constructor(private readonly store: Store, private readonly options: SessionOptions) {
    this.now = options.now ?? Date.now;
    this.staleAfterMs = options.staleAfterMs ?? 0;
  }

  /** Starts a session and answers its token; the token itself is never stored. */
  async start(accountId: string, principal: Session['principal'], kind: SessionKind, lifetimeMs?: number): Promise<{ token: string; session: Session }> {
    const token = newToken();
    const now = this.now();
    const session: Session = {
      _id: tokenHash(token),
      accountId,
      principal,
      kind,
      createdAt: now,
      lastUsed: now,
      expiresAt: now + (lifetimeMs ?? this.options.idleMinutes * 60_000),
    };
    await this.store.collection(SESSIONS.name).insertOne({ ...session });
    return { token, session };
  }

  /** The live session of a token, or null; an expired one is removed. */
  async resolve(token: string): Promise<Session | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const id = tokenHash(token);
    const hit = this.recent.get(id);
    const now = this.now();
    // A session expired by our copy is read again: another core may have extended it since.
    if (hit && now - hit.at < this.staleAfterMs && hit.session.expiresAt > now) return this.used(hit.session, hit.at, now, this.generation);
    const generation = this.generation;
    const sessions = this.store.collection(SESSIONS.name);
    const found = (await sessions.findById(id)) as Session | null;
    const readAt = this.now();
    if (!found) {
      this.recent.delete(id);
      return null;
    }
    if (found.expiresAt <= readAt) {
      this.recent.delete(id);
      await bestEffort(sessions.deleteOne(found._id));
      return null;
    }
    if (generation === this.generation) this.remember(found, readAt);
    return this.used(found, readAt, readAt, generation);
  }

  /** Records a login session's use when it is due; answers the session as it now stands. `generation` is the one it was read in. */
  private async used(session: Session, readAt: number, now: number, generation: number): Promise<Session | null> {
    if (session.kind !== 'login' || now - session.lastUsed <= TOUCH_EVERY_MS) return session;
    const touched: Session = { ...session, lastUsed: now, expiresAt: now + this.options.idleMinutes * 60_000 };
    const replaced = await bestEffort(this.store.collection(SESSIONS.name).replaceOne({ ...touched }));
    if (replaced === undefined) return session;
    if (!replaced) {
      // Ended (by another core) since it was read.
      this.recent.delete(session._id);
      return null;
    }
    if (generation === this.generation) this.remember(touched, readAt);
    return touched;
  }

  private remember(session: Session, at: number): void {
    if (this.staleAfterMs <= 0) return;
    if (this.recent.size >= MAX_CACHED) this.recent.clear();
    this.recent.set(session._id, { session, at });
  }

  async end(sessionId: string): Promise<void> {
    try {
      await this.store.collection(SESSIONS.name).deleteOne(sessionId);
    } finally {
      this.ended();
    }
  }

  /**
   * Sessions were deleted from the store (by `end`, or by whatever ends a
   * principal's sessions): called after the deletion has committed, so no
   * read that began before it is cached and none after it can find them.
   */
  ended(): void {
    this.generation += 1;
    this.recent.clear();
  }
}
