/**
 * Starts the real core service on an ephemeral loopback port, on a store the
 * test chose, with logs captured so tests can read them.
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Server } from 'node:http';
import { loadConfig } from '../../config/load.ts';
import type { AppConfig } from '../../config/schema.ts';
import { createCoreApp } from '../../core/src/app.ts';
import { listen } from '../../core/src/http/listen.ts';
import { createLogger } from '../../core/src/logger.ts';
import type { Store } from '../../core/src/store/types.ts';

export interface RunningCore {
  readonly url: string;
  readonly config: Readonly<AppConfig>;
  readonly logs: string[];
  close(): Promise<void>;
}

export async function testConfig(env: Record<string, string> = {}): Promise<Readonly<AppConfig>> {
  return loadConfig({ env: { LOG_LEVEL: 'http', DATA_DIR: '/tmp/iap-test-unused', ...env } });
}

export async function startCore(store: Store, env: Record<string, string> = {}): Promise<RunningCore> {
  const config = await testConfig(env);
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ level: config.log.level, service: 'core', stream });
  const app = createCoreApp({ store, config, logger });
  const server: Server = await listen(app, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    logs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
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
