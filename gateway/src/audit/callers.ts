/**
 * Who a legacy caller is: asked of the core (`GET /whoami` with the caller's
 * own credentials) at most every 3 seconds per credential. The gateway uses the answer
 * twice: a caller the core does not know is refused before the entry runs
 * (so no legacy operation validates, or explains itself, to an anonymous
 * caller), and a known caller's account name goes into the audit record.
 * The core still authenticates every call the entry makes, so a token ended
 * within those seconds reaches nothing but the entry's own messages.
 */
import { createHash } from 'node:crypto';
import { readError } from '../../../kernel/index.ts';
import type { Credentials } from '../core-client.ts';
import type { CallCore } from '../mapping/run.ts';

/**
 * With the core's own 2 s (core/src/auth/service.ts), an account disabled, a password changed or a
 * session ended through any core is refused here within 5 s (docs/auth.md). One `GET /whoami` per
 * credential every 3 s is nothing beside the calls it stands for.
 */
const TTL_MS = 3_000;
const MAX_ENTRIES = 10_000;
/**
 * Credentials up to this length are their own cache key; longer ones are
 * keyed by their SHA-256, so ten thousand entries stay a few megabytes
 * whatever callers send. Hashing every call cost more than the lookup.
 */
const KEY_AS_IS = 256;

export type CallerCheck =
  /** The core knows the credentials; `name` is the account (null when it reports none). */
  | { readonly kind: 'known'; readonly name: string | null }
  /** No credentials, or the core refused them with 401: `message` is the core's. */
  | { readonly kind: 'refused'; readonly message: string }
  /** The core could not be asked; the entry's own calls will fail or succeed on their own. */
  | { readonly kind: 'unknown' };

const REQUIRED = 'Authentication is required';
const NO_CREDENTIALS: CallerCheck = { kind: 'refused', message: REQUIRED };

interface Remembered {
  readonly check: CallerCheck;
  readonly at: number;
}

export class CallerChecks {
  /** Keyed by the credential itself; long ones by their hash, in a map of their own so the two kinds of key never meet. */
  private readonly byCredential = new Map<string, Remembered>();
  private readonly byHash = new Map<string, Remembered>();

  /** What the core said of these credentials within the last TTL_MS, or null when it must be asked. */
  remembered(credentials: Credentials): CallerCheck | null {
    const raw = rawOf(credentials);
    if (!raw) return NO_CREDENTIALS;
    const hit = raw.length <= KEY_AS_IS ? this.byCredential.get(raw) : this.byHash.get(hashOf(raw));
    return hit && Date.now() - hit.at < TTL_MS ? hit.check : null;
  }

  async check(credentials: Credentials, callCore: CallCore): Promise<CallerCheck> {
    const known = this.remembered(credentials);
    if (known) return known;
    let check: CallerCheck;
    try {
      const answer = await callCore({ method: 'GET', path: '/whoami', query: {}, body: undefined });
      if (answer.status === 200) check = { kind: 'known', name: String((answer.body as { username?: unknown }).username ?? '') || null };
      else if (answer.status === 401) check = { kind: 'refused', message: readError(401, answer.code, answer.body).message };
      else check = { kind: 'unknown' };
    } catch {
      check = { kind: 'unknown' };
    }
    // An unanswered question is asked again next time rather than remembered.
    if (check.kind === 'unknown') return check;
    if (this.byCredential.size + this.byHash.size >= MAX_ENTRIES) {
      this.byCredential.clear();
      this.byHash.clear();
    }
    const raw = rawOf(credentials)!;
    if (raw.length <= KEY_AS_IS) this.byCredential.set(raw, { check, at: Date.now() });
    else this.byHash.set(hashOf(raw), { check, at: Date.now() });
    return check;
  }
}

/**
 * The credential the answer is remembered under, with the form it came in: the
 * upstream may take a token in one form and refuse it in another (a login
 * token as `?token=` but not as Bearer, on the platform), so one form's answer
 * never stands for another's.
 */
function rawOf(credentials: Credentials): string | undefined {
  const [form, value] = credentials.authorization !== undefined ? ['h', credentials.authorization] : credentials.token !== undefined ? ['q', credentials.token] : ['c', credentials.cookie];
  return value ? `${form}:${value}` : undefined;
}

function hashOf(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}
