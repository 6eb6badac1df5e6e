/**
 * The transformations module (`Jst` on the real platform): CRUD, import and
 * run. Answers are the documents themselves, a page `{results, total}`, or
 * nothing (204) for a delete, as the real platform answers; errors are in the
 * plain shape `{message, code, details}`.
 */
import Joi from 'joi';
import { answer, ANY, arrayOf, closed, INTEGER, isPlainObject, joiObjectId, joiParams, OBJECT, routeHelper, stored, STRING, UnauthenticatedError, ValidationError } from '../../../kernel/index.ts';
import type { AnyRoute, RouteContext, SearchQuery, Validator } from '../../../kernel/index.ts';
import { transformations as transformationType } from '../store/doc-types.ts';
import { listQuery } from '../http/list-query.ts';
import type { ListLimits } from '../http/list-query.ts';
import type { Author } from './document.ts';
import type { Transformations } from './service.ts';

export const PROVENANCE = 'Jst';
const JST_READ_ROLES = ['admin', 'apiread', 'designer', 'engineering', 'operations'];
const JST_WRITE_ROLES = ['admin', 'designer', 'engineering'];
const JST_RUN_ROLES = ['admin', 'apiwrite', 'designer', 'engineering', 'operations'];
const route = routeHelper({ provenance: PROVENANCE, shape: 'plain' });
const AUTHOR = closed({ _id: STRING, provenance: STRING, username: STRING });
/** Fixed fields, the editor's own (steps, view...) kept as given, and the schemas of its inputs and outputs (user-defined). */
const TRANSFORMATION = stored(
  { _id: STRING, name: STRING, description: STRING, incoming: arrayOf(OBJECT), outgoing: arrayOf(OBJECT), mapping: STRING, created: STRING, createdBy: AUTHOR, lastUpdated: STRING, lastUpdatedBy: AUTHOR, version: STRING, steps: arrayOf(ANY), functions: arrayOf(ANY), comments: arrayOf(ANY), tags: arrayOf(ANY), view: OBJECT },
  ['_id', 'name'],
);

type IdParams = { id: string };

const idParam = joiParams<IdParams>(Joi.object({ id: joiObjectId('a transformation id').required() }));

/** Documents are checked by the service, which names every problem at once. */
const anyBody: Validator<unknown, unknown> = { validate: (raw) => raw };

const runBody: Validator<unknown, Record<string, unknown>> = {
  validate(raw) {
    if (!isPlainObject(raw)) throw new ValidationError('Invalid run: the body must be {incoming, options} or an object keyed by incoming $ids', [{ parameter: 'body', message: 'must be an object' }]);
    return raw;
  },
};

const BRACKETED = /^(equals|contains|startsWith|starts-with)\[([^\]]+)\]$/;

/**
 * The generic list parameters, plus the bracketed `contains[name]=x` the
 * platform's own CLI sends, read as `contains=x&containsField=name`.
 */
function listParams(limits: ListLimits): Validator<string, SearchQuery> {
  const generic = listQuery(transformationType, limits);
  return {
    validate(queryString) {
      const parts = queryString.split('&').map((part) => {
        const eq = part.indexOf('=');
        const rawName = eq === -1 ? part : part.slice(0, eq);
        let name: string;
        try {
          name = decodeURIComponent(rawName);
        } catch {
          return part;
        }
        const match = BRACKETED.exec(name);
        if (!match) return part;
        const op = match[1] === 'starts-with' ? 'startsWith' : match[1]!;
        return `${op}=${eq === -1 ? '' : part.slice(eq + 1)}&${op}Field=${encodeURIComponent(match[2]!)}`;
      });
      return generic.validate(parts.join('&'));
    },
  };
}

function author(ctx: RouteContext): Author {
  if (!ctx.caller) throw new UnauthenticatedError();
  return { _id: ctx.caller.id, provenance: ctx.caller.provenance, username: ctx.caller.username };
}

