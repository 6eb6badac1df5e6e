/**
 * Starts the real core service on an ephemeral loopback port, on a store the
 * test chose, with logs captured so tests can read them. The store is
 * bootstrapped like a first start, with a known administrator password, and
 * `core.request` sends an administrator's token unless told otherwise.
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Server } from 'node:http';
import { loadConfig } from '../../config/load.ts';
import type { AppConfig } from '../../config/schema.ts';
import { createCoreApp } from '../../core/src/app.ts';
import type { Core, CoreDeps } from '../../core/src/app.ts';
import { listen } from '../../kernel/http/listen.ts';
import { createLogger } from '../../kernel/logger.ts';
import type { Store } from '../../kernel/store/types.ts';
import { contractTap } from './contract.ts';

export const ADMIN_PASSWORD = 'admin-test-password';

export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

export interface CoreRequestInit extends RequestInit {
  /** A bearer token to send instead of the administrator's; null sends no credentials. */
  readonly token?: string | null;
}

export interface RunningCore {
  readonly url: string;
  readonly config: Readonly<AppConfig>;
  readonly core: Core;
  readonly store: Store;
  readonly logs: string[];
  /** A token of the bootstrapped administrator. */
  readonly adminToken: string;
  request(path: string, init?: CoreRequestInit): Promise<JsonResponse>;
  close(): Promise<void>;
}

export async function testConfig(env: Record<string, string> = {}): Promise<Readonly<AppConfig>> {
  return loadConfig({ env: { LOG_LEVEL: 'http', DATA_DIR: '/tmp/iap-test-unused', ADMIN_PASSWORD, ...env } });
}

export async function request(url: string, init: RequestInit = {}): Promise<JsonResponse> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Non-JSON answers stay text; the test decides whether that is right.
  }
  return { status: res.status, headers: res.headers, body };
}

/** `deps` replaces parts of what the core is assembled from (a metrics registry on a test's clock, ...). */
export async function startCore(store: Store, env: Record<string, string> = {}, deps: Partial<Pick<CoreDeps, 'metrics'>> = {}): Promise<RunningCore> {
  const config = await testConfig(env);
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ level: config.log.level, service: 'core', stream });
  const core = createCoreApp({ store, config, logger, tap: contractTap(), ...deps });
  await core.bootstrap({ announce: () => undefined });
  const admin = await core.auth.findAccount(config.admin.username);
  const { token: adminToken } = await core.auth.sessions.start(admin!['_id'] as string, 'account', 'login');
  const server: Server = await listen(core.app, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    config,
    core,
    store,
    logs,
    adminToken,
    request(path, init = {}) {
      const { token = adminToken, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
      return request(`${url}${path}`, { ...rest, headers });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
