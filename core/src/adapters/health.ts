/**
 * `GET /health/adapters`: every adapter instance and whether its base URL
 * answers, probed in parallel with a short timeout. Any HTTP answer (a 401 or
 * 404 too) counts as reachable: the question is whether something is there.
 * Credentials, and user information in base URLs, are never shown.
 */
import type { AnyRoute } from '../../../kernel/index.ts';
import { healthRoute } from '../health/routes.ts';
import type { OrchestratorClient } from '../relay/orchestrator.ts';
import type { Adapter, AdapterRegistry } from './registry.ts';
import { displayUrl } from './registry.ts';
import { answer, arrayOf, BOOLEAN, closed, INTEGER, nullable, NUMBER, oneOfValues, STRING } from '../../../kernel/index.ts';

export interface AdapterHealth {
  readonly id: string;
  readonly type: Adapter['type'];
  readonly baseUrl: string;
  readonly enabled: boolean;
  readonly state: 'ONLINE' | 'OFFLINE' | 'DISABLED';
  readonly reachable: boolean;
  /** Time to the answer, or to the failure; null when not probed (disabled). */
  readonly latencyMs: number | null;
  readonly error?: string;
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
      description: 'The adapter instances, their state and whether their orchestrator or gateway answers',
      answer: answer(closed({ results: arrayOf(closed({ id: STRING, type: oneOfValues('nso', 'gateway'), baseUrl: STRING, enabled: BOOLEAN, state: oneOfValues('ONLINE', 'OFFLINE', 'DISABLED'), reachable: BOOLEAN, latencyMs: nullable(NUMBER), error: STRING }, ['error'])), total: INTEGER })),
      input: {},
      async handle() {
        const adapters = await deps.registry.list();
        const results = await Promise.all(adapters.map((a) => check(deps.client, a)));
        return { body: { results, total: results.length } };
      },
    }),
  ];
}
