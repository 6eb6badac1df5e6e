/**
 * Trigger routes of the operations manager (docs/om-automations.md): list, create,
 * import, read, change, delete, export, and delete every trigger of an
 * automation. All answer the operations-manager envelope.
 */
import Joi from 'joi';
import { answer, arrayOf, closed, INTEGER, joiObjectId, joiParams, NULL } from '../../../../kernel/index.ts';
import type { AnyRoute } from '../../../../kernel/index.ts';
import { triggers as triggerType } from '../../store/doc-types.ts';
import { envelope, importBody, importedEnvelope, listEnvelope, omListQuery, view } from '../automations/om-list.ts';
import { OM_READ_ROLES, OM_WRITE_ROLES, omRoute } from '../route.ts';
import { createBody, patchBody } from './model.ts';
import type { TriggerService } from './service.ts';
import { FAILURES, PAGE_METADATA, TRIGGER } from '../answers.ts';
import type { ListLimits } from '../../http/list-query.ts';

type Id = { id: string };
const idParam = joiParams<Id>(Joi.object({ id: joiObjectId().required() }));

export function triggerRoutes(service: TriggerService, limits: ListLimits): AnyRoute[] {
  // A trigger is exported as it is read: importTriggers takes the document as it is.
  const readTrigger = (path: string, name: string, description: string, message: string): AnyRoute =>
    omRoute({
      method: 'GET',
      path,
      name,
      roles: OM_READ_ROLES,
      description,
      answer: answer(TRIGGER),
      input: { params: idParam },
      async handle({ params }) {
        return envelope(message, view(await service.get(params.id)));
      },
    });

  return [
    omRoute({
      method: 'GET',
      path: '/operations-manager/triggers',
      name: 'getTriggers',
      roles: OM_READ_ROLES,
      description: 'List triggers with the generic filters, enabled= and actionId=',
      answer: answer(arrayOf(TRIGGER)),
      answerMetadata: answer(PAGE_METADATA),
      input: { query: omListQuery(triggerType, limits, ['enabled', 'actionId']) },
      handle: ({ query }) => listEnvelope(service.collection, query, 'Successfully retrieved triggers'),
    }),
    omRoute({
      method: 'POST',
      path: '/operations-manager/triggers',
      name: 'createTrigger',
      roles: OM_WRITE_ROLES,
      description: 'Create an endpoint, manual or schedule trigger of an automation',
      answer: answer(TRIGGER),
      input: { body: createBody },
      async handle({ body }, ctx) {
        return envelope('Successfully created trigger', view(await service.create(body, ctx.caller!)));
      },
    }),
    omRoute({
      method: 'PUT',
      path: '/operations-manager/triggers',
      name: 'importTriggers',
      roles: OM_WRITE_ROLES,
      description: 'Import triggers (as exported); each is imported or reported on its own',
      answer: answer(arrayOf(TRIGGER)),
      answerMetadata: answer(FAILURES),
      input: { body: importBody('triggers') },
      async handle({ body }, ctx) {
        const { imported, failures } = await service.importMany(body.triggers, ctx.caller!);
        return importedEnvelope(imported.map(view), body.triggers.length, failures);
      },
    }),
    readTrigger('/operations-manager/triggers/:id', 'getTrigger', 'Read one trigger', 'Successfully retrieved trigger'),
    omRoute({
      method: 'PATCH',
      path: '/operations-manager/triggers/:id',
      name: 'updateTrigger',
      roles: OM_WRITE_ROLES,
      description: 'Change fields of a trigger (not its type)',
      answer: answer(TRIGGER),
      input: { params: idParam, body: patchBody },
      async handle({ params, body }, ctx) {
        return envelope('Successfully updated trigger', view(await service.update(params.id, body, ctx.caller!)));
      },
    }),
    omRoute({
      method: 'DELETE',
      path: '/operations-manager/triggers/:id',
      name: 'deleteTrigger',
      roles: OM_WRITE_ROLES,
      description: 'Delete one trigger',
      answer: answer(NULL),
      input: { params: idParam },
      async handle({ params }) {
        await service.delete(params.id);
        return envelope('Successfully deleted trigger', null);
      },
    }),
    readTrigger('/operations-manager/triggers/:id/export', 'exportTrigger', 'One trigger in the form importTriggers accepts', 'Successfully exported trigger'),
    omRoute({
      method: 'DELETE',
      path: '/operations-manager/triggers/action/:id',
      name: 'deleteTriggersByActionId',
      roles: OM_WRITE_ROLES,
      description: 'Delete every trigger of an automation',
      answer: answer(NULL),
      answerMetadata: answer(closed({ deleted: INTEGER })),
      input: { params: idParam },
      async handle({ params }) {
        const deleted = await service.deleteOfAction(params.id);
        return envelope(`Successfully deleted ${deleted} triggers`, null, { deleted });
      },
    }),
  ];
}
