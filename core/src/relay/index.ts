/**
 * The orchestrator manager as the core assembles it: the adapter registry,
 * one HTTP client (one connection pool) shared by the relay and the adapter
 * health report, the relay for the engine's tasks, and the routes (with the
 * broker mapping, also read from the registry).
 */
import type { AdapterConfig } from '../../../config/schema.ts';
import { brokerMappingRoutes } from '../adapters/brokers.ts';
import { adapterHealthRoutes } from '../adapters/health.ts';
import { createAdapterRegistry } from '../adapters/registry.ts';
import type { Logger, Store } from '../../../kernel/index.ts';
import type { CoreModule } from '../module.ts';
import { observedRelay } from '../metrics/relay.ts';
import type { ObserveRelay } from '../metrics/relay.ts';
import { OrchestratorClient } from './orchestrator.ts';
import { createRelay } from './relay.ts';
import type { Relay } from './relay.ts';
import { relayRoutes } from './routes.ts';

export { createRelay } from './relay.ts';
export type { Relay } from './relay.ts';

export interface OrchestratorManagerDeps {
  readonly config: { readonly adapters: readonly AdapterConfig[] };
  readonly store: Store;
  readonly logger: Logger;
  /** Told of every relayed request (the metrics); none when metrics are off. */
  readonly observeRelay?: ObserveRelay | null;
}

export interface OrchestratorManager extends CoreModule {
  readonly relay: Relay;
}

export function orchestratorManager(deps: OrchestratorManagerDeps): OrchestratorManager {
  const registry = createAdapterRegistry({ configured: deps.config.adapters, store: deps.store, logger: deps.logger });
  const client = new OrchestratorClient();
  const bare = createRelay({ registry, client });
  const relay = deps.observeRelay ? observedRelay(bare, deps.config.adapters.map((a) => a.name), deps.observeRelay) : bare;
  return { name: 'orchestrator manager', relay, routes: [...relayRoutes(relay), ...adapterHealthRoutes({ registry, client }), ...brokerMappingRoutes(registry)] };
}
