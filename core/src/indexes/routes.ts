/**
 * The indexing API that replaced script-based index creation: build the
 * declared indexes of a collection, and report how the existing ones compare.
 */
import Joi from 'joi';
import { answer, arrayOf, BOOLEAN, closed, joiParams, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnyRoute, Store } from '../../../kernel/index.ts';
import { CORE_COLLECTION_NAMES, CORE_COLLECTIONS } from '../store/collections.ts';

const PROVENANCE = 'Pronghorn';
const route = routeHelper({ provenance: PROVENANCE, shape: 'plain' });
const indexShape = closed({ name: STRING, key: { type: 'object', additionalProperties: { enum: [1, -1, 'text'] } }, unique: BOOLEAN }, ['unique']);
const statusShape = closed({ missing: arrayOf(indexShape), misnamed: arrayOf(indexShape), external: arrayOf(indexShape), indexed: BOOLEAN });
const collectionParam = Joi.object({
  collectionName: Joi.string()
    .valid(...CORE_COLLECTION_NAMES)
    .required()
    .messages({ 'any.only': `is not a collection with declared indexes (known: ${CORE_COLLECTION_NAMES.join(', ')})` }),
});

export function indexRoutes(store: Store): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: '/indexes',
      name: 'getIndexes',
      roles: ['admin'],
      description: 'List the declared indexes of every collection',
      answer: answer({ type: 'object', additionalProperties: closed({ indexes: arrayOf(indexShape) }) }),
      input: {},
      async handle() {
        const body: Record<string, { indexes: unknown }> = {};
        for (const spec of CORE_COLLECTIONS) body[spec.name] = { indexes: spec.indexes };
        return { body };
      },
    }),
    route({
      method: 'GET',
      path: '/indexes/:collectionName/status',
      name: 'checkIndexes',
      roles: ['admin'],
      description: 'Compare the indexes of a collection with the declared ones',
      answer: answer(statusShape),
      input: { params: joiParams<{ collectionName: string }>(collectionParam) },
      async handle({ params }) {
        return { body: await store.collection(params.collectionName).indexStatus() };
      },
    }),
    route({
      method: 'POST',
      path: '/indexes/:collectionName',
      name: 'createIndexes',
      roles: ['admin'],
      description: 'Create the missing and misnamed declared indexes of a collection',
      answer: answer(closed({ message: STRING, built: arrayOf(STRING), status: statusShape })),
      input: { params: joiParams<{ collectionName: string }>(collectionParam) },
      async handle({ params }, ctx) {
        const collection = store.collection(params.collectionName);
        const before = await collection.indexStatus();
        const status = await collection.buildIndexes();
        const built = [...before.missing, ...before.misnamed].map((ix) => ix.name);
        ctx.logger.info('indexes built', { collection: params.collectionName, built });
        return { body: { message: `Built ${built.length} index(es) of ${params.collectionName}`, built, status } };
      },
    }),
  ];
}
