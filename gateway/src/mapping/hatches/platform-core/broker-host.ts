/**
 * `pcBrokerHost`: `GET /broker/host/:name`, the adapter instances serving one
 * broker. The new interface answers only the whole mapping
 * (`GET /adapters/brokers/mapping`, `{"<broker>": ["<adapter>", ...]}`) and a
 * template cannot pick a key named by the request, so this picks it: the
 * broker's array, or `[]` for a broker nothing serves or the platform does
 * not know (docs/gateway.md, "Brokers").
 *
 * with: {name}
 */
import type { Hatch } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import { argsOf, send, text } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcBrokerHost';

export const pcBrokerHost: Hatch = async (raw, _scope, api) => {
  const name = text(argsOf(raw, HATCH), 'name', HATCH);
  const { body: mapping } = await send(api.call, { method: 'GET', path: '/adapters/brokers/mapping' });
  const hosts = isPlainObject(mapping) && Object.hasOwn(mapping, name) ? mapping[name] : [];
  return { status: 200, body: Array.isArray(hosts) ? hosts : [] };
};

export const pcBrokerHostHatch: HatchRecord = hatchRecord(
  HATCH,
  'platform-core',
  'the answer is the key of the brokers mapping named by the request, which a template path cannot pick',
  { required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
  pcBrokerHost,
);
