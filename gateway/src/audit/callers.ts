/**
 * Who a legacy caller is: asked of the core (`GET /whoami` with the caller's
 * own credentials) once a minute per credential. The gateway uses the answer
 * twice: a caller the core does not know is refused before the entry runs
 * (so no legacy operation validates, or explains itself, to an anonymous
 * caller), and a known caller's account name goes into the audit record.
 * The core still authenticates every call the entry makes, so a token ended
 * within the minute reaches nothing but the entry's own messages.
 */
import { createHash } from 'node:crypto';
import type { Credentials } from '../core-client.ts';
import type { CallCore } from '../mapping/run.ts';

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export type CallerCheck =
  /** The core knows the credentials; `name` is the account (null when it reports none). */
  | { readonly kind: 'known'; readonly name: string | null }
  /** No credentials, or the core refused them with 401: `message` is the core's. */
  | { readonly kind: 'refused'; readonly message: string }
  /** The core could not be asked; the entry's own calls will fail or succeed on their own. */
  | { readonly kind: 'unknown' };

const REQUIRED = 'Authentication is required';
const NO_CREDENTIALS: CallerCheck = { kind: 'refused', message: REQUIRED };

export class CallerChecks {
  private readonly cache = new Map<string, { check: CallerCheck; at: number }>();

  async check(credentials: Credentials, callCore: CallCore): Promise<CallerCheck> {
    const raw = credentials.authorization ?? credentials.token ?? credentials.cookie;
    if (!raw) return NO_CREDENTIALS;
    const key = createHash('sha256').update(raw).digest('hex');
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.check;
    let check: CallerCheck;
    try {
      const answer = await callCore({ method: 'GET', path: '/whoami', query: {}, body: undefined });
      if (answer.status === 200) check = { kind: 'known', name: String((answer.body as { username?: unknown }).username ?? '') || null };
      else if (answer.status === 401) check = { kind: 'refused', message: messageOf(answer.body) };
      else check = { kind: 'unknown' };
    } catch {
      check = { kind: 'unknown' };
    }
    // An unanswered question is asked again next time rather than remembered.
    if (check.kind === 'unknown') return check;
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(key, { check, at: Date.now() });
    return check;
  }
}

function messageOf(body: unknown): string {
  const message = body && typeof body === 'object' ? (body as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : REQUIRED;
}
