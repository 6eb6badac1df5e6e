/**
 * The world the hostile suites attack: a store seeded with realistic data
 * (the search fixture's jobs, tasks, groups and accounts; a workflow and a
 * job waiting on its manual task; a transformation; a catalog automation; an
 * operations-manager automation with endpoint and manual triggers; a service
 * with its form), the real core in front of it, the real gateway in front of
 * the core with its logs captured, an administrator and a reader (an account
 * holding every role that allows only reads), and a snapshot of the store.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../kernel/logger.ts';
import type { Store } from '../../kernel/store/types.ts';
import { openTestStore } from '../helpers/stores.ts';
import { accounts, groups, jobs, tasks } from '../fixtures/search-data.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { createWorkflow, manual, newVariable, startJob, workflow } from '../helpers/engine.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { snapshotStore } from '../helpers/store-snapshot.ts';
import type { StoreSnapshot } from '../helpers/store-snapshot.ts';
import { makeUser, role } from '../helpers/users.ts';
import { readOnlyRoles, routeTable } from './oracle.ts';
import type { RouteTable } from './oracle.ts';
import type { Tokens } from './wire.ts';

export interface World {
  readonly store: Store;
  readonly core: RunningCore;
  readonly gateway: RunningGateway;
  readonly gatewayLogs: string[];
  readonly tokens: Tokens;
  readonly table: RouteTable;
  /** Ids and names of seeded documents, for path parameters that hit real data. */
  readonly known: readonly string[];
  /** The ids of each collection's documents, so a `:jobId` can be a real job's (requests.ts, pathParams). */
  readonly knownIds: ReadonlyMap<string, readonly string[]>;
  readonly snapshot: StoreSnapshot;
  close(): Promise<void>;
}

async function call(core: RunningCore, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await core.request(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.ok(res.status >= 200 && res.status < 300, `seeding ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  const answer = res.body as Record<string, unknown>;
  return (answer['data'] as Record<string, unknown> | undefined) ?? answer;
}

async function seed(core: RunningCore): Promise<void> {
  await createWorkflow(core, workflow('Hostile Quick', { a1: newVariable('done', true) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  await createWorkflow(core, workflow('Hostile Manual', { b2: manual() }, [['workflow_start', 'b2'], ['b2', 'workflow_end']]));
  // A job that stays running, waiting for someone to finish its manual task: the fuzz must not move it.
  await startJob(core, 'Hostile Manual', { port: 'Gi0/1' });
  await call(core, 'POST', '/transformations/', {
    name: 'Hostile Picker',
    description: 'picks the first fruit',
    incoming: [{ $id: 'basket', type: 'object', properties: { items: { type: 'array' } }, required: ['items'] }],
    outgoing: [{ $id: 'fruit', type: 'string' }],
    mapping: '{"fruit": basket.items[0]}',
  });
  await call(core, 'POST', '/automation_catalog/automations', { name: 'Hostile Catalog', description: 'catalog entry' });
  const workflows = await core.request('/automation-studio/automations/Hostile%20Quick');
  const omAutomation = await call(core, 'POST', '/operations-manager/automations', { name: 'Hostile Automation', componentType: 'workflows', componentId: (workflows.body as { _id: string })._id });
  await call(core, 'POST', '/operations-manager/triggers', { name: 'hostile-endpoint', type: 'endpoint', actionId: omAutomation['_id'], routeName: 'hostile-route', schema: { type: 'object' } });
  await call(core, 'POST', '/operations-manager/triggers', { name: 'hostile-manual', type: 'manual', actionId: omAutomation['_id'] });
  await call(core, 'POST', '/service_catalog/AddNewService', {
    service: { name: 'Hostile Service', workflow: 'Hostile Quick' },
    form: { name: 'Hostile Form', schema: { type: 'object', required: ['hostname'], properties: { hostname: { type: 'string' } } } },
  });
}

/** Every `_id`, `name` and `username` in the snapshot but session ids (hashes of tokens). */
function knownValues(snapshot: StoreSnapshot): string[] {
  const out = new Set<string>(['jobs', 'tasks', 'Hostile Quick', 'hostile-route']);
  for (const [collection, docs] of snapshot) {
    if (collection === 'sessions') continue;
    for (const [id, text] of docs) {
      out.add(id);
      const doc = JSON.parse(text) as Record<string, unknown>;
      for (const field of ['name', 'username', 'routeName']) if (typeof doc[field] === 'string') out.add(doc[field]);
    }
  }
  return [...out].sort();
}

function idsByCollection(snapshot: StoreSnapshot): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [collection, docs] of snapshot) if (collection !== 'sessions' && docs.size > 0) out.set(collection, [...docs.keys()].sort());
  return out;
}

export async function startWorld(): Promise<World> {
  const store = await openTestStore({ countCacheEntries: 0 });
  await store.collection('jobs').insertMany(jobs);
  await store.collection('tasks').insertMany(tasks);
  await store.collection('groups').insertMany(groups);
  await store.collection('accounts').insertMany(accounts);
  const core = await startCore(store);
  try {
    await seed(core);
  } catch (err) {
    await core.close();
    throw err;
  }
  const reader = await makeUser(core, 'hostile-reader', { roles: readOnlyRoles(core.core.routes).map((r) => role(r.provenance, r.name)) });
  const gatewayLogs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      gatewayLogs.push(chunk.toString());
      done();
    },
  });
  const gateway = await startGateway(core.url, {}, { logger: createLogger({ level: 'warn', service: 'gateway', stream }) });
  await core.core.engine.idle();
  const snapshot = await snapshotStore(store);
  return {
    store,
    core,
    gateway,
    gatewayLogs,
    tokens: { admin: core.adminToken, reader: reader.token },
    table: routeTable(core.core.routes),
    known: knownValues(snapshot),
    knownIds: idsByCollection(snapshot),
    snapshot,
    async close() {
      await gateway.close();
      await core.close();
      await store.close();
    },
  };
}
