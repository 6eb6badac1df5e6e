/**
 * The real gateway on an ephemeral loopback port in front of a running core,
 * with its audit store in memory.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createGatewayApp } from '../../gateway/src/app.ts';
import type { Gateway } from '../../gateway/src/app.ts';
import { listen } from '../../kernel/http/listen.ts';
import { createLogger } from '../../kernel/logger.ts';
import type { Store } from '../../kernel/store/types.ts';
import { GATEWAY_COLLECTIONS } from '../../gateway/src/audit/collection.ts';
import { openTestStore } from './stores.ts';
import { contractTap } from './contract.ts';
import { testConfig } from './core.ts';

export interface RunningGateway {
  readonly url: string;
  readonly gateway: Gateway;
  readonly store: Store;
  close(): Promise<void>;
}

export async function startGateway(coreUrl: string, env: Record<string, string> = {}, overrides: Partial<Parameters<typeof createGatewayApp>[0]> = {}): Promise<RunningGateway> {
  const config = await testConfig({ CORE_URL: coreUrl, ...env });
  const store = await openTestStore({ countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
  const gateway = createGatewayApp({ config, logger: createLogger({ level: 'error', service: 'gateway', silent: true }), store, tap: contractTap(), ...overrides });
  const server: Server = await listen(gateway.app, 0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    gateway,
    store,
    async close() {
      await gateway.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await store.close();
    },
  };
}
