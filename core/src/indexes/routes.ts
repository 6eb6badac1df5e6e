/**
 * The indexing API that replaced script-based index creation: build the
 * declared indexes of a collection, and report how the existing ones compare.
 */
import Joi from 'joi';
import { defineRoute } from '../http/route.ts';
import type { AnyRoute } from '../http/route.ts';
import { joiParams } from '../http/validate.ts';
import { collectionSpec, COLLECTION_NAMES } from '../store/collections.ts';
import type { CollectionName } from '../store/collections.ts';
import type { Store } from '../store/types.ts';

const PROVENANCE = 'Pronghorn';
const collectionParam = Joi.object({
  collectionName: Joi.string()
    .valid(...COLLECTION_NAMES)
    .required()
    .messages({ 'any.only': `is not a collection with declared indexes (known: ${COLLECTION_NAMES.join(', ')})` }),
});

export function indexRoutes(store: Store): AnyRoute[] {
  return [
    defineRoute<Record<string, never>, Record<string, never>, undefined>({
      method: 'GET',
      path: '/indexes',
      name: 'getIndexes',
      provenance: PROVENANCE,
      roles: ['admin'],
      surface: 'plain',
      description: 'List the declared indexes of every collection',
      input: {},
      async handle() {
        const body: Record<string, { indexes: unknown }> = {};
        for (const name of COLLECTION_NAMES) body[name] = { indexes: collectionSpec(name).indexes };
        return { body };
      },
    }),
    defineRoute<{ collectionName: CollectionName }, Record<string, never>, undefined>({
      method: 'GET',
      path: '/indexes/:collectionName/status',
      name: 'checkIndexes',
      provenance: PROVENANCE,
      roles: ['admin'],
      surface: 'plain',
      description: 'Compare the indexes of a collection with the declared ones',
      input: { params: joiParams(collectionParam) },
      async handle({ params }) {
        return { body: await store.collection(params.collectionName).indexStatus() };
      },
    }),
    defineRoute<{ collectionName: CollectionName }, Record<string, never>, undefined>({
      method: 'POST',
      path: '/indexes/:collectionName',
      name: 'createIndexes',
      provenance: PROVENANCE,
      roles: ['admin'],
      surface: 'plain',
      description: 'Create the missing and misnamed declared indexes of a collection',
      input: { params: joiParams(collectionParam) },
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
