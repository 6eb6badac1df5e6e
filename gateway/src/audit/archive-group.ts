/**
 * The gateway's archive group (docs/archive.md): audit records whose `time`
 * is before the cutoff, filed under the day they were written.
 */
import { dayOf, fieldOf, lt, readSliced } from '../../../kernel/index.ts';
import type { GroupSpec } from '../../../kernel/index.ts';
import { audit as auditType } from './collection.ts';

export const auditGroup: GroupSpec = {
  name: 'audit',
  kinds: ['audit'],
  primary: 'audit',
  windowField: fieldOf(auditType, 'time'),
  due: (cutoff) => lt(fieldOf(auditType, 'time'), cutoff),
  async expand(store, ids) {
    return (await readSliced(store, 'audit', ids)).map(({ doc, json }) => ({ kind: 'audit' as const, day: dayOf(Number(doc['time'])), id: String(doc['_id']), json }));
  },
};
