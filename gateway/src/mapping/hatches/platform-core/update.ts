/**
 * `pcUpdate`: a legacy whole-document update (`PUT /roles/:roleId`) as a
 * PATCH. Legacy clients send the document they read, wrapped (`{role: {...}}`)
 * or bare, with keys the PATCH refuses (`_id`, `builtIn`): the hatch keeps
 * only the fields the PATCH may change and sends them as `{"updates": {...}}`.
 * `fixed` fields (a role's `name` and `provenance`, which the platform's
 * update-role does not take) may be sent as they are, and are then left out;
 * a new value for one is refused, never dropped as if it had been written.
 * Answers the updated document.
 *
 * with: {kind, id, body, wrapper?, fields: [names], fixed?: [names]}
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Hatch } from '../../run.ts';
import { argsOf, kindOf, patch, pathOf, send, TARGET_ARGUMENTS, text } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcUpdate';
const NAMES_ARGUMENT = { type: 'array', items: { type: 'string' } } as const;

function names(value: unknown, key: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((f) => typeof f === 'string')) throw new LegacyFailure(`${HATCH}: ${key} must be a list of names`);
  return value;
}

export const pcUpdate: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const kind = kindOf(args, HATCH);
  const id = text(args, 'id', HATCH);
  const fields = names(args['fields'], 'fields');
  const fixed = names(args['fixed'], 'fixed');
  const wrapper = typeof args['wrapper'] === 'string' ? args['wrapper'] : null;
  const sent = args['body'];
  const doc = wrapper && isPlainObject(sent) && isPlainObject(sent[wrapper]) ? sent[wrapper] : sent;
  const given = isPlainObject(doc) ? doc : {};
  const pinned = fixed.filter((f) => given[f] !== undefined);
  if (pinned.length > 0) {
    const { body: current } = await send(api.call, { method: 'GET', path: pathOf(kind, id) });
    const changed = pinned.filter((f) => !isPlainObject(current) || current[f] !== given[f]);
    if (changed.length > 0) throw new LegacyFailure(`This platform cannot change a ${kind.slice(0, -1)}'s ${changed.join(' or ')}; send the ${kind.slice(0, -1)} with its current ${changed.join(' and ')}`);
  }
  const updates = Object.fromEntries(fields.filter((f) => given[f] !== undefined).map((f) => [f, given[f]]));
  if (Object.keys(updates).length === 0) throw new LegacyFailure(`The body names nothing to change; it may change ${fields.join(', ')}`);
  return patch(api, kind, id, updates);
};

export const pcUpdateHatch: HatchRecord = hatchRecord(
  HATCH,
  'platform-core',
  'a legacy whole-document PUT (wrapped or bare, with keys the PATCH refuses) becomes a PATCH of the changeable fields; fields the platform cannot change must be sent unchanged',
  { required: ['kind', 'id', 'body', 'fields'], properties: { ...TARGET_ARGUMENTS, body: { type: 'object' }, wrapper: { type: 'string', minLength: 1 }, fields: { ...NAMES_ARGUMENT, minItems: 1 }, fixed: NAMES_ARGUMENT } },
  pcUpdate,
);
