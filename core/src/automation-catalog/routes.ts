/**
 * `/automation_catalog/automations` routes (provenance AutomationCatalog,
 * plain surface). Answers are the automation document (without `_rev`), a
 * list page `{results, total}`, or a summary of a bulk write; errors are
 * `{message, code, details}`. docs/automation-catalog.md has every shape.
 */
import Joi from 'joi';
import { shownJob } from '../jobs/document.ts';
import { answer, arrayOf, BOOLEAN, closed, INTEGER, joiBody, joiObjectId, joiParams, nullable, OBJECT, oneOfValues, open, routeHelper, splitQueryString, STRING, ValidationError } from '../../../kernel/index.ts';
import type { AnyRoute, RouteContext, SearchQuery, Validator } from '../../../kernel/index.ts';
import { catalogAutomations as automationType } from '../store/doc-types.ts';
import { listQuery } from '../http/list-query.ts';
import type { ListLimits } from '../http/list-query.ts';
import { exportView, MAX_NAME_LENGTH, view } from './document.ts';
import type { CatalogSchedule } from './document.ts';
import { deleteIds } from './delete-body.ts';
import { PROVENANCE } from './gbac.ts';
import type { AutomationCatalog, UpdateOptions } from './service.ts';
import type { Caller } from '../auth/caller.ts';
import { JOB } from '../operations-manager/answers.ts';

const CATALOG_READ_ROLES = ['admin', 'apiread', 'operations', 'engineering'];
const CATALOG_WRITE_ROLES = ['admin', 'engineering', 'operations'];
const route = routeHelper({ provenance: PROVENANCE, shape: 'plain' });
/** A catalog automation: the platform's fields typed; documents migrated from its scheduler may carry others. */
const AUTOMATION = open(
  {
    _id: STRING,
    name: STRING,
    type: oneOfValues('normal'),
    data: OBJECT,
    nextRunAt: nullable(STRING),
    repeatInterval: nullable(STRING),
    repeatTimezone: nullable(STRING),
    lastRunAt: nullable(STRING),
    lastFinishedAt: nullable(STRING),
    lockedAt: nullable(STRING),
    disabled: BOOLEAN,
    lastModifiedBy: nullable(STRING),
    migratedToOM: BOOLEAN,
    correspondingOMAutomationId: nullable(STRING),
    failedAt: nullable(STRING),
    failReason: nullable(STRING),
    failCount: INTEGER,
  },
  ['_id', 'name'],
);
const DETAIL = closed({ parameter: STRING, message: STRING });
const BASE = '/automation_catalog/automations';
const MAX_ITEMS = 1000;

type IdParams = { id: string };

const idParam = joiParams<IdParams>(Joi.object({ id: joiObjectId('an automation id').required() }));
const isoDate = () => Joi.string().isoDate().allow(null).messages({ 'string.isoDate': 'must be an ISO 8601 date-time or null' });
const groupIds = () => Joi.array().items(Joi.string().min(1).max(64)).max(1000);
const scheduleKeys = {
  nextRunAt: isoDate(),
  repeatInterval: Joi.string().min(1).max(200).allow(null),
  repeatTimezone: Joi.string().min(1).max(100).allow(null),
};
const scheduleFields = Joi.object<CatalogSchedule>({ ...scheduleKeys, disabled: Joi.boolean() }).min(1);

