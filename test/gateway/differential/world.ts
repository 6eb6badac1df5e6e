/**
 * The world of the differential suites: the real core on an embedded store
 * holding the documents drawn from the seed, and the real gateway in front
 * of it. Both run with a small page (the core's `SEARCH_MAX_LIMIT`, the
 * gateway's `GATEWAY_UPSTREAM_PAGE_MAX`), so that
 * legacy limits above it, and limit 0, are served by paging on a few dozen
 * documents. `send` speaks to the gateway with a credential form of the
 * caller's choice.
 *
 * In the `platform` mode the gateway stands over HTTPS in front of the
 * platform stand-in, which stands in front of the core
 * (test/helpers/in-front-of-platform.ts), with a page cap below the
 * gateway's page, so paging follows what the upstream answered; the
 * credentials are then the platform's forms for a login token (cookie and
 * query), since it takes Bearer only for OAuth clients.
 */
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { startGateway } from '../../helpers/gateway.ts';
import { startInFrontOfPlatform } from '../../helpers/in-front-of-platform.ts';
import type { PlatformSim } from '../../../tools/platform-sim/server.ts';
import type { RunningGateway } from '../../helpers/gateway.ts';
import { drawDocuments } from './documents.ts';
import { SORT_CANDIDATES } from './legacy-options.ts';
import type { Doc, Documents } from './documents.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

/** The search page of the world: small, so paging happens. */
export const PAGE = 7;
const ENV = { SEARCH_MAX_LIMIT: String(PAGE), SEARCH_DEFAULT_LIMIT: '5', GATEWAY_UPSTREAM_PAGE_MAX: String(PAGE) };

export type Credential = 'bearer' | 'query-token' | 'cookie';
export type Mode = 'core' | 'platform';
/** The credential forms each mode's callers use. */
export const CREDENTIALS: Readonly<Record<Mode, readonly Credential[]>> = { core: ['bearer', 'query-token'], platform: ['cookie', 'query-token'] };
/** The stand-in's page cap in the platform mode: below PAGE, so the gateway must follow what it answered. */
export const PLATFORM_PAGE_CAP = 3;

export interface LegacyCall {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
}

export interface World extends Documents {
  /** The sort candidates (legacy-options.ts) the core sorts on, per type. */
  readonly sortable: { readonly jobs: readonly string[]; readonly tasks: readonly string[] };
  readonly core: RunningCore;
  readonly gateway: RunningGateway;
  /** The platform stand-in in the platform mode, else null. */
  readonly sim: PlatformSim | null;
  readonly credentials: readonly Credential[];
  /** The administrator's account as the store holds it. */
  readonly admin: Doc;
  send(call: LegacyCall, credential: Credential): Promise<JsonResponse>;
  close(): Promise<void>;
}

export async function startWorld(seed: number, mode: Mode = 'core'): Promise<World> {
  const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  const up = mode === 'platform' ? await startInFrontOfPlatform({ store, coreEnv: ENV, gatewayEnv: ENV, pageCap: PLATFORM_PAGE_CAP }) : null;
  const core = up?.core ?? (await startCore(store, ENV));
  const admin = (await core.core.auth.findAccount(core.config.admin.username))!;
  const docs = drawDocuments(seed, admin['_id'] as string);
  await store.collection('jobs').insertMany(structuredClone(docs.jobs));
  await store.collection('tasks').insertMany(structuredClone(docs.tasks));
  const gateway = up?.gateway ?? (await startGateway(core.url, ENV));
  const sorts = async (type: 'jobs' | 'tasks'): Promise<string[]> => {
    const ok = await Promise.all(SORT_CANDIDATES[type].map(async (f) => (await core.request(`/operations-manager/${type}?sort=${f}&order=1&limit=0`)).status === 200));
    return SORT_CANDIDATES[type].filter((_, i) => ok[i]);
  };
  return {
    ...docs,
    sortable: { jobs: await sorts('jobs'), tasks: await sorts('tasks') },
    core,
    gateway,
    sim: up?.sim ?? null,
    credentials: CREDENTIALS[mode],
    admin,
    send(call, credential) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      let path = call.path;
      if (credential === 'bearer') headers['authorization'] = `Bearer ${core.adminToken}`;
      else if (credential === 'cookie') headers['cookie'] = `token=${core.adminToken}`;
      else path += `${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(core.adminToken)}`;
      return request(`${gateway.url}${path}`, { method: call.method, headers, ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }) });
    },
    async close() {
      if (up) await up.close();
      else {
        await gateway.close();
        await core.close();
      }
      await store.close();
    },
  };
}
