/**
 * Who a legacy caller is, for the audit: the account name the core reports
 * for the caller's credentials (asked once a minute per credential), else
 * nothing (the audit then falls back to the address).
 */
import { createHash } from 'node:crypto';
import type { Credentials } from '../core-client.ts';
import type { CallCore } from '../mapping/run.ts';

const TTL_MS = 60_000;

export class CallerNames {
  private readonly cache = new Map<string, { name: string | null; at: number }>();

  async nameOf(credentials: Credentials, callCore: CallCore): Promise<string | null> {
    const raw = credentials.authorization ?? credentials.token ?? credentials.cookie;
    if (!raw) return null;
    const key = createHash('sha256').update(raw).digest('hex');
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.name;
    let name: string | null = null;
    try {
      const answer = await callCore({ method: 'GET', path: '/whoami', query: {}, body: undefined });
      if (answer.status === 200) name = String((answer.body as { username?: unknown }).username ?? '') || null;
    } catch {
      name = null;
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { name, at: Date.now() });
    return name;
  }
}
