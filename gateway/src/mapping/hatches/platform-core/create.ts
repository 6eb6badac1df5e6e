/**
 * `pcCreate`: the legacy group and role creates. Legacy clients sent the
 * document wrapped (`{group: {...}}`, `{role: {...}}`) or bare; the
 * platform's create takes only the wrapped form (ipctl `groups.go`,
 * `roles.go`), which our core takes too, so a bare document is wrapped and a
 * wrapped one passed as it came. Answers the created document.
 *
 * with: {kind: groups|roles, body}
 */
import type { Hatch, HatchRecord } from '../../run.ts';
import { argsOf, dataOf, kindOf, pathOf, send } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcCreate';

export const pcCreate: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const kind = kindOf(args, HATCH, ['groups', 'roles']);
  const wrapper = kind === 'groups' ? 'group' : 'role';
  const sent = args['body'];
  const wrapped = isPlainObject(sent) && Object.keys(sent).length === 1 && isPlainObject(sent[wrapper]);
  const { body } = await send(api.call, { method: 'POST', path: pathOf(kind), body: wrapped ? sent : { [wrapper]: sent } });
  return { status: 200, body: dataOf(body) };
};

export const pcCreateHatch: HatchRecord = hatchRecord(
  HATCH,
  'platform-core',
  'the platform creates a group or role only from the wrapped body ({group}, {role}); a bare legacy body is wrapped, a wrapped one passed on',
  { required: ['kind', 'body'], properties: { kind: { enum: ['groups', 'roles'] }, body: { type: 'object' } } },
  pcCreate,
);