/** `limits`: the largest page a list gives (the config's `search.maxLimit`). */
export function transformationRoutes(service: Transformations, limits: ListLimits): AnyRoute[] {
  // The platform's CLI calls the collection without the trailing slash; both are served.
  const collection = ['/transformations/', '/transformations'];
  return [
    ...collection.map((path) =>
      route({
        method: 'POST',
        path,
        name: 'createTransformation',
        roles: JST_WRITE_ROLES,
        description: 'Create a transformation {name, description, incoming, outgoing, mapping}; answers the stored document',
        answer: answer(TRANSFORMATION),
        input: { body: anyBody },
        async handle({ body }, ctx) {
          const created = await service.create(body, author(ctx));
          ctx.logger.info('transformation created', { transformationId: created._id, name: created.name });
          return { body: created };
        },
      }),
    ),
    ...collection.map((path) =>
      route({
        method: 'GET',
        path,
        name: 'searchTransformations',
        roles: JST_READ_ROLES,
        description: 'List transformations {results, total} (by name unless sorted otherwise), with limit, skip, sort, order and equals/contains/startsWith filters',
        answer: answer(closed({ results: arrayOf(TRANSFORMATION), total: INTEGER })),
        input: { query: listParams(limits) },
        async handle({ query }) {
          return { body: await service.search(query) };
        },
      }),
    ),
    // Before `POST /transformations/:id`, which would otherwise read `import` as an id.
    route({
      method: 'POST',
      path: '/transformations/import',
      name: 'importTransformation',
      roles: JST_WRITE_ROLES,
      description: 'Import a transformation document (or an array); a taken name becomes "name (n)"; answers what was stored',
      answer: answer({ anyOf: [TRANSFORMATION, arrayOf(TRANSFORMATION)] }),
      input: { body: anyBody },
      async handle({ body }, ctx) {
        const imported = await service.import(body, author(ctx));
        const list = Array.isArray(imported) ? imported : [imported];
        ctx.logger.info('transformations imported', { transformationIds: list.map((d) => d._id) });
        return { body: imported };
      },
    }),
    route({
      method: 'GET',
      path: '/transformations/:id',
      name: 'getTransformation',
      roles: JST_READ_ROLES,
      description: 'Read one transformation',
      answer: answer(TRANSFORMATION),
      input: { params: idParam },
      async handle({ params }) {
        return { body: await service.get(params.id) };
      },
    }),
    route({
      method: 'PUT',
      path: '/transformations/:id',
      name: 'updateTransformation',
      roles: JST_WRITE_ROLES,
      description: 'Replace the editable fields of a transformation (checked like a new one); answers the stored document',
      answer: answer(TRANSFORMATION),
      input: { params: idParam, body: anyBody },
      async handle({ params, body }, ctx) {
        const updated = await service.update(params.id, body, author(ctx));
        ctx.logger.info('transformation updated', { transformationId: updated._id, name: updated.name });
        return { body: updated };
      },
    }),
    route({
      method: 'DELETE',
      path: '/transformations/:id',
      name: 'deleteTransformation',
      roles: JST_WRITE_ROLES,
      description: 'Delete a transformation; answers 204',
      answer: null,
      input: { params: idParam },
      async handle({ params }, ctx) {
        await service.remove(params.id);
        ctx.logger.info('transformation deleted', { transformationId: params.id });
        return { status: 204, body: null };
      },
    }),
    route({
      method: 'POST',
      path: '/transformations/:id',
      name: 'runTransformation',
      roles: JST_RUN_ROLES,
      description: 'Run a transformation on {incoming: {<$id>: value}, options: {extractOutput}} (or the bare values); answers the values keyed by outgoing $id',
      answer: answer(ANY),
      input: { params: idParam, body: runBody },
      async handle({ params, body }) {
        // As JSON text: an extracted value may be null or a number, which Koa would not send as JSON.
        return { json: JSON.stringify(await service.runBody(params.id, body)) };
      },
    }),
  ];
}
