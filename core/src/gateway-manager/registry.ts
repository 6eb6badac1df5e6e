/**
 * The workflow tasks made from discovered gateway actions, by adapter. The
 * engine asks it for a task on every run, before the built-ins, so a
 * discovery or an undiscovery takes effect for the next task that starts: the
 * registry is reloaded in place where the real platform restarts the
 * application.
 *
 * Held in memory by this process only (see service.ts for why and what a
 * store-backed version needs).
 */
import type { TaskHandler } from '../engine/types.ts';
import type { DiscoveredAction } from './client.ts';

export interface AdapterDiscovery {
  readonly adapterId: string;
  readonly discoveredAt: string;
  readonly actions: readonly DiscoveredAction[];
}

interface Entry {
  readonly discovery: AdapterDiscovery;
  readonly handlers: ReadonlyMap<string, TaskHandler>;
}

export class DiscoveredTasks {
  private readonly byAdapter = new Map<string, Entry>();

  /** The task a workflow names by `app` (the adapter) and `name` (`script:<name>`...), if discovered. */
  find(app: string, name: string): TaskHandler | undefined {
    return this.byAdapter.get(app)?.handlers.get(name);
  }

  /** Swaps one adapter's tasks for a new set in one step, so no run sees half of each. */
  replace(discovery: AdapterDiscovery, handlers: readonly TaskHandler[]): void {
    this.byAdapter.set(discovery.adapterId, { discovery, handlers: new Map(handlers.map((h) => [h.name, h])) });
  }

  /** Task names removed, in discovery order; empty when the adapter had none. */
  remove(adapterId: string): string[] {
    const entry = this.byAdapter.get(adapterId);
    this.byAdapter.delete(adapterId);
    return entry ? [...entry.handlers.keys()] : [];
  }

  /** Removes every adapter's tasks; answers the names removed, by adapter. */
  clear(): Map<string, string[]> {
    const removed = new Map<string, string[]>();
    for (const adapterId of [...this.byAdapter.keys()].sort()) removed.set(adapterId, this.remove(adapterId));
    return removed;
  }

  has(adapterId: string): boolean {
    return this.byAdapter.has(adapterId);
  }

  discovery(adapterId: string): AdapterDiscovery | undefined {
    return this.byAdapter.get(adapterId)?.discovery;
  }
}
