/**
 * The shapes the operations manager answers in `data` and `metadata`
 * (docs/openapi.md). Job and task documents are closed to the properties
 * the search knows for them (their field registries), so a renamed property fails
 * the contract check; the values a workflow defines (variables, task
 * entries, outputs) are open. Projections cut documents, and dereferences
 * put documents where ids were, so in a page no property is required.
 */
import { ANY, arrayOf, BOOLEAN, closed, INTEGER, jobs, nullable, NUMBER, OBJECT, oneOfValues, stored, STRING, tasks } from '../../../kernel/index.ts';
import type { AnswerShape, DocType } from '../../../kernel/index.ts';
import { triggers } from '../store/doc-types.ts';

/** Every property the document type lists, typed where this code fixes the type, any JSON value otherwise. */
function documentOf(type: DocType, typed: Readonly<Record<string, AnswerShape>>, required: readonly string[], extra: Readonly<Record<string, AnswerShape>> = {}): AnswerShape {
  const properties: Record<string, AnswerShape> = { ...extra };
  for (const name of type.properties) properties[name] = typed[name] ?? ANY;
  return stored(properties, required);
}

const TEXT_FIELDS = (...names: string[]): Record<string, AnswerShape> => Object.fromEntries(names.map((n) => [n, STRING]));
/** An id, or the document it names once dereferenced. */
const REFERENCE: AnswerShape = { anyOf: [STRING, OBJECT] };

const jobTyped: Record<string, AnswerShape> = {
  ...TEXT_FIELDS('_id', 'name', 'description', 'type', 'status', 'created', 'created_by', 'last_updated', 'last_updated_by'),
  tasks: OBJECT,
  transitions: OBJECT,
  variables: OBJECT,
  watchers: arrayOf(STRING),
  groups: arrayOf(REFERENCE),
  ancestors: arrayOf(STRING),
  metrics: OBJECT,
  error: arrayOf(ANY),
};
/** A job as a page or a projected read may show it. */
export const JOB_PART = documentOf(jobs, jobTyped, []);
/** A whole job (a read without projection, a start). */
export const JOB = documentOf(jobs, jobTyped, ['_id', 'name', 'status']);

const taskTyped: Record<string, AnswerShape> = {
  ...TEXT_FIELDS('_id', 'name', 'summary', 'description', 'location', 'app', 'type', 'status', 'last_updated'),
  view: nullable(STRING),
  variables: OBJECT,
  job: OBJECT,
  groups: arrayOf(REFERENCE),
  metrics: OBJECT,
  deprecated: BOOLEAN,
  scheduled: BOOLEAN,
};
export const TASK_PART = documentOf(tasks, taskTyped, []);

export const PAGE_METADATA = closed({ skip: INTEGER, limit: INTEGER, nextPageSkip: nullable(INTEGER), previousPageSkip: nullable(INTEGER), total: INTEGER, currentPageSize: INTEGER });

export const MANUAL_CONTROLLER = closed({
  jobId: STRING,
  taskId: STRING,
  iteration: nullable(STRING),
  status: STRING,
  owner: nullable(STRING),
  view: STRING,
  incoming: OBJECT,
  outgoing: OBJECT,
  finishStates: arrayOf(STRING),
});

/** A trigger of any type: what its type adds, and what its last runs left (docs/om-automations.md), are optional. */
export const TRIGGER = documentOf(
  triggers,
  {
    ...TEXT_FIELDS('_id', 'name', 'description', 'actionId', 'routeName', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'),
    type: oneOfValues('endpoint', 'manual', 'schedule'),
    enabled: BOOLEAN,
    actionType: oneOfValues('automations'),
    verb: STRING,
    schema: OBJECT,
    formId: nullable(STRING),
    legacyWrapper: BOOLEAN,
    firstRunAt: NUMBER,
    repeatInterval: nullable(NUMBER),
    processMissedRuns: oneOfValues('none', 'last'),
    nextRunAt: nullable(NUMBER),
    lastRunAt: nullable(NUMBER),
  },
  ['_id', 'name', 'type'],
  { lastFinishedAt: nullable(NUMBER), failedAt: ANY, failReason: ANY, failCount: ANY },
);

export const AUTOMATION = stored(
  {
    ...TEXT_FIELDS('_id', 'name', 'description', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy', 'migratedFrom'),
    componentType: oneOfValues('workflows'),
    componentId: nullable(STRING),
    componentName: nullable(STRING),
  },
  ['_id', 'name'],
);
/** An automation as exported and imported: with its triggers. */
export const AUTOMATION_EXPORT: AnswerShape = { ...AUTOMATION, properties: { ...(AUTOMATION['properties'] as Record<string, AnswerShape>), triggers: arrayOf(TRIGGER) } };

/** What an import could not take, one entry per document. */
export const FAILURES = closed({ failures: arrayOf(closed({ parameter: STRING, message: STRING })) }, ['failures']);
