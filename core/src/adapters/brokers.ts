/**
 * `GET /adapters/brokers/mapping`: which adapter instances serve each broker,
 * in the real platform's shape, an object from broker name to the names of
 * the instances that implement it (`{"aaa": ["Local AAA"], ...}`).
 *
 * Brokers are interfaces that several services can implement (device,
 * config, ...). Here (docs/relay.md, "Brokers"): the core's local
 * authentication, provenance `Local AAA`, serves `aaa`; every enabled
 * orchestrator (`nso`) adapter serves `device` and `config`, since it reads
 * and writes device configuration; automation-gateway adapters serve no
 * broker (their actions become tasks through the gateway manager instead). A
 * disabled adapter serves nothing, so it is left out. Every known broker is
 * listed, with an empty array when nothing serves it.
 */
import { answer, arrayOf, closed, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnyRoute } from '../../../kernel/index.ts';
import type { Adapter, AdapterRegistry } from './registry.ts';

const route = routeHelper({ provenance: 'Adapters', shape: 'plain' });

/** The brokers this platform knows, in the order they are answered. */
export const BROKERS = ['aaa', 'config', 'device'] as const;
export type Broker = (typeof BROKERS)[number];

/** The authentication the core itself provides (accounts' and groups' `provenance`). */
const LOCAL_AAA = 'Local AAA';

const SERVED_BY_TYPE: Readonly<Record<Adapter['type'], readonly Broker[]>> = {
  nso: ['config', 'device'],
  gateway: [],
};

export function brokerMapping(adapters: readonly Adapter[]): Record<Broker, string[]> {
  const mapping = Object.fromEntries(BROKERS.map((b) => [b, [] as string[]])) as Record<Broker, string[]>;
  mapping.aaa.push(LOCAL_AAA);
  for (const adapter of adapters) {
    if (!adapter.enabled) continue;
    for (const broker of SERVED_BY_TYPE[adapter.type]) mapping[broker].push(adapter.name);
  }
  return mapping;
}

export function brokerMappingRoutes(registry: AdapterRegistry): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: '/adapters/brokers/mapping',
      name: 'getBrokerMap',
      roles: ['admin', 'apiread', 'support'],
      description: 'Which adapter instances serve each broker: {"<broker>": ["<adapter name>", ...]}',
      answer: answer(closed({ aaa: arrayOf(STRING), config: arrayOf(STRING), device: arrayOf(STRING) })),
      input: {},
      async handle() {
        return { body: brokerMapping(await registry.list()) };
      },
    }),
  ];
}
