/**
 * `pcUpdate`: a legacy whole-document update (`PUT /roles/:roleId`) as a
 * PATCH. Legacy clients send the document they read, wrapped (`{role: {...}}`)
 * or bare, with keys the PATCH refuses (`_id`, `builtIn`): the hatch keeps
 * only the fields the PATCH may change. Answers the updated document.
 *
 * with: {kind, id, body, wrapper?, fields: [names]}
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Hatch } from '../../run.ts';
import { argsOf, dataOf, kindOf, pathOf, send, text } from './common.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcUpdate';

export const pcUpdate: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const kind = kindOf(args, HATCH);
  const id = text(args, 'id', HATCH);
  const fields = args['fields'];
  if (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string')) throw new LegacyFailure(`${HATCH}: fields must be a list of names`);
  const wrapper = typeof args['wrapper'] === 'string' ? args['wrapper'] : null;
  const sent = args['body'];
  const doc = wrapper && isPlainObject(sent) && isPlainObject(sent[wrapper]) ? sent[wrapper] : sent;
  const updates = isPlainObject(doc) ? Object.fromEntries(fields.filter((f: string) => doc[f] !== undefined).map((f: string) => [f, doc[f]])) : {};
  if (Object.keys(updates).length === 0) throw new LegacyFailure(`The body names nothing to change; it may change ${fields.join(', ')}`);
  const { body } = await send(api.call, { method: 'PATCH', path: pathOf(kind, id), body: updates });
  return { status: 200, body: dataOf(body) };
};

export const pcUpdateHatch: HatchRecord = {
  name: 'pcUpdate',
  family: 'platform-core',
  why: 'a legacy whole-document PUT (wrapped or bare, with keys the PATCH refuses) becomes a PATCH of the changeable fields',
  with: {
    type: 'object',
    required: ['kind', 'id', 'body', 'fields'],
    additionalProperties: false,
    properties: {
      kind: { enum: ['accounts', 'groups', 'roles'] },
      id: { type: 'string', minLength: 1 },
      body: { type: 'object' },
      wrapper: { type: 'string', minLength: 1 },
      fields: { type: 'array', minItems: 1, items: { type: 'string' } },
    },
  },
  run: pcUpdate,
};