const createBody = joiBody<{ name: string; description: string }>(
  Joi.object({ name: Joi.string().min(1).max(MAX_NAME_LENGTH).required(), description: Joi.string().allow('').max(10_000).required() }),
);
const updateBody = joiBody<{ options: UpdateOptions }>(
  Joi.object({
    options: Joi.object<UpdateOptions>({
      workflow: Joi.string().min(1).max(MAX_NAME_LENGTH).allow(null),
      workflowId: Joi.string().min(1).max(MAX_NAME_LENGTH).allow(null),
      formId: Joi.string().min(1).max(64).allow(null),
      // Both lists or neither, as the platform's schema requires.
      gbac: Joi.object({ read: groupIds().required(), write: groupIds().required() }),
      formData: Joi.object().unknown(true).allow(null),
      ...scheduleKeys,
    })
      .oxor('workflow', 'workflowId')
      .min(1)
      .required(),
  }),
);
// The 2019.3 catalog sent schedule fields bare; `{options: {...}}` as in update is read too.
const scheduleBody = joiBody<CatalogSchedule | { options: CatalogSchedule }>(Joi.alternatives().try(Joi.object({ options: scheduleFields.required() }), scheduleFields));
const runBody = joiBody<{ formData?: Record<string, unknown> }>(Joi.object({ formData: Joi.object().unknown(true) }));
// Read by deleteIds in the handler (see delete-body.ts); declared so a parsed body is allowed through.
const deleteBody: Validator<unknown, unknown> = { validate: (raw) => raw };

/** A list of documents given bare, as one object, or under `key`; each is checked by the service. */
function documents(key: string): Validator<unknown, unknown[]> {
  return {
    validate(raw) {
      const record = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
      const list = Array.isArray(raw) ? raw : record && Array.isArray(record[key]) && record['name'] === undefined ? (record[key] as unknown[]) : record && Object.keys(record).length > 0 ? [record] : [];
      if (list.length === 0 || list.length > MAX_ITEMS) {
        throw new ValidationError(`Invalid body: give 1 to ${MAX_ITEMS} documents, as {${key}: [...]}, an array or one document`, [{ parameter: 'body', message: `must hold 1 to ${MAX_ITEMS} documents` }]);
      }
      return list;
    },
  };
}

/** Without `limit` the list is whole (up to the largest page): the catalog's list answered every automation. */
function allByDefault(inner: Validator<string, SearchQuery>, limits: ListLimits): Validator<string, SearchQuery> {
  return {
    validate(queryString) {
      const query = inner.validate(queryString);
      return splitQueryString(queryString).some((p) => p.name === 'limit') ? query : { ...query, limit: limits.maxLimit };
    },
  };
}

function user(ctx: RouteContext): string {
  return ctx.caller!.username;
}

/** Every catalog route is guarded by roles, so a caller is always there. */
function callerOf(ctx: RouteContext): Caller {
  return ctx.caller!;
}

