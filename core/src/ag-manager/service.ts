/**
 * The gateway manager (app AGManager): discovers the scripts, playbooks and
 * modules of automation-gateway adapters and makes each a workflow task.
 *
 * Discovered actions are kept in the store (registry.ts), so a restarted
 * core resumes jobs that use them, and every core sharing the store runs the
 * same discoveries. Nothing is re-discovered on its own: an undiscovered
 * adapter stays undiscovered until an administrator discovers it again.
 */
import { hostname } from 'node:os';
import type { AdapterConfig } from '../../../config/schema.ts';
import { AppError, NotFoundError, repository } from '../../../kernel/index.ts';
import type { Logger, Store } from '../../../kernel/index.ts';
import type { TaskHandler } from '../engine/types.ts';
import { createAdapterRegistry, displayUrl } from '../adapters/registry.ts';
import { findAutomationGatewayAdapter } from './adapters.ts';
import type { AdapterSource } from './adapters.ts';
import { ACTION_KINDS, AgClient } from './client.ts';
import type { DiscoveredAction } from './client.ts';
import { DiscoveredTasks } from './registry.ts';
import { taskName } from './tasks.ts';
import { CLUSTER } from '../store/collections.ts';
import type { ExecuteAction } from './tasks.ts';

export interface DiscoverAnswer {
  readonly adapterId: string;
  readonly discovered: { readonly scripts: number; readonly playbooks: number; readonly modules: number };
  readonly tasks: string[];
}

export interface DiscoverFailure {
  readonly adapterId: string;
  readonly error: { readonly status: number; readonly message: string };
}

export interface UndiscoverAnswer {
  readonly adapterId: string;
  readonly removed: number;
  readonly tasks: string[];
}

export interface AutomationGatewayAdapter {
  readonly id: string;
  readonly type: 'gateway';
  readonly baseUrl: string;
  /** The core instance that has the adapter. */
  readonly instance: string;
}

export interface AgManagerDeps {
  readonly adapters: AdapterSource;
  readonly logger: Logger;
  /** How this core instance is named in cluster listings. */
  readonly instance: string;
  /** Where instances publish their adapters, so every core sharing the store sees them all. */
  readonly store: Store;
  readonly now?: () => number;
}

/** An instance not heard from for this long is left out of cluster listings. */
export const INSTANCE_TTL_MS = 90_000;

const RELOADED = 'the task registry was reloaded in place; nothing restarts (the platform restarts the application here)';

export class AgManager {
  readonly registry: DiscoveredTasks;
  // One client per adapter keeps its gateway session; a changed adapter definition gets a new one.
  private readonly clients = new Map<string, { readonly definition: string; readonly client: AgClient }>();

  constructor(private readonly deps: AgManagerDeps) {
    this.registry = new DiscoveredTasks(deps.store, this.execute);
  }

  /** For the engine: a discovered task, or undefined so the built-ins are asked next. */
  readonly findTask = (app: string, name: string): TaskHandler | undefined => this.registry.find(app, name);

  async discover(adapterId: string, logger: Logger = this.deps.logger): Promise<DiscoverAnswer> {
    const adapter = await findAutomationGatewayAdapter(this.deps.adapters, adapterId);
    const client = this.client(adapter);
    const lists = await Promise.all(ACTION_KINDS.map((kind) => client.list(kind)));
    const actions = new Map<string, DiscoveredAction>();
    // CASE: a gateway listing one name twice (across pages that moved) keeps the first.
    for (const action of lists.flat()) if (!actions.has(taskName(action))) actions.set(taskName(action), action);
    const kept = [...actions.values()];
    await this.registry.replace({ adapterId, discoveredAt: new Date((this.deps.now ?? Date.now)()).toISOString(), actions: kept });
    const count = (kind: DiscoveredAction['kind']): number => kept.filter((a) => a.kind === kind).length;
    const discovered = { scripts: count('script'), playbooks: count('playbook'), modules: count('module') };
    logger.info(`AG Manager discovered the actions of gateway adapter "${adapterId}"; ${RELOADED}`, { adapterId, ...discovered });
    return { adapterId, discovered, tasks: [...actions.keys()] };
  }

