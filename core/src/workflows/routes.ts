/**
 * Automation Studio's workflow ("automation") routes. Creation answers
 * `{created, edit}` as the real platform does; the other answers are the
 * workflow itself, a page `{items, total, skip, limit}`, or `{deleted}`.
 * Errors are in the plain shape `{message, code, details}`.
 */
import Joi from 'joi';
import { answer, arrayOf, closed, INTEGER, joiBody, joiParams, nullable, OBJECT, open, routeHelper, STRING, UnauthenticatedError } from '../../../kernel/index.ts';
import type { AnyRoute, RouteContext, Store } from '../../../kernel/index.ts';
import { workflows as workflowType } from '../store/doc-types.ts';
import { listQuery } from '../http/list-query.ts';
import type { ListLimits } from '../http/list-query.ts';
import { editPath, WORKFLOW_ID, StudioWorkflowService } from './service.ts';
import { MAX_NAME_LENGTH } from './validate.ts';
import { platformListQuery, platformPage } from './platform-list.ts';

export const PROVENANCE = 'AutomationStudio';
const STUDIO_READ_ROLES = ['admin', 'apiread', 'designer', 'engineering', 'operations'];
const STUDIO_WRITE_ROLES = ['admin', 'designer', 'engineering'];
const route = routeHelper({ provenance: PROVENANCE, shape: 'plain' });
/** A workflow's body is the designer's: its tasks and transitions are user-defined. */
const WORKFLOW = open({ _id: STRING, name: STRING, tasks: OBJECT, transitions: OBJECT }, ['_id', 'name']);

type IdParams = { id: string };
type IdOrNameParams = { idOrName: string };

const idParam = joiParams<IdParams>(
  Joi.object({ id: Joi.string().pattern(WORKFLOW_ID).lowercase().required().messages({ 'string.pattern.base': 'must be a workflow id (a UUID)' }) }),
);
const idOrNameParam = joiParams<IdOrNameParams>(Joi.object({ idOrName: Joi.string().min(1).max(MAX_NAME_LENGTH).required() }));
// The documents themselves are checked by validateWorkflow, which names every problem at once.
const createBody = joiBody<{ automation: Record<string, unknown> }>(Joi.object({ automation: Joi.object().required() }));
const updateBody = joiBody<{ update: Record<string, unknown> }>(Joi.object({ update: Joi.object().required() }));

function username(ctx: RouteContext): string {
  if (!ctx.caller) throw new UnauthenticatedError();
  return ctx.caller.username;
}

/** `limits`: the largest page a list gives (the config's `search.maxLimit`). */
export function studioWorkflowRoutes(store: Store, limits: ListLimits): AnyRoute[] {
  const service = new StudioWorkflowService(store);
  return [
    route({
      method: 'POST',
      path: '/automation-studio/automations',
      name: 'createAutomation',
      roles: STUDIO_WRITE_ROLES,
      description: 'Create a workflow from {automation}; answers {created, edit}',
      answer: answer(closed({ created: WORKFLOW, edit: STRING })),
      input: { body: createBody },
      async handle({ body }, ctx) {
        const created = await service.create(body.automation, username(ctx));
        ctx.logger.info('workflow created', { workflowId: created._id, name: created.name });
        return { status: 200, body: { created, edit: editPath(created._id) } };
      },
    }),
    route({
      method: 'PUT',
      path: '/automation-studio/automations/:id',
      name: 'updateAutomation',
      roles: STUDIO_WRITE_ROLES,
      description: 'Update a workflow from {update}, laid over the stored one; answers the saved workflow',
      answer: answer(WORKFLOW),
      input: { params: idParam, body: updateBody },
      async handle({ params, body }, ctx) {
        const updated = await service.update(params.id, body.update, username(ctx));
        ctx.logger.info('workflow updated', { workflowId: updated._id, name: updated.name });
        return { body: updated };
      },
    }),
    route({
      method: 'GET',
      path: '/automation-studio/automations',
      name: 'getAutomations',
      roles: STUDIO_READ_ROLES,
      description: 'List workflows (by name unless sorted otherwise), with limit, skip, sort, order and equals/contains/startsWith filters',
      answer: answer(closed({ items: arrayOf(WORKFLOW), total: INTEGER, skip: INTEGER, limit: INTEGER }, ['limit'])),
      input: { query: listQuery(workflowType, limits) },
      async handle({ query }) {
        const page = await service.search(query);
        return { body: { items: page.docs, total: page.total, skip: query.skip, limit: query.limit } };
      },
    }),
    route({
      method: 'GET',
      path: '/automation-studio/workflows',
      name: 'getWorkflows',
      roles: STUDIO_READ_ROLES,
      description: "The platform's page of workflows {items, skip, limit, total, count, end, previous, next}, filtered with equals[field]=, contains[field]=, starts-with[field]= and the generic list parameters",
      answer: answer(
        closed({ items: arrayOf(WORKFLOW), skip: INTEGER, limit: INTEGER, total: INTEGER, count: INTEGER, end: INTEGER, previous: nullable(STRING), next: nullable(STRING) }),
      ),
      input: { query: platformListQuery(workflowType, limits) },
      async handle({ query }) {
        const page = await service.search(query);
        return { body: platformPage(page.docs, query.skip, query.limit, page.total) };
      },
    }),
    route({
      method: 'GET',
      path: '/automation-studio/automations/:idOrName',
      name: 'getAutomation',
      roles: STUDIO_READ_ROLES,
      description: 'Read one workflow by its id, or else by its exact name',
      answer: answer(WORKFLOW),
      input: { params: idOrNameParam },
      async handle({ params }) {
        return { body: await service.getByIdOrName(params.idOrName) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/automation-studio/automations/:id',
      name: 'deleteAutomation',
      roles: STUDIO_WRITE_ROLES,
      description: 'Delete a workflow, unless running or paused jobs still use it',
      answer: answer(closed({ deleted: closed({ _id: STRING, name: STRING }) })),
      input: { params: idParam },
      async handle({ params }, ctx) {
        const deleted = await service.delete(params.id);
        ctx.logger.info('workflow deleted', { workflowId: deleted._id, name: deleted.name });
        return { body: { deleted: { _id: deleted._id, name: deleted.name } } };
      },
    }),
  ];
}
