/**
 * `pcLocalAccount`: creating a local account and setting its password. Our
 * core serves both (`POST /authorization/accounts`,
 * `PUT /authorization/accounts/:id/password`); a real Itential Platform
 * serves neither (they are not among its 2023.2 routes) and names no
 * replacement. The gateway cannot tell the two upstreams apart beforehand
 * without a setting that could be wrong, so it asks: the call is made, and a
 * 404 that does not mean "no such account" (the account reads fine, or there
 * is no account in the path) means the upstream has no such route. Then the
 * legacy error says that this platform offers no replacement, never a
 * success that did nothing (docs/decisions.md 32; docs/gateway.md).
 *
 * with: {op: create|password, id?, body}
 */
import { LegacyFailure } from '../../run.ts';
import type { Hatch, HatchRecord } from '../../run.ts';
import { argsOf, dataOf, pathOf, send, text } from './common.ts';
import { hatchRecord } from '../record.ts';

const HATCH = 'pcLocalAccount';

function noReplacement(what: string): LegacyFailure {
  return new LegacyFailure(`This platform offers no replacement for ${what}: it does not manage local accounts through its API; manage the account in the platform's authentication service`);
}

export const pcLocalAccount: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  if (args['op'] === 'create') {
    const { status, body } = await send(api.call, { method: 'POST', path: pathOf('accounts'), body: args['body'] }, [404]);
    if (status === 404) throw noReplacement('creating an account');
    return { status: 200, body: dataOf(body) };
  }
  const id = text(args, 'id', HATCH);
  const { status } = await send(api.call, { method: 'PUT', path: `${pathOf('accounts', id)}/password`, body: args['body'] }, [404]);
  if (status !== 404) return { status: 200, body: true };
  // The account's own 404 is the legacy error it always was; an account that reads fine means the route is missing.
  await send(api.call, { method: 'GET', path: pathOf('accounts', id) });
  throw noReplacement("setting an account's password");
};

export const pcLocalAccountHatch: HatchRecord = hatchRecord(
  HATCH,
  'platform-core',
  'a real platform has no route to create local accounts or set their passwords and names no replacement; the call is tried, and the upstream\'s missing route answered as the legacy error saying so',
  {
    required: ['op', 'body'],
    properties: { op: { enum: ['create', 'password'] }, id: { type: 'string', minLength: 1 }, body: { type: 'object' } },
    more: { if: { properties: { op: { const: 'password' } } }, then: { required: ['id'] } },
  },
  pcLocalAccount,
);
