/**
 * Automation routes of the operations manager (docs/om-automations.md), plus the
 * migration of an automation-catalog automation. All answer the
 * operations-manager envelope.
 */
import Joi from 'joi';
import { defineRoute, joiBody, joiParams } from '../../../../kernel/index.ts';
import type { AnyRoute, RouteDef, SearchQuery } from '../../../../kernel/index.ts';
import { omAutomations } from '../../store/doc-types.ts';
import { OM } from '../search-routes.ts';
import { migrateCatalogAutomation } from './migrate.ts';
import type { MigrateDeps } from './migrate.ts';
import { createSchema, objectId, patchSchema } from './model.ts';
import type { AutomationInput } from './model.ts';
import { envelope, listEnvelope, omListQuery, READ_ROLES, view, WRITE_ROLES } from './om-list.ts';
import type { AutomationService } from './service.ts';

type Id = { id: string };
const idParam = joiParams<Id>(Joi.object({ id: objectId().required() }));

function om<P, Q, B>(write: boolean, route: Omit<RouteDef<P, Q, B>, 'provenance' | 'roles' | 'surface'>): AnyRoute {
  return defineRoute<P, Q, B>({ ...route, provenance: OM, roles: write ? WRITE_ROLES : READ_ROLES, surface: 'operations-manager' });
}

export function automationRoutes(service: AutomationService, migration: MigrateDeps): AnyRoute[] {
  return [
    om<Record<string, never>, SearchQuery, undefined>(false, {
      method: 'GET',
      path: '/operations-manager/automations',
      name: 'getAutomations',
      description: 'List automations with the generic filters',
      input: { query: omListQuery(omAutomations) },
      handle: ({ query }) => listEnvelope(service.collection, query, 'Successfully retrieved automations'),
    }),
    om<Record<string, never>, Record<string, never>, AutomationInput>(true, {
      method: 'POST',
      path: '/operations-manager/automations',
      name: 'createAutomation',
      description: 'Create an automation running a workflow (componentId or componentName)',
      input: { body: joiBody(createSchema) },
      async handle({ body }, ctx) {
        return envelope('Successfully created automation', view(await service.create(body, ctx.caller!)));
      },
    }),
    om<Record<string, never>, Record<string, never>, { automations: unknown[] }>(true, {
      method: 'PUT',
      path: '/operations-manager/automations',
      name: 'importAutomations',
      description: 'Import automations (as exported, with their triggers); each is imported or reported on its own',
      input: { body: joiBody(Joi.object({ automations: Joi.array().items(Joi.any()).min(1).max(1000).required() })) },
      async handle({ body }, ctx) {
        const { imported, failures } = await service.importMany(body.automations, ctx.caller!);
        return envelope(`Successfully imported ${imported.length} of ${body.automations.length} documents`, imported, failures.length > 0 ? { failures } : {});
      },
    }),
    om<Record<string, never>, Record<string, never>, { id: string; name?: string }>(true, {
      method: 'POST',
      path: '/operations-manager/automations/clone',
      name: 'cloneAutomation',
      description: 'Copy an automation and its triggers (the copies disabled) under a new name',
      input: { body: joiBody(Joi.object({ id: objectId().required(), name: Joi.string().trim().min(1).max(200) })) },
      async handle({ body }, ctx) {
        const { automation, triggers } = await service.clone(body.id, body.name, ctx.caller!);
        return envelope('Successfully cloned automation', view(automation), { triggers: triggers.map(view) });
      },
    }),
    om<{ catalogAutomationId: string }, Record<string, never>, Record<string, never>>(true, {
      method: 'POST',
      path: '/operations-manager/automations/migrate/:catalogAutomationId',
      name: 'migrateAutomation',
      description: 'Create the operations-manager automation and triggers of an automation-catalog automation',
      // Everything comes from the catalog automation; an empty JSON object (what clients send by habit) is accepted.
      input: { params: joiParams(Joi.object({ catalogAutomationId: objectId().required() })), body: joiBody(Joi.object<Record<string, never>>({})) },
      async handle({ params }, ctx) {
        const migrated = await migrateCatalogAutomation(migration, params.catalogAutomationId, ctx.caller!);
        return envelope('Successfully migrated automation', { automation: view(migrated.automation), triggers: migrated.triggers.map(view) }, migrated.warnings.length > 0 ? { warnings: migrated.warnings } : {});
      },
    }),
    om<Id, Record<string, never>, undefined>(false, {
      method: 'GET',
      path: '/operations-manager/automations/:id',
      name: 'getAutomation',
      description: 'Read one automation',
      input: { params: idParam },
      async handle({ params }) {
        return envelope('Successfully retrieved automation', view(await service.get(params.id)));
      },
    }),
    om<Id, Record<string, never>, AutomationInput>(true, {
      method: 'PATCH',
      path: '/operations-manager/automations/:id',
      name: 'updateAutomation',
      description: 'Change the name, description or workflow of an automation',
      input: { params: idParam, body: joiBody(patchSchema) },
      async handle({ params, body }, ctx) {
        return envelope('Successfully updated automation', view(await service.update(params.id, body, ctx.caller!)));
      },
    }),
    om<Id, Record<string, never>, undefined>(true, {
      method: 'DELETE',
      path: '/operations-manager/automations/:id',
      name: 'deleteAutomation',
      description: 'Delete an automation and its triggers',
      input: { params: idParam },
      async handle({ params }) {
        const deletedTriggers = await service.delete(params.id);
        return envelope('Successfully deleted automation', null, { deletedTriggers });
      },
    }),
    om<Id, Record<string, never>, undefined>(false, {
      method: 'GET',
      path: '/operations-manager/automations/:id/export',
      name: 'exportAutomation',
      description: 'One automation with its triggers, in the form importAutomations accepts',
      input: { params: idParam },
      async handle({ params }) {
        return envelope('Successfully exported automation', await service.export(params.id));
      },
    }),
  ];
}