export function automationCatalogRoutes(catalog: AutomationCatalog, limits: ListLimits): AnyRoute[] {
  return [
    route({
      method: 'POST',
      path: BASE,
      name: 'createAutomation',
      roles: CATALOG_WRITE_ROLES,
      description: 'Create an automation from {name, description}; answers the automation',
      answer: answer(AUTOMATION),
      input: { body: createBody },
      async handle({ body }, ctx) {
        return { body: view(await catalog.create(body.name, body.description, user(ctx))) };
      },
    }),
    route({
      method: 'DELETE',
      path: BASE,
      name: 'deleteAutomations',
      roles: CATALOG_WRITE_ROLES,
      description: 'Delete the automations named by an array of ids; answers {deleted, notFound}',
      answer: answer(closed({ deleted: arrayOf(STRING), notFound: arrayOf(STRING) })),
      input: { body: deleteBody },
      async handle(_input, ctx) {
        return { body: await catalog.delete(await deleteIds(ctx), callerOf(ctx)) };
      },
    }),
    route({
      method: 'GET',
      path: `${BASE}/:id/export`,
      name: 'exportAutomation',
      roles: CATALOG_READ_ROLES,
      description: 'One automation in the import format',
      answer: answer(AUTOMATION),
      input: { params: idParam },
      async handle({ params }, ctx) {
        return { body: exportView(await catalog.get(params.id, callerOf(ctx))) };
      },
    }),
    route({
      method: 'GET',
      path: `${BASE}/:id`,
      name: 'getAutomationById',
      roles: CATALOG_READ_ROLES,
      description: 'One automation',
      answer: answer(AUTOMATION),
      input: { params: idParam },
      async handle({ params }, ctx) {
        return { body: view(await catalog.get(params.id, callerOf(ctx))) };
      },
    }),
    route({
      method: 'GET',
      path: BASE,
      name: 'getAutomations',
      roles: CATALOG_READ_ROLES,
      description: 'All automations in name order, as {results, total}; limit, skip, sort, order and equals/contains/startsWith filters',
      answer: answer(closed({ results: arrayOf(AUTOMATION), total: INTEGER })),
      input: { query: allByDefault(listQuery(automationType, limits), limits) },
      async handle({ query }, ctx) {
        const page = await catalog.list(query, callerOf(ctx));
        return { body: { results: page.docs.map(view), total: page.total } };
      },
    }),
    route({
      method: 'POST',
      path: `${BASE}/import`,
      name: 'importAutomations',
      roles: CATALOG_WRITE_ROLES,
      description: 'Insert automations from exported documents ({automations: [...]}, an array, or one); answers {message, imported, failed}',
      answer: answer(closed({ message: STRING, imported: arrayOf(AUTOMATION), failed: arrayOf(DETAIL) })),
      input: { body: documents('automations') },
      async handle({ body }, ctx) {
        const { imported, failed } = await catalog.import(body, user(ctx));
        const message = `Successfully imported ${imported.length} of ${body.length} documents`;
        if (imported.length === 0) throw new ValidationError(`Imported 0 of ${body.length} documents: ${failed.map((f) => `${f.parameter} ${f.message}`).join('; ')}`, failed);
        return { body: { message, imported: imported.map(view), failed } };
      },
    }),
    route({
      method: 'POST',
      path: `${BASE}/migration`,
      name: 'migrateSchedulerJobs',
      roles: CATALOG_WRITE_ROLES,
      description: 'Convert scheduler (Agenda) job documents ({jobs: [...]}, an array, or one) into automations; answers {message, converted, skipped}',
      answer: answer(closed({ message: STRING, converted: arrayOf(closed({ index: INTEGER, _id: STRING, name: STRING })), skipped: arrayOf(closed({ index: INTEGER, name: nullable(STRING), reason: STRING })) })),
      input: { body: documents('jobs') },
      async handle({ body }, ctx) {
        const result = await catalog.migrate(body, user(ctx));
        ctx.logger.info('scheduler jobs migrated', { converted: result.converted.length, skipped: result.skipped.length });
        return { body: { message: `Converted ${result.converted.length} of ${body.length} scheduler jobs`, ...result } };
      },
    }),
    route({
      method: 'POST',
      path: `${BASE}/:id/run`,
      name: 'runAutomation',
      roles: CATALOG_WRITE_ROLES,
      description: "Start the attached workflow's job now, outside the schedule; answers the job",
      answer: answer(JOB),
      input: { params: idParam, body: runBody },
      async handle({ params, body }, ctx) {
        return { body: shownJob(await catalog.run(params.id, callerOf(ctx), body.formData)) };
      },
    }),
    route({
      method: 'PUT',
      path: `${BASE}/:id/schedule`,
      name: 'scheduleAutomation',
      roles: CATALOG_WRITE_ROLES,
      description: 'Change only the schedule: nextRunAt, repeatInterval, repeatTimezone, disabled; answers the automation',
      answer: answer(AUTOMATION),
      input: { params: idParam, body: scheduleBody },
      async handle({ params, body }, ctx) {
        const change = 'options' in body ? body.options : body;
        return { body: view(await catalog.schedule(params.id, change, callerOf(ctx))) };
      },
    }),
    route({
      method: 'PUT',
      path: `${BASE}/:id`,
      name: 'updateAutomation',
      roles: CATALOG_WRITE_ROLES,
      description: 'Update the workflow, form, gbac, form data and schedule from {options}; answers the automation',
      answer: answer(AUTOMATION),
      input: { params: idParam, body: updateBody },
      async handle({ params, body }, ctx) {
        return { body: view(await catalog.update(params.id, body.options, callerOf(ctx))) };
      },
    }),
  ];
}
