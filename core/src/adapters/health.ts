/**
 * `GET /health/adapters`: every adapter instance and whether its base URL
 * answers, probed in parallel with a short timeout. Any HTTP answer (a 401 or
 * 404 too) counts as reachable: the question is whether something is there.
 * Credentials, and user information in base URLs, are never shown. Base URLs
 * and connection errors (which name hosts, ports and certificates) are shown
 * only to Health administrators: to anyone else they map the network behind
 * the core (docs/auth.md, "What non-administrators see").
 *
 * Entries are in the real platform's shape (itential-mcp's `AdapterInfo`
 * model): `id`, `package_id`, `version`, `type` (`Adapter`), `state` (the
 * adapter's process: `RUNNING`, `STOPPED`, ...) and `connection.state`
 * (`ONLINE`, `OFFLINE`), beside our own fields. Our adapters are connections
 * the core makes, not processes, so an enabled adapter is `RUNNING` whether or
 * not its orchestrator answers (that is `connection.state`), and a disabled
 * one is `STOPPED` and `OFFLINE`. Where the platform's field of a name means
 * something else, the platform's meaning wins: `state` was our connection
 * state, and `type` our kind of adapter, now `adapterType` (docs/real-platform.md).
 * The list reads the platform's generic list parameters (health/list.ts).
 */
import pkg from '../../../package.json' with { type: 'json' };
import type { AnyRoute } from '../../../kernel/index.ts';
import { healthRoute } from '../health/routes.ts';
import { isHealthAdmin } from '../health/admin.ts';
import { entryFields, memoryListQuery, memoryPage } from '../health/list.ts';
import type { ListFields } from '../health/list.ts';
import type { OrchestratorClient } from '../relay/orchestrator.ts';
import type { Adapter, AdapterRegistry } from './registry.ts';
import { displayUrl } from './registry.ts';
import { answer, arrayOf, BOOLEAN, closed, INTEGER, nullable, NUMBER, oneOfValues, STRING } from '../../../kernel/index.ts';

export interface AdapterHealth {
  readonly id: string;
  /** The package that implements it: the core's own, for every adapter. */
  readonly package_id: string;
  /** The core's version: our adapters are part of it. */
  readonly version: string;
  readonly type: 'Adapter';
  /** Which orchestrator it speaks to (what `type` said before the platform's shape). */
  readonly adapterType: Adapter['type'];
  /** Administrators only. */
  readonly baseUrl?: string;
  readonly enabled: boolean;
  /** The platform's process state: running while enabled, stopped when disabled. */
  readonly state: 'RUNNING' | 'STOPPED';
  /** Whether its orchestrator answered the probe. */
  readonly connection: { readonly state: 'ONLINE' | 'OFFLINE' };
  readonly reachable: boolean;
  /** Time to the answer, or to the failure; null when not probed (disabled). */
  readonly latencyMs: number | null;
  /** Administrators only. */
  readonly error?: string;
}

/** An entry without what only administrators see. */
function withoutDetails(entry: AdapterHealth): AdapterHealth {
  const { baseUrl: _baseUrl, error: _error, ...rest } = entry;
  return rest;
}

export interface AdapterHealthDeps {
  readonly registry: AdapterRegistry;
  readonly client: OrchestratorClient;
}

/** A health page should answer promptly even when an orchestrator hangs. */
const PROBE_TIMEOUT_MS = 2000;

async function check(client: OrchestratorClient, adapter: Adapter): Promise<AdapterHealth> {
  const base = { id: adapter.name, package_id: pkg.name, version: pkg.version, type: 'Adapter', adapterType: adapter.type, baseUrl: displayUrl(adapter.baseUrl), enabled: adapter.enabled } as const;
  if (!adapter.enabled) return { ...base, state: 'STOPPED', connection: { state: 'OFFLINE' }, reachable: false, latencyMs: null };
  const probe = await client.probe(adapter, Math.min(adapter.timeoutMs, PROBE_TIMEOUT_MS));
  if (probe.reachable) return { ...base, state: 'RUNNING', connection: { state: 'ONLINE' }, reachable: true, latencyMs: probe.latencyMs };
  return { ...base, state: 'RUNNING', connection: { state: 'OFFLINE' }, reachable: false, latencyMs: probe.latencyMs, error: probe.error ?? 'unreachable' };
}

/** The fields the list parameters filter and sort on (never `baseUrl` or `error`: a filter would reveal them). */
const ADAPTER_FIELDS: ListFields<AdapterHealth> = entryFields<AdapterHealth>([['adapterType', (a) => a.adapterType]], [['connection.state', (a) => a.connection.state]]);

export function adapterHealthRoutes(deps: AdapterHealthDeps): AnyRoute[] {
  return [
    healthRoute({
      method: 'GET',
      path: '/health/adapters',
      name: 'getAdaptersHealth',
      roles: 'authenticated',
      description: `The adapter instances, their state and whether their orchestrator or gateway answers; base URLs and connection errors to Health administrators only. Read with the platform's list parameters (equals/equalsField, contains/containsField, startsWith/startsWithField on ${[...ADAPTER_FIELDS.keys()].join(', ')}; sort, order, skip, limit 25 by default)`,
      answer: answer(
        closed({
          results: arrayOf(
            closed(
              {
                id: STRING,
                package_id: STRING,
                version: STRING,
                type: oneOfValues('Adapter'),
                adapterType: oneOfValues('nso', 'gateway'),
                baseUrl: STRING,
                enabled: BOOLEAN,
                state: oneOfValues('RUNNING', 'STOPPED'),
                connection: closed({ state: oneOfValues('ONLINE', 'OFFLINE') }),
                reachable: BOOLEAN,
                latencyMs: nullable(NUMBER),
                error: STRING,
              },
              ['baseUrl', 'error'],
            ),
          ),
          total: INTEGER,
        }),
      ),
      input: { query: memoryListQuery('the adapters', ADAPTER_FIELDS) },
      async handle({ query }, ctx) {
        const adapters = await deps.registry.list();
        // Every adapter is probed before filtering: a filter on connection.state needs the probe.
        const checked = await Promise.all(adapters.map((a) => check(deps.client, a)));
        const page = memoryPage(checked, query, ADAPTER_FIELDS);
        const results = isHealthAdmin(ctx.caller) ? page.results : page.results.map(withoutDetails);
        return { body: { results, total: page.total } };
      },
    }),
  ];
}
