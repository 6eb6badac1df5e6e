/**
 * Trigger routes of the operations manager (docs/om-automations.md): list, create,
 * import, read, change, delete, export, and delete every trigger of an
 * automation. All answer the operations-manager envelope.
 */
import Joi from 'joi';
import { defineRoute, joiBody, joiParams } from '../../../../kernel/index.ts';
import type { AnyRoute, RouteDef, SearchQuery } from '../../../../kernel/index.ts';
import { triggers as triggerType } from '../../store/doc-types.ts';
import { objectId } from '../automations/model.ts';
import { envelope, listEnvelope, omListQuery, READ_ROLES, view, WRITE_ROLES } from '../automations/om-list.ts';
import { OM } from '../search-routes.ts';
import { createBody, patchBody } from './model.ts';
import type { TriggerInput } from './model.ts';
import type { TriggerService } from './service.ts';

type Id = { id: string };
const idParam = joiParams<Id>(Joi.object({ id: objectId().required() }));
const importBody = joiBody<{ triggers: unknown[] }>(Joi.object({ triggers: Joi.array().items(Joi.any()).min(1).max(1000).required() }));

function om<P, Q, B>(write: boolean, route: Omit<RouteDef<P, Q, B>, 'provenance' | 'roles' | 'surface'>): AnyRoute {
  return defineRoute<P, Q, B>({ ...route, provenance: OM, roles: write ? WRITE_ROLES : READ_ROLES, surface: 'operations-manager' });
}

export function triggerRoutes(service: TriggerService): AnyRoute[] {
  return [
    om<Record<string, never>, SearchQuery, undefined>(false, {
      method: 'GET',
      path: '/operations-manager/triggers',
      name: 'getTriggers',
      description: 'List triggers with the generic filters, enabled= and actionId=',
      input: { query: omListQuery(triggerType, ['enabled', 'actionId']) },
      handle: ({ query }) => listEnvelope(service.collection, query, 'Successfully retrieved triggers'),
    }),
    om<Record<string, never>, Record<string, never>, TriggerInput>(true, {
      method: 'POST',
      path: '/operations-manager/triggers',
      name: 'createTrigger',
      description: 'Create an endpoint, manual or schedule trigger of an automation',
      input: { body: createBody },
      async handle({ body }, ctx) {
        return envelope('Successfully created trigger', view(await service.create(body, ctx.caller!)));
      },
    }),
    om<Record<string, never>, Record<string, never>, { triggers: unknown[] }>(true, {
      method: 'PUT',
      path: '/operations-manager/triggers',
      name: 'importTriggers',
      description: 'Import triggers (as exported); each is imported or reported on its own',
      input: { body: importBody },
      async handle({ body }, ctx) {
        const { imported, failures } = await service.importMany(body.triggers, ctx.caller!);
        return envelope(`Successfully imported ${imported.length} of ${body.triggers.length} documents`, imported.map(view), failures.length > 0 ? { failures } : {});
      },
    }),
    om<Id, Record<string, never>, undefined>(false, {
      method: 'GET',
      path: '/operations-manager/triggers/:id',
      name: 'getTrigger',
      description: 'Read one trigger',
      input: { params: idParam },
      async handle({ params }) {
        return envelope('Successfully retrieved trigger', view(await service.get(params.id)));
      },
    }),
    om<Id, Record<string, never>, Record<string, unknown>>(true, {
      method: 'PATCH',
      path: '/operations-manager/triggers/:id',
      name: 'updateTrigger',
      description: 'Change fields of a trigger (not its type)',
      input: { params: idParam, body: patchBody },
      async handle({ params, body }, ctx) {
        return envelope('Successfully updated trigger', view(await service.update(params.id, body, ctx.caller!)));
      },
    }),
    om<Id, Record<string, never>, undefined>(true, {
      method: 'DELETE',
      path: '/operations-manager/triggers/:id',
      name: 'deleteTrigger',
      description: 'Delete one trigger',
      input: { params: idParam },
      async handle({ params }) {
        await service.delete(params.id);
        return envelope('Successfully deleted trigger', null);
      },
    }),
    om<Id, Record<string, never>, undefined>(false, {
      method: 'GET',
      path: '/operations-manager/triggers/:id/export',
      name: 'exportTrigger',
      description: 'One trigger in the form importTriggers accepts',
      input: { params: idParam },
      async handle({ params }) {
        return envelope('Successfully exported trigger', view(await service.get(params.id)));
      },
    }),
    om<Id, Record<string, never>, undefined>(true, {
      method: 'DELETE',
      path: '/operations-manager/triggers/action/:id',
      name: 'deleteTriggersByActionId',
      description: 'Delete every trigger of an automation',
      input: { params: idParam },
      async handle({ params }) {
        const deleted = await service.deleteOfAction(params.id);
        return envelope(`Successfully deleted ${deleted} triggers`, null, { deleted });
      },
    }),
  ];
}
