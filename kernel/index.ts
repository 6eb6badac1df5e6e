/**
 * The kernel's public entry: everything the core's domain modules and the
 * gateway may use of what they share. They import it from here and nowhere
 * else in kernel/, and test/architecture/boundaries.test.ts fails when one
 * does not (docs/architecture.md says why the kernel is a folder of its own).
 */
export { dayOf, readDocs, readManifest } from './archive/files.ts';
export { fieldOf, lt, readSliced } from './archive/groups.ts';
export type { DueItem, GroupSpec } from './archive/groups.ts';
export { readArchiveState } from './archive/lease.ts';
export { startArchiveService } from './archive/service.ts';
export { AppError, BadRequestError, ConflictError, duplicateKeyConflict, ERROR_CODES, ForbiddenError, NotFoundError, StoreFullError, StoreUnavailableError, TooManyRequestsError, UnauthenticatedError, ValidationError } from './errors.ts';
export type { ErrorCode, ErrorDetail } from './errors.ts';
export { bodyDepthError } from './http/body-depth.ts';
export { bodyError, errorHandler, renderError } from './http/error-handler.ts';
export type { SurfaceState } from './http/error-handler.ts';
export { listen } from './http/listen.ts';
export { observeAnswers } from './http/observe-answers.ts';
export type { AnswerTap } from './http/observe-answers.ts';
export { requestContext, requestIdOf } from './http/request-context.ts';
export type { RequestState } from './http/request-context.ts';
export type { Caller } from './http/caller.ts';
export { routeHelper } from './http/route.ts';
export type { AnswerSchema, AnyRoute, HttpMethod, OwnedRoute, RouteContext, RouteDef, RouteOwner, Surface, Validator } from './http/route.ts';
export { securityHeaders } from './http/security-headers.ts';
export { STALL_CHECK_MS, startStallDetector } from './http/stall-detector.ts';
export { joiBody, joiParams, joiQuery } from './http/validate.ts';
export { checkData, schemaProblems, shippedSchemaErrors, summary } from './json-schema/index.ts';
export { createLogger } from './logger.ts';
export type { Logger } from './logger.ts';
export { DURATION_BUCKETS, requestDuration, routerTemplate, secondsSince } from './metrics/http.ts';
export type { ObserveRequest } from './metrics/http.ts';
export { processMetrics } from './metrics/process.ts';
export { HistogramTally, TallyCounter, TallyHistogram } from './metrics/tally.ts';
export type { CounterTally } from './metrics/tally.ts';
export { METRICS_PROVENANCE, metricsRoutes } from './metrics/routes.ts';
export { DOCS_ASSETS, DOCS_HEADERS, DOCS_PATH, docsAsset, docsPage, OPENAPI_PATH } from './openapi/docs-page.ts';
export type { Asset } from './openapi/docs-page.ts';
export { openApiDocument } from './openapi/document.ts';
export type { OpenApiDocument } from './openapi/document.ts';
export { routePaths } from './openapi/operations.ts';
export { ANY, answer, arrayOf, BOOLEAN, closed, DATE_TEXT, INTEGER, NULL, nullable, NUMBER, OBJECT, OBJECT_ID_TEXT, oneOfValues, open, stored, STRING } from './openapi/answers.ts';
export type { Schema as AnswerShape } from './openapi/answers.ts';
export type { OpenApiOperation, Paths } from './openapi/operations.ts';
export { jsonResponse, openApiPath, pathParamNames } from './openapi/shapes.ts';
export type { OpenApiResponse } from './openapi/shapes.ts';
export { and } from './search/conditions.ts';
export type { Condition, SortKey } from './search/conditions.ts';
export { epoch, field, iso, jobs, registry, tasks } from './search/fields.ts';
export type { DateEncoding, DocType, FieldDef } from './search/fields.ts';
export { buildLeaf, LeafError } from './search/leaf.ts';
export type { Operator } from './search/leaf.ts';
export { parseReadOptions, parseSearch } from './search/parse-search.ts';
export type { ReadOptions, SearchLimits, SearchRequest } from './search/parse-search.ts';
export { applyProjection } from './search/projection.ts';
export { decodeComponent, QueryStringError, splitQueryString } from './search/query-string.ts';
export type { RawParam } from './search/query-string.ts';
export { readDate, ValueError } from './search/values.ts';
export { ARCHIVE_STATE, index, plainCollection, searchedCollection } from './store/collections.ts';
export type { CollectionSpec } from './store/collections.ts';
export { newObjectId, newUuid, roleId } from './store/ids.ts';
export { openStore } from './store/open.ts';
export { SqliteStore } from './store/sqlite/store.ts';
export { DuplicateKeyError } from './store/types.ts';
export type { Doc, DocCollection, SearchQuery, Store, WriteOp } from './store/types.ts';
export type { FileEntry as ArchiveFileEntry } from './archive/files.ts';
export { isPlainObject, isPrototypeKey, ownProperty, prototypeSegment, setOwn } from './objects.ts';
export { isObjectId, OBJECT_ID } from './store/ids.ts';
export { joiObjectId } from './http/validate.ts';
