/**
 * Sessions behind tokens. A login session expires after `logoutTime`
 * minutes without use; a client-credentials token after a fixed lifetime.
 * Use is recorded at most every 30 seconds, so reads do not become writes.
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
 * the read goes on, and the write is made at a later use. True when it was made.
 */
async function bestEffort(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (err) {
    if (err instanceof StoreFullError || err instanceof StoreUnavailableError) return false;
    throw err;
  }
}

export interface SessionOptions {
  readonly idleMinutes: number;
  readonly now?: () => number;
}

export class Sessions {
  private readonly now: () => number;

  constructor(private readonly store: Store, private readonly options: SessionOptions) {
    this.now = options.now ?? Date.now;
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
    if (!/^[0-9a-f]{64}$/.test(token)) return null;
    const sessions = this.store.collection(SESSIONS.name);
    const found = (await sessions.findById(tokenHash(token))) as Session | null;
    if (!found) return null;
    const now = this.now();
    if (found.expiresAt <= now) {
      await bestEffort(sessions.deleteOne(found._id));
      return null;
    }
    if (found.kind === 'login' && now - found.lastUsed > TOUCH_EVERY_MS) {
      const touched: Session = { ...found, lastUsed: now, expiresAt: now + this.options.idleMinutes * 60_000 };
      return (await bestEffort(sessions.replaceOne({ ...touched }))) ? touched : found;
    }
    return found;
  }

  async end(sessionId: string): Promise<void> {
    await this.store.collection(SESSIONS.name).deleteOne(sessionId);
  }
}
