/**
 * The core's own description, public like the liveness probe: `GET
 * /openapi.json` and the rendered reference `GET /docs` with its files.
 * The document is made once, on first request, from the final route table.
 */
import Joi from 'joi';
import { answer, DOCS_ASSETS, DOCS_HEADERS, DOCS_PATH, docsAsset, docsPage, joiParams, OBJECT, open, OPENAPI_PATH, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnyRoute, Asset, OpenApiDocument, RouteContext } from '../../../kernel/index.ts';

const PROVENANCE = 'Documentation';
const route = routeHelper({ provenance: PROVENANCE, shape: 'plain' });

function sendAsset(asset: Asset, ctx: RouteContext): { body: Buffer } {
  ctx.koa.set(DOCS_HEADERS);
  ctx.koa.type = asset.type;
  // A Buffer keeps the type set above (route results that are strings are sent as JSON).
  return { body: asset.body };
}

export function openApiRoutes(document: () => OpenApiDocument): AnyRoute[] {
  let json: string | null = null;
  return [
    route({
      method: 'GET',
      path: OPENAPI_PATH,
      name: 'getOpenApi',
      roles: 'public',
      description: 'This OpenAPI 3.1 document',
      answer: answer(open({ openapi: STRING, info: OBJECT, paths: OBJECT }, ['openapi', 'info', 'paths'])),
      input: {},
      async handle() {
        json ??= JSON.stringify(document());
        return { json };
      },
    }),
    route({
      method: 'GET',
      path: DOCS_PATH,
      name: 'getDocs',
      roles: 'public',
      description: 'The interface reference, rendered from the OpenAPI document',
      answer: null,
      input: {},
      async handle(_input, ctx) {
        return sendAsset(docsPage(), ctx);
      },
    }),
    route({
      method: 'GET',
      path: `${DOCS_PATH}/:file`,
      name: 'getDocsFile',
      roles: 'public',
      description: 'A file of the rendered reference (Swagger UI, from the swagger-ui-dist package)',
      answer: null,
      input: { params: joiParams<{ file: string }>(Joi.object({ file: Joi.string().valid(...DOCS_ASSETS).required().messages({ 'any.only': 'is not a file of the reference' }) })) },
      async handle({ params }, ctx) {
        return sendAsset(docsAsset(params.file)!, ctx);
      },
    }),
  ];
}
