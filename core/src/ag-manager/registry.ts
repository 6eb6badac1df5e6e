/**
 * The workflow tasks made from discovered gateway actions, kept in the
 * store's `discovered_actions` collection: one document per gateway adapter,
 * `{_id: <adapter name>, adapterId, discoveredAt, actions: [...]}`. The store
 * is the only record, so a restarted core, and every core sharing the store,
 * runs exactly what was last discovered or undiscovered anywhere.
 *
 * The engine asks for a task synchronously, before the built-ins. Any
 * `script:`, `playbook:` or `module:` name (no built-in is named so) gets a
 * handler at once; the handler reads the adapter's document when it runs,
 * one read by id, and ends in error as "No task ... is available" when the
 * action is not (or no longer) discovered. So a discovery or undiscovery
 * takes effect for the next task that starts, in every process: the registry
 * is read in place where the real platform restarts the application.
 */
import type { TaskHandler } from '../engine/types.ts';
import { isPlainObject, repository } from '../../../kernel/index.ts';
import type { Doc, Store } from '../../../kernel/index.ts';
import { DISCOVERED_ACTIONS } from '../store/collections.ts';
import { ACTION_KINDS } from './client.ts';
import type { ActionKind, DiscoveredAction } from './client.ts';
import { actionTask, AG_ACTION_REACH, taskName } from './tasks.ts';
import type { ExecuteAction } from './tasks.ts';

export interface AdapterDiscovery {
  readonly adapterId: string;
  readonly discoveredAt: string;
  readonly actions: readonly DiscoveredAction[];
}

/** More gateway adapters than any installation has; the collection holds one document each. */
const MAX_ADAPTERS = 1000;

function kindOf(name: string): ActionKind | null {
  const prefix = name.slice(0, name.indexOf(':'));
  return (ACTION_KINDS as readonly string[]).includes(prefix) && name.length > prefix.length + 1 ? (prefix as ActionKind) : null;
}

/** A stored document as a discovery; actions that do not read are skipped rather than trusted. */
function fromDoc(doc: Doc): AdapterDiscovery {
  const actions = (Array.isArray(doc['actions']) ? doc['actions'] : []).filter(
    (a: unknown): a is DiscoveredAction => isPlainObject(a) && typeof a['name'] === 'string' && (ACTION_KINDS as readonly unknown[]).includes(a['kind']),
  );
  return { adapterId: String(doc['adapterId'] ?? doc['_id']), discoveredAt: String(doc['discoveredAt'] ?? ''), actions };
}

export class DiscoveredTasks {
  constructor(
    private readonly store: Store,
    private readonly execute: ExecuteAction,
  ) {}

  private get collection() {
    return repository(this.store, DISCOVERED_ACTIONS);
  }

  /** The task a workflow names by `app` (the adapter) and `name` (`script:<name>`...); undefined for any other name. */
  find(app: string, name: string): TaskHandler | undefined {
    const kind = kindOf(name);
    if (!kind) return undefined;
    return {
      name,
      app,
      type: 'automatic',
      reach: AG_ACTION_REACH,
      incoming: kind === 'script' ? ['args'] : ['args', 'hosts', 'groups'],
      outgoing: ['result'],
      run: async (ctx) => {
        const action = (await this.discovery(app))?.actions.find((a) => taskName(a) === name);
        if (!action) return { finishState: 'error', outgoing: {}, error: `No task ${app}.${name} is available` };
        return actionTask(app, action, this.execute).run(ctx);
      },
    };
  }

  async discovery(adapterId: string): Promise<AdapterDiscovery | null> {
    const doc = await this.collection.find(adapterId);
    return doc ? fromDoc(doc) : null;
  }

  /** Swaps one adapter's actions for a new set in one write, so no run sees half of each. */
  async replace(discovery: AdapterDiscovery): Promise<void> {
    // Another core's insert meanwhile is overwritten: this discovery is the later one, so it wins.
    await this.collection.put({ _id: discovery.adapterId, adapterId: discovery.adapterId, discoveredAt: discovery.discoveredAt, actions: discovery.actions.map((a) => ({ ...a })) });
  }

  /** Task names removed, in discovery order; null when the adapter had no discovery stored. */
  async remove(adapterId: string): Promise<string[] | null> {
    const found = await this.discovery(adapterId);
    if (!found) return null;
    await this.collection.remove(adapterId);
    return found.actions.map(taskName);
  }

  /** Removes every adapter's actions; answers the names removed, by adapter in name order. */
  async clear(): Promise<Map<string, string[]>> {
    const page = await this.collection.search({ where: null, sort: [], skip: 0, limit: MAX_ADAPTERS });
    const removed = new Map<string, string[]>();
    for (const doc of page.docs.map(fromDoc).sort((a, b) => a.adapterId.localeCompare(b.adapterId))) {
      await this.collection.remove(doc.adapterId);
      removed.set(doc.adapterId, doc.actions.map(taskName));
    }
    return removed;
  }
}