  /** Discovers every enabled gateway adapter; one failing does not stop the others. */
  async discoverAll(logger: Logger = this.deps.logger): Promise<Array<DiscoverAnswer | DiscoverFailure>> {
    const gateways = (await this.deps.adapters.list()).filter((a) => a.type === 'gateway' && a.enabled);
    return Promise.all(
      gateways.map(async (a): Promise<DiscoverAnswer | DiscoverFailure> => {
        try {
          return await this.discover(a.name, logger);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return { adapterId: a.name, error: { status: err.status, message: err.message } };
        }
      }),
    );
  }

  /** Removes one adapter's tasks. An adapter no longer configured may still have tasks to remove. */
  async undiscover(adapterId: string, logger: Logger = this.deps.logger): Promise<UndiscoverAnswer> {
    const removed = await this.registry.remove(adapterId);
    // Nothing stored: still an error to name an adapter that does not exist (or is no gateway).
    if (removed === null) await findAutomationGatewayAdapter(this.deps.adapters, adapterId, { allowDisabled: true });
    const tasks = removed ?? [];
    logger.info(`AG Manager removed the discovered actions of gateway adapter "${adapterId}"; ${RELOADED}`, { adapterId, removed: tasks.length });
    return { adapterId, removed: tasks.length, tasks };
  }

  async undiscoverAll(logger: Logger = this.deps.logger): Promise<UndiscoverAnswer[]> {
    const removed = [...(await this.registry.clear())].map(([adapterId, tasks]) => ({ adapterId, removed: tasks.length, tasks }));
    logger.info(`AG Manager removed the discovered actions of every gateway adapter; ${RELOADED}`, { adapters: removed.length });
    return removed;
  }

  /** This instance's gateway adapters. */
  private async ownAdapters(): Promise<AutomationGatewayAdapter[]> {
    const adapters = await this.deps.adapters.list();
    return adapters.filter((a) => a.type === 'gateway').map((a) => ({ id: a.name, type: 'gateway', baseUrl: displayUrl(a.baseUrl), instance: this.deps.instance }));
  }

  /** Records this instance and its gateway adapters in the shared store (at start and every 30 s). */
  async publish(): Promise<void> {
    const doc = { _id: this.deps.instance, instance: this.deps.instance, adapters: await this.ownAdapters(), lastSeen: (this.deps.now ?? Date.now)() };
    await repository(this.deps.store, CLUSTER).put(doc);
  }

  /** The gateway adapters of every core instance heard from lately, this one included. */
  async clusterAdapters(): Promise<AutomationGatewayAdapter[]> {
    await this.publish();
    const since = (this.deps.now ?? Date.now)() - INSTANCE_TTL_MS;
    const page = await repository(this.deps.store, CLUSTER).search({ where: null, sort: [], skip: 0, limit: 1000 });
    return page.docs
      .filter((d) => typeof d['lastSeen'] === 'number' && (d['lastSeen'] as number) >= since)
      .flatMap((d) => (Array.isArray(d['adapters']) ? (d['adapters'] as AutomationGatewayAdapter[]) : []))
      .sort((a, b) => a.instance.localeCompare(b.instance));
  }

  private readonly execute: ExecuteAction = async (adapterId, kind, name, body, signal) => {
    let adapter: Readonly<AdapterConfig>;
    try {
      adapter = await findAutomationGatewayAdapter(this.deps.adapters, adapterId);
    } catch (err) {
      // The task was discovered while the adapter existed; say so rather than a bare 404 text.
      if (err instanceof NotFoundError) throw new Error(`Gateway adapter "${adapterId}" no longer exists`);
      throw err;
    }
    return this.client(adapter).execute(kind, name, body, signal);
  };

  private client(adapter: Readonly<AdapterConfig>): AgClient {
    const definition = JSON.stringify(adapter);
    const cached = this.clients.get(adapter.name);
    if (cached && cached.definition === definition) return cached.client;
    const client = new AgClient(adapter);
    this.clients.set(adapter.name, { definition, client });
    return client;
  }
}

/**
 * The manager over the adapter registry (configured and stored adapters),
 * naming this instance `<host>:<core port>` in cluster listings.
 */
export function createAgManager(deps: {
  readonly config: { readonly adapters: readonly AdapterConfig[]; readonly core: { readonly port: number } };
  readonly store: Store;
  readonly logger: Logger;
}): AgManager {
  const adapters = createAdapterRegistry({ configured: deps.config.adapters, store: deps.store, logger: deps.logger });
  return new AgManager({ adapters, logger: deps.logger, instance: `${hostname()}:${deps.config.core.port}`, store: deps.store });
}
