/**
 * Authentication: logins, client-credentials tokens, and turning a request's
 * credential into a Caller. Sessions (sessions.ts), callers and verified Basic
 * credentials are cached briefly; `invalidate()` drops the last two whenever
 * accounts, groups or roles change through this core, and whatever ends
 * sessions here tells `sessions.ended()`. Another core's change is seen
 * through the store: a cached session or caller is read again after STALE_AFTER_MS, and a remembered Basic
 * credential is checked then against the account's current password hash
 * (docs/auth.md states the bound).
 */
import { createHash } from 'node:crypto';
import { TooManyRequestsError, UnauthenticatedError } from '../../../kernel/index.ts';
import type { Doc, Logger, Store } from '../../../kernel/index.ts';
import { ACCOUNTS, SERVICE_ACCOUNTS } from '../store/collections.ts';
import { accounts as accountType } from '../store/doc-types.ts';
import { loadCaller } from './caller.ts';
import type { Caller } from './caller.ts';
import type { Credential } from './credentials.ts';
import { LoginLimiter } from './login-limiter.ts';
import { verifyPassword } from './passwords.ts';
import { Sessions } from './sessions.ts';

export interface AuthOptions {
  readonly logoutTime: number;
  readonly maxFailedLogins: number;
  readonly maxFailedLoginsPerAddress: number;
  readonly lockoutMinutes: number;
  readonly oauthTokenSeconds: number;
}

/**
 * How long this core trusts what it cached of an account or a session: a change made through another core
 * (disabled, password, roles, a logout) is honoured here within this, and through a gateway within its
 * own 3 s more (gateway/src/audit/callers.ts): 5 s in all. A reload is a few reads by id.
 */
export const STALE_AFTER_MS = 2_000;
/** scrypt is paid again for a Basic credential after this; between checks only the stored hash is compared. */
const BASIC_TTL_MS = 60_000;
const REFUSED = 'Invalid username or password';

export class AuthService {
  readonly sessions: Sessions;
  private readonly limiter: LoginLimiter;
  private readonly callers = new Map<string, { caller: Caller; at: number }>();
  private readonly basic = new Map<string, { id: string; passwordHash: unknown; verifiedAt: number; at: number }>();
  /**
   * Counts `invalidate()` calls. A load that began before one may have read
   * the rights it revoked, so it is answered but not cached.
   */
  private generation = 0;

  constructor(private readonly store: Store, private readonly options: AuthOptions, private readonly logger: Logger, private readonly now: () => number = Date.now) {
    this.sessions = new Sessions(store, { idleMinutes: options.logoutTime, now, staleAfterMs: STALE_AFTER_MS });
    this.limiter = new LoginLimiter(store, {
      maxPerUsername: options.maxFailedLogins,
      maxPerAddress: options.maxFailedLoginsPerAddress,
      windowMs: options.lockoutMinutes * 60_000,
      now,
    });
  }

  /** Accounts, groups or roles changed: cached callers may hold stale rights. */
  invalidate(): void {
    this.generation += 1;
    this.callers.clear();
    this.basic.clear();
  }

  async findAccount(username: string): Promise<Doc | null> {
    const field = accountType.fields.get('username')!;
    const found = await this.store.collection(ACCOUNTS.name).search({
      where: { kind: 'compare', op: 'eq', field, value: username },
      sort: [{ field: accountType.fields.get('_id')!, direction: 1 }],
      skip: 0,
      limit: 1,
    });
    return found.docs[0] ?? null;
  }

  /** Checks a username and password; the refusal never says which was wrong. */
  async checkPassword(username: string, password: string, address: string): Promise<Doc> {
    const wait = await this.limiter.retryAfter(username, address);
    if (wait > 0) throw new TooManyRequestsError(`Too many failed logins; try again in ${wait} seconds`, wait);
    const account = await this.findAccount(username);
    const ok = await verifyPassword(password, account?.['passwordHash'] as string | undefined);
    if (!account || !ok || account['inactive'] === true) {
      await this.limiter.recordFailure(username, address);
      this.logger.warn('login refused', { username, address });
      throw new UnauthenticatedError(REFUSED);
    }
    await this.limiter.recordSuccess(username);
    return account;
  }

