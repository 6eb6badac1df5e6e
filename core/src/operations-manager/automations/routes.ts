/**
 * Automation routes of the operations manager (docs/om-automations.md), plus the
 * migration of an automation-catalog automation. All answer the
 * operations-manager envelope.
 */
import Joi from 'joi';
import { answer, arrayOf, closed, INTEGER, joiBody, joiObjectId, joiParams, NULL, STRING } from '../../../../kernel/index.ts';
import type { AnyRoute } from '../../../../kernel/index.ts';
import { omAutomations } from '../../store/doc-types.ts';
import { OM_READ_ROLES, OM_WRITE_ROLES, omRoute } from '../route.ts';
import { migrateCatalogAutomation } from './migrate.ts';
import type { MigrateDeps } from './migrate.ts';
import { createSchema, patchSchema } from './model.ts';
import type { OmAutomationInput } from './model.ts';
import { envelope, importBody, importedEnvelope, listEnvelope, omListQuery, view } from './om-list.ts';
import type { OmAutomationService } from './service.ts';
import { AUTOMATION, AUTOMATION_EXPORT, FAILURES, PAGE_METADATA, TRIGGER } from '../answers.ts';
import type { ListLimits } from '../../http/list-query.ts';

type Id = { id: string };
const idParam = joiParams<Id>(Joi.object({ id: joiObjectId().required() }));

export function omAutomationRoutes(service: OmAutomationService, migration: MigrateDeps, limits: ListLimits): AnyRoute[] {
  return [
    omRoute({
      method: 'GET',
      path: '/operations-manager/automations',
      name: 'getAutomations',
      roles: OM_READ_ROLES,
      description: 'List automations with the generic filters',
      answer: answer(arrayOf(AUTOMATION)),
      answerMetadata: answer(PAGE_METADATA),
      input: { query: omListQuery(omAutomations, limits) },
      handle: ({ query }) => listEnvelope(service.collection, query, 'Successfully retrieved automations'),
    }),
    omRoute({
      method: 'POST',
      path: '/operations-manager/automations',
      name: 'createAutomation',
      roles: OM_WRITE_ROLES,
      description: 'Create an automation running a workflow (componentId or componentName)',
      answer: answer(AUTOMATION),
      input: { body: joiBody<OmAutomationInput>(createSchema) },
      async handle({ body }, ctx) {
        return envelope('Successfully created automation', view(await service.create(body, ctx.caller!)));
      },
    }),
    omRoute({
      method: 'PUT',
      path: '/operations-manager/automations',
      name: 'importAutomations',
      roles: OM_WRITE_ROLES,
      description: 'Import automations (as exported, with their triggers); each is imported or reported on its own',
      answer: answer(arrayOf(AUTOMATION_EXPORT)),
      answerMetadata: answer(FAILURES),
      input: { body: importBody('automations') },
      async handle({ body }, ctx) {
        const { imported, failures } = await service.importMany(body.automations, ctx.caller!);
        return importedEnvelope(imported, body.automations.length, failures);
      },
    }),
    omRoute({
      method: 'POST',
      path: '/operations-manager/automations/clone',
      name: 'cloneAutomation',
      roles: OM_WRITE_ROLES,
      description: 'Copy an automation and its triggers (the copies disabled) under a new name',
      answer: answer(AUTOMATION),
      answerMetadata: answer(closed({ triggers: arrayOf(TRIGGER) })),
      input: { body: joiBody<{ id: string; name?: string }>(Joi.object({ id: joiObjectId().required(), name: Joi.string().trim().min(1).max(200) })) },
      async handle({ body }, ctx) {
        const { automation, triggers } = await service.clone(body.id, body.name, ctx.caller!);
        return envelope('Successfully cloned automation', view(automation), { triggers: triggers.map(view) });
      },
    }),
    omRoute({
      method: 'POST',
      path: '/operations-manager/automations/migrate/:catalogAutomationId',
      name: 'migrateAutomation',
      roles: OM_WRITE_ROLES,
      description: 'Create the operations-manager automation and triggers of an automation-catalog automation',
      answer: answer(closed({ automation: AUTOMATION, triggers: arrayOf(TRIGGER) })),
      answerMetadata: answer(closed({ warnings: arrayOf(STRING) }, ['warnings'])),
      // Everything comes from the catalog automation; an empty JSON object (what clients send by habit) is accepted.
      input: { params: joiParams<{ catalogAutomationId: string }>(Joi.object({ catalogAutomationId: joiObjectId().required() })), body: joiBody(Joi.object<Record<string, never>>({})) },
      async handle({ params }, ctx) {
        const migrated = await migrateCatalogAutomation(migration, params.catalogAutomationId, ctx.caller!);
        return envelope('Successfully migrated automation', { automation: view(migrated.automation), triggers: migrated.triggers.map(view) }, migrated.warnings.length > 0 ? { warnings: migrated.warnings } : {});
      },
    }),
    omRoute({
      method: 'GET',
      path: '/operations-manager/automations/:id',
      name: 'getAutomation',
      roles: OM_READ_ROLES,
      description: 'Read one automation',
      answer: answer(AUTOMATION),
      input: { params: idParam },
      async handle({ params }) {
        return envelope('Successfully retrieved automation', view(await service.get(params.id)));
      },
    }),
    omRoute({
      method: 'PATCH',
      path: '/operations-manager/automations/:id',
      name: 'updateAutomation',
      roles: OM_WRITE_ROLES,
      description: 'Change the name, description or workflow of an automation',
      answer: answer(AUTOMATION),
      input: { params: idParam, body: joiBody<OmAutomationInput>(patchSchema) },
      async handle({ params, body }, ctx) {
        return envelope('Successfully updated automation', view(await service.update(params.id, body, ctx.caller!)));
      },
    }),
    omRoute({
      method: 'DELETE',
      path: '/operations-manager/automations/:id',
      name: 'deleteAutomation',
      roles: OM_WRITE_ROLES,
      description: 'Delete an automation and its triggers',
      answer: answer(NULL),
      answerMetadata: answer(closed({ deletedTriggers: INTEGER })),
      input: { params: idParam },
      async handle({ params }) {
        const deletedTriggers = await service.delete(params.id);
        return envelope('Successfully deleted automation', null, { deletedTriggers });
      },
    }),
    omRoute({
      method: 'GET',
      path: '/operations-manager/automations/:id/export',
      name: 'exportAutomation',
      roles: OM_READ_ROLES,
      description: 'One automation with its triggers, in the form importAutomations accepts',
      answer: answer(AUTOMATION_EXPORT),
      input: { params: idParam },
      async handle({ params }) {
        return envelope('Successfully exported automation', await service.export(params.id));
      },
    }),
  ];
}
