/**
 * The orchestrator's service models, read through the relay: one RESTCONF
 * GET of NSO's services container. Service packages augment it with nodes of
 * their own YANG module, so in RFC 7951 JSON they are the members carrying a
 * module prefix (`l3vpn:l3vpn`); NSO's own children (same module as the
 * container) carry none and are left out. NSO answers only what has data, so
 * a model without a single instance does not appear.
 */
import type { AdapterRegistry } from '../adapters/registry.ts';
import { AppError, isPlainObject } from '../../../kernel/index.ts';
import type { Relay } from '../relay/relay.ts';

export const SERVICES_PATH = '/restconf/data/tailf-ncs:services';
// Depth 3 keeps the key leaves of each instance and drops the service configuration below them.
const QUERY_PATH = `${SERVICES_PATH}?depth=3`;
const YANG_JSON = 'application/yang-data+json';

export interface ServiceModel {
  /** The qualified node name, e.g. `l3vpn:l3vpn`. */
  readonly name: string;
  readonly module: string;
  /** Where the model's instances are read, relative to the adapter's base. */
  readonly path: string;
  readonly kind: 'list' | 'container' | 'leaf';
  /** Entries of the list; for a container, the entries of the lists directly inside it. */
  readonly instances: number;
}

export interface ServiceModelsAnswer {
  readonly adapterId: string;
  readonly results: ServiceModel[];
  readonly total: number;
}

function model(name: string, value: unknown): ServiceModel {
  const module = name.slice(0, name.indexOf(':'));
  const path = `${SERVICES_PATH}/${name}`;
  if (Array.isArray(value)) return { name, module, path, kind: 'list', instances: value.length };
  if (isPlainObject(value)) {
    const instances = Object.values(value).reduce<number>((n, child) => n + (Array.isArray(child) ? child.length : 0), 0);
    return { name, module, path, kind: 'container', instances };
  }
  return { name, module, path, kind: 'leaf', instances: 0 };
}

/** The models in a services answer; throws a 502 when the answer is not the container asked for. */
export function modelsOf(instanceData: unknown, adapterId: string): ServiceModel[] {
  const container = isPlainObject(instanceData) ? (instanceData['tailf-ncs:services'] ?? instanceData['services']) : undefined;
  if (!isPlainObject(container)) {
    throw new AppError(502, 'UPSTREAM_FAILED', `Adapter "${adapterId}" did not answer the services container (${SERVICES_PATH}) as JSON`);
  }
  return Object.entries(container)
    .filter(([name]) => /^[^:]+:[^:]+$/.test(name) && !name.startsWith('tailf-ncs:'))
    .map(([name, value]) => model(name, value))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface ServiceModelsDeps {
  readonly relay: Relay;
  readonly registry: AdapterRegistry;
}

/** The first enabled orchestrator adapter, in the registry's order (configured ones first). */
async function firstOrchestrator(registry: AdapterRegistry): Promise<string> {
  const adapter = (await registry.list()).find((a) => a.type === 'nso' && a.enabled);
  if (!adapter) throw new AppError(404, 'NOT_FOUND', 'No orchestrator adapter is available; configure one of type nso or name one with adapterId', [{ parameter: 'adapterId', message: 'no enabled nso adapter exists' }]);
  return adapter.name;
}

export async function serviceModels(deps: ServiceModelsDeps, adapterId: string | undefined): Promise<ServiceModelsAnswer> {
  const chosen = adapterId ?? (await firstOrchestrator(deps.registry));
  // The relay checks the adapter (unknown, disabled, not an orchestrator) and maps orchestrator errors.
  const answer = await deps.relay.restQuery(chosen, { params: { path: QUERY_PATH, accept: YANG_JSON } });
  const results = modelsOf(answer.instance_data, chosen);
  return { adapterId: chosen, results, total: results.length };
}
