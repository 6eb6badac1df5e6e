/**
 * `GET /health/adapters`: every adapter instance and whether its base URL
 * answers, probed in parallel with a short timeout. Any HTTP answer (a 401 or
 * 404 too) counts as reachable: the question is whether something is there.
 * Credentials, and user information in base URLs, are never shown. Base URLs
 * and connection errors (which name hosts, ports and certificates) are shown
 * only to Health administrators: to anyone else they map the network behind
 * the core (docs/auth.md, "What non-administrators see").
 */
import type { AnyRoute, Caller } from '../../../kernel/index.ts';
import { healthRoute } from '../health/routes.ts';
import type { OrchestratorClient } from '../relay/orchestrator.ts';
import type { Adapter, AdapterRegistry } from './registry.ts';
import { displayUrl } from './registry.ts';
import { answer, arrayOf, BOOLEAN, closed, INTEGER, nullable, NUMBER, oneOfValues, STRING } from '../../../kernel/index.ts';

export interface AdapterHealth {
  readonly id: string;
  readonly type: Adapter['type'];
  /** Administrators only. */
  readonly baseUrl?: string;
  readonly enabled: boolean;
  readonly state: 'ONLINE' | 'OFFLINE' | 'DISABLED';
  readonly reachable: boolean;
  /** Time to the answer, or to the failure; null when not probed (disabled). */
  readonly latencyMs: number | null;
  /** Administrators only. */
  readonly error?: string;
}

/** Whether the caller sees where adapters are and why they fail: the admin role of Health. */
export function seesAdapterDetails(caller: Caller | null): boolean {
  return caller !== null && caller.adminOf.has('Health');
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
  const base = { id: adapter.name, type: adapter.type, baseUrl: displayUrl(adapter.baseUrl), enabled: adapter.enabled };
  if (!adapter.enabled) return { ...base, state: 'DISABLED', reachable: false, latencyMs: null };
  const probe = await client.probe(adapter, Math.min(adapter.timeoutMs, PROBE_TIMEOUT_MS));
  if (probe.reachable) return { ...base, state: 'ONLINE', reachable: true, latencyMs: probe.latencyMs };
  return { ...base, state: 'OFFLINE', reachable: false, latencyMs: probe.latencyMs, error: probe.error ?? 'unreachable' };
}

export function adapterHealthRoutes(deps: AdapterHealthDeps): AnyRoute[] {
  return [
    healthRoute({
      method: 'GET',
      path: '/health/adapters',
      name: 'getAdaptersHealth',
      roles: 'authenticated',
      description: 'The adapter instances, their state and whether their orchestrator or gateway answers; base URLs and connection errors to Health administrators only',
      answer: answer(closed({ results: arrayOf(closed({ id: STRING, type: oneOfValues('nso', 'gateway'), baseUrl: STRING, enabled: BOOLEAN, state: oneOfValues('ONLINE', 'OFFLINE', 'DISABLED'), reachable: BOOLEAN, latencyMs: nullable(NUMBER), error: STRING }, ['baseUrl', 'error'])), total: INTEGER })),
      input: {},
      async handle(_input, ctx) {
        const adapters = await deps.registry.list();
        const checked = await Promise.all(adapters.map((a) => check(deps.client, a)));
        const results = seesAdapterDetails(ctx.caller) ? checked : checked.map(withoutDetails);
        return { body: { results, total: results.length } };
      },
    }),
  ];
}
