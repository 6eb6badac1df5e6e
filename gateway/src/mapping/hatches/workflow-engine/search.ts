/**
 * `weSearch`: every legacy job and task search (find, searchJobs,
 * searchTasks, getAssociatedJobs, queryJobs, queryTasksBrief, getTask,
 * getTaskStatuses) with MongoDB's semantics (gateway/src/mapping/legacy-search.ts).
 * Paging past the upstream's page and the projection need code.
 *
 * with: {type: jobs|tasks, query, options?: {sort, skip, limit, fields},
 *        fields?: (overrides options.fields), fixed?: {include|exclude: [paths]},
 *        dereference?, answer: list|results|first}
 * `list` answers the documents, `results` the legacy wrapper
 * `{results, skip, limit, total}` (limit 0: none), `first` the first
 * document or null.
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Hatch } from '../../run.ts';
import { legacySearch } from '../../legacy-search.ts';
import type { SearchType } from '../../legacy-search.ts';
import type { MongoProjection } from '../../legacy-options.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject, ownProperty } from '../../../../../kernel/index.ts';

const HATCH = 'weSearch';

function fixedOf(value: unknown): MongoProjection | null {
  if (value === undefined) return null;
  if (isPlainObject(value) && Array.isArray(value['include'])) return { kind: 'include', paths: value['include'].map(String), dropId: false };
  if (isPlainObject(value) && Array.isArray(value['exclude'])) return { kind: 'exclude', paths: value['exclude'].map(String) };
  throw new LegacyFailure(`${HATCH}: fixed must be {include: [...]} or {exclude: [...]}`);
}

export const weSearch: Hatch = async (raw, _scope, api) => {
  const args = isPlainObject(raw) ? raw : {};
  const type = args['type'];
  if (type !== 'jobs' && type !== 'tasks') throw new LegacyFailure(`${HATCH}: type must be jobs or tasks`);
  const sent = args['options'];
  if (sent !== undefined && !isPlainObject(sent)) throw new LegacyFailure('options must be an object');
  const options = sent ?? {};
  const answer = args['answer'];
  const first = answer === 'first';
  const found = await legacySearch(api, {
    type: type as SearchType,
    query: args['query'],
    sort: ownProperty(options, 'sort'),
    skip: ownProperty(options, 'skip'),
    limit: first ? 1 : ownProperty(options, 'limit'),
    // The caller's options are data: only their own keys count (docs/security.md).
    fields: Object.hasOwn(args, 'fields') ? args['fields'] : ownProperty(options, 'fields'),
    fixed: fixedOf(args['fixed']),
    extra: typeof args['dereference'] === 'string' ? { dereference: args['dereference'] } : {},
  });
  if (first) return { status: 200, body: found.docs[0] ?? null };
  if (answer === 'results') return { status: 200, body: { results: found.docs, skip: found.skip, limit: found.limit ?? 0, total: found.total } };
  return { status: 200, body: found.docs };
};

export const weSearchHatch: HatchRecord = hatchRecord(
  HATCH,
  'workflow-engine',
  'MongoDB semantics for legacy job and task searches: paging past the upstream\'s page and the projection need code',
  {
    required: ['type', 'query', 'answer'],
    properties: {
      type: { enum: ['jobs', 'tasks'] },
      query: { type: 'object' },
      options: { type: 'object' },
      fields: { type: ['object', 'null'] },
      fixed: {
        type: 'object',
        minProperties: 1,
        maxProperties: 1,
        additionalProperties: false,
        properties: { include: { type: 'array', items: { type: 'string' } }, exclude: { type: 'array', items: { type: 'string' } } },
      },
      dereference: { type: 'string', minLength: 1 },
      answer: { enum: ['list', 'results', 'first'] },
    },
  },
  weSearch,
);