  async login(username: string, password: string, address: string): Promise<string> {
    const account = await this.checkPassword(username, password, address);
    const { token } = await this.sessions.start(account['_id'] as string, 'account', 'login');
    await this.store.collection(ACCOUNTS.name).replaceOne({ ...account, loggedIn: true, lastLogin: new Date(this.now()).toISOString() });
    this.logger.info('login', { username: account['username'], accountId: account['_id'] });
    return token;
  }

  async clientToken(clientId: string, secret: string, address: string): Promise<{ access_token: string; token_type: 'bearer'; expires_in: number }> {
    const wait = await this.limiter.retryAfter(`client:${clientId}`, address);
    if (wait > 0) throw new TooManyRequestsError(`Too many failed attempts; try again in ${wait} seconds`, wait);
    const client = await this.store.collection(SERVICE_ACCOUNTS.name).findById(clientId);
    const ok = await verifyPassword(secret, client?.['secretHash'] as string | undefined);
    if (!client || !ok || client['inactive'] === true) {
      await this.limiter.recordFailure(`client:${clientId}`, address);
      throw new UnauthenticatedError('Invalid client credentials');
    }
    const lifetimeMs = this.options.oauthTokenSeconds * 1000;
    const { token } = await this.sessions.start(clientId, 'service', 'oauth', lifetimeMs);
    return { access_token: token, token_type: 'bearer', expires_in: this.options.oauthTokenSeconds };
  }

  /** The caller a credential stands for; throws 401 (or 429) when it stands for no one. */
  async identify(credential: Credential, address: string): Promise<Caller> {
    if (credential.kind === 'malformed') throw new UnauthenticatedError(credential.reason);
    if (credential.kind === 'token') {
      const session = await this.sessions.resolve(credential.token);
      const caller = session ? await this.caller(session.principal, session.accountId, session._id) : null;
      if (!caller) throw new UnauthenticatedError('The token is invalid or has expired');
      return caller;
    }
    const key = createHash('sha256').update(credential.raw).digest('hex');
    const id = (await this.rememberedBasic(key)) ?? (await this.verifyBasic(key, credential.username, credential.password, address));
    const caller = await this.caller('account', id, null);
    if (!caller) throw new UnauthenticatedError(REFUSED);
    return caller;
  }

  /** The account of a Basic credential verified earlier, while its password is still the one verified; null otherwise. */
  private async rememberedBasic(key: string): Promise<string | null> {
    const cached = this.basic.get(key);
    const now = this.now();
    if (!cached || now - cached.verifiedAt >= BASIC_TTL_MS) return null;
    if (now - cached.at < STALE_AFTER_MS) return cached.id;
    // The password may have been changed through another core: one read by id says.
    const account = await this.store.collection(ACCOUNTS.name).findById(cached.id);
    if (!account || account['inactive'] === true || account['passwordHash'] !== cached.passwordHash) {
      this.basic.delete(key);
      return null;
    }
    cached.at = now;
    return cached.id;
  }

  private async verifyBasic(key: string, username: string, password: string, address: string): Promise<string> {
    const generation = this.generation;
    const account = await this.checkPassword(username, password, address);
    const id = account['_id'] as string;
    if (generation !== this.generation) return id;
    if (this.basic.size > 10_000) this.basic.clear();
    this.basic.set(key, { id, passwordHash: account['passwordHash'], verifiedAt: this.now(), at: this.now() });
    return id;
  }

  async logout(caller: Caller): Promise<void> {
    if (!caller.sessionId) return;
    await this.sessions.end(caller.sessionId);
    if (caller.principal === 'account') {
      const account = await this.store.collection(ACCOUNTS.name).findById(caller.id);
      if (account && account['loggedIn'] === true) await this.store.collection(ACCOUNTS.name).replaceOne({ ...account, loggedIn: false });
    }
    this.invalidate();
  }

  private async caller(principal: Caller['principal'], id: string, sessionId: string | null): Promise<Caller | null> {
    const key = `${principal}:${id}:${sessionId ?? ''}`;
    const hit = this.callers.get(key);
    if (hit && this.now() - hit.at < STALE_AFTER_MS) return hit.caller;
    const generation = this.generation;
    const caller = await loadCaller(this.store, principal, id, sessionId);
    if (caller && generation === this.generation) {
      if (this.callers.size > 10_000) this.callers.clear();
      this.callers.set(key, { caller, at: this.now() });
    }
    return caller;
  }
}
