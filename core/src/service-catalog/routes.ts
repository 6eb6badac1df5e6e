/**
 * The service catalog module (`/service_catalog`, provenance ServiceCatalog):
 * the twelve operations of the interface's table. Answers and bodies are
 * this project's choices (docs/service-catalog.md); errors use the plain
 * shape `{message, code, details}`.
 */
import type { AdapterConfig } from '../../../config/schema.ts';
import { createAdapterRegistry } from '../adapters/registry.ts';
import type { Caller } from '../auth/caller.ts';
import type { MethodInfo } from '../auth/roles.ts';
import { whoami } from '../auth/whoami.ts';
import type { Engine } from '../engine/engine.ts';
import { answer, arrayOf, BOOLEAN, closed, INTEGER, OBJECT, oneOfValues, open, repository, routeHelper, stored, STRING, UnauthenticatedError } from '../../../kernel/index.ts';
import type { AnyRoute, Doc, Logger, RouteContext, Store } from '../../../kernel/index.ts';
import { GROUPS, WORKFLOWS } from '../store/collections.ts';
import { groups as groupType, workflows as workflowType } from '../store/doc-types.ts';
import { listQuery } from '../http/list-query.ts';
import type { ListLimits } from '../http/list-query.ts';
import type { Relay } from '../relay/relay.ts';
import { createWorkflowLookup } from '../workflows/lookup.ts';
import { PROVENANCE, ServiceCatalog } from './catalog.ts';
import { invokeServiceOrder } from './order.ts';
import { addServiceBody, emptyBody, filterParam, idParam, orderBody, pageQuery, serviceModelsQuery, updateServiceBody } from './schemas.ts';
import { serviceModels } from './service-models.ts';
import { WHOAMI } from '../auth/whoami.ts';
import { JOB } from '../operations-manager/answers.ts';

const SERVICE_CATALOG_READ_ROLES = ['admin', 'apiread', 'operations', 'engineering'] as const;
const SERVICE_CATALOG_WRITE_ROLES = ['admin', 'engineering'] as const;
const SERVICE_CATALOG_ORDER_ROLES = ['admin', 'apiwrite', 'operations', 'engineering'] as const;
const route = routeHelper({ provenance: PROVENANCE, shape: 'plain' });

export interface ServiceCatalogDeps {
  readonly store: Store;
  readonly config: { readonly adapters: readonly AdapterConfig[]; readonly search: ListLimits };
  readonly logger: Logger;
  readonly engine: Pick<Engine, 'startJob'>;
  /** The core's orchestrator relay (one connection pool for the whole core). */
  readonly relay: Relay;
  /** The method catalog, for GetUserObject's `methods` (as whoami lists them). */
  readonly methods: () => readonly MethodInfo[];
}

function callerOf(ctx: RouteContext): Caller {
  if (!ctx.caller) throw new UnauthenticatedError();
  return ctx.caller;
}

const GROUP_FIELDS = ['_id', 'name', 'description', 'provenance', 'inactive'];

const SERVICE = stored(
  { _id: STRING, name: STRING, description: STRING, formId: STRING, workflow: STRING, groups: arrayOf(STRING), created: STRING, createdBy: STRING, lastUpdated: STRING, lastUpdatedBy: STRING },
  ['_id', 'name'],
);
/** A form's JSON Schema and UI schema are its author's. */
const FORM = open({ _id: STRING, name: STRING, description: STRING, schema: OBJECT, uiSchema: OBJECT }, ['_id', 'name']);
const results = (item: Record<string, unknown>) => answer(closed({ results: arrayOf(item), total: INTEGER }));

function pick(doc: Doc, keys: readonly string[]): Doc {
  return Object.fromEntries(keys.filter((k) => doc[k] !== undefined).map((k) => [k, doc[k]]));
}

/** A workflow without its graph: enough to choose one for a service. */
function workflowSummary(doc: Doc): Doc {
  const { tasks: _tasks, transitions: _transitions, ...rest } = doc;
  return rest;
}

export function serviceCatalogRoutes(deps: ServiceCatalogDeps): AnyRoute[] {
  const workflows = createWorkflowLookup(deps.store);
  const catalog = new ServiceCatalog(deps.store, workflows);
  // Stateless (it reads the config and the store), so a second instance next to the relay's costs nothing.
  const registry = createAdapterRegistry({ configured: deps.config.adapters, store: deps.store, logger: deps.logger });
  return [
    route({
      method: 'POST',
      path: '/service_catalog/AddNewService',
      name: 'AddNewServiceToCatalog',
      roles: SERVICE_CATALOG_WRITE_ROLES,
      description: 'Add a service {service: {name, description, workflow, formId | (form given), groups}, form?: {name, description, schema, uiSchema}}; answers the service',
      answer: answer(SERVICE),
      input: { body: addServiceBody },
      async handle({ body }, ctx) {
        const service = await catalog.add(body, callerOf(ctx));
        ctx.logger.info('catalog service added', { serviceId: service._id, name: service.name, formId: service.formId });
        return { body: service };
      },
    }),
    route({
      method: 'POST',
      path: '/service_catalog/UpdateService',
      name: 'UpdateServiceInCatalog',
      roles: SERVICE_CATALOG_WRITE_ROLES,
      description: 'Change a service {service: {_id, the fields to change}, form?: a new form for it}; answers the service',
      answer: answer(SERVICE),
      input: { body: updateServiceBody },
      async handle({ body }, ctx) {
        const service = await catalog.update(body, callerOf(ctx));
        ctx.logger.info('catalog service updated', { serviceId: service._id, fields: Object.keys(body.service).filter((k) => k !== '_id') });
        return { body: service };
      },
    }),
    route({
      method: 'POST',
      path: '/service_catalog/deleteService/:id',
      name: 'deleteService',
      roles: SERVICE_CATALOG_WRITE_ROLES,
      description: 'Delete a service (its form is kept); answers {deleted: true, _id, name}',
      answer: answer(closed({ deleted: oneOfValues(true), _id: STRING, name: STRING })),
      input: { params: idParam('id'), body: emptyBody },
      async handle({ params }, ctx) {
        const service = await catalog.remove(params['id']!, callerOf(ctx));
        ctx.logger.info('catalog service deleted', { serviceId: service._id, name: service.name });
        return { body: { deleted: true, _id: service._id, name: service.name } };
      },
    }),
    route({
      method: 'GET',
      path: '/service_catalog/GetFormData/:form_id',
      name: 'GetFormData',
      roles: SERVICE_CATALOG_READ_ROLES,
      description: 'A form by id, when a service the caller may see uses it (ServiceCatalog admins: any): {_id, name, description, schema, uiSchema, created, createdBy, lastUpdated, lastUpdatedBy}',
      answer: answer(FORM),
      input: { params: idParam('form_id') },
      async handle({ params }, ctx) {
        return { body: await catalog.visibleForm(params['form_id']!, callerOf(ctx)) };
      },
    }),
    route({
      method: 'GET',
      path: '/service_catalog/GetFormId/:service_id',
      name: 'GetFormId',
      roles: SERVICE_CATALOG_READ_ROLES,
      description: 'A service by id, with its formId',
      answer: answer(SERVICE),
      input: { params: idParam('service_id') },
      async handle({ params }, ctx) {
        return { body: await catalog.service(params['service_id']!, callerOf(ctx)) };
      },
    }),
    route({
      method: 'GET',
      path: '/service_catalog/GetForms',
      name: 'GetForms',
      roles: SERVICE_CATALOG_READ_ROLES,
      description: 'The forms of services the caller may see (ServiceCatalog admins: every form), by name, with limit and skip; answers {results, total}',
      answer: results(FORM),
      input: { query: pageQuery(deps.config.search) },
      async handle({ query }, ctx) {
        return { body: await catalog.listForms(query, callerOf(ctx)) };
      },
    }),
    route({
      method: 'GET',
      path: '/service_catalog/ServiceCatalogStore/:filter',
      name: 'ServiceCatalogStore',
      roles: SERVICE_CATALOG_READ_ROLES,
      description: 'Services the caller may see, by name: `all`, or those whose name contains the filter (case-sensitive); limit and skip; answers {results, total}',
      answer: results(SERVICE),
      input: { params: filterParam, query: pageQuery(deps.config.search) },
      async handle({ params, query }, ctx) {
        return { body: await catalog.listServices(params['filter']!, callerOf(ctx), query) };
      },
    }),
    route({
      method: 'GET',
      path: '/service_catalog/getGroups',
      name: 'getGroups',
      roles: SERVICE_CATALOG_READ_ROLES,
      description: 'Groups a service may be restricted to: {results: [{_id, name, description, provenance, inactive}], total}, with the generic list parameters',
      answer: results(stored({ _id: STRING, name: STRING, description: STRING, provenance: STRING, inactive: BOOLEAN }, ['_id'])),
      input: { query: listQuery(groupType, deps.config.search, { inactive: true }) },
      async handle({ query }) {
        const page = await repository(deps.store, GROUPS).search(query);
        return { body: { results: page.docs.map((g) => pick(g, GROUP_FIELDS)), total: page.total } };
      },
    }),
    route({
      method: 'GET',
      path: '/service_catalog/GetUserObject',
      name: 'GetUserObject',
      roles: SERVICE_CATALOG_READ_ROLES,
      description: 'The caller, as GET /whoami answers it',
      answer: answer(WHOAMI),
      input: {},
      async handle(_input, ctx) {
        return { body: whoami(callerOf(ctx), deps.methods()) };
      },
    }),
    route({
      method: 'GET',
      path: '/service_catalog/GetWorkflows',
      name: 'GetWorkflows',
      roles: SERVICE_CATALOG_READ_ROLES,
      description: 'Workflows a service may start, without their tasks and transitions: {results, total}, with the generic list parameters',
      answer: results(open({ _id: STRING, name: STRING, inputSchema: OBJECT }, ['_id', 'name'])),
      input: { query: listQuery(workflowType, deps.config.search) },
      async handle({ query }) {
        const page = await repository(deps.store, WORKFLOWS).search(query);
        return { body: { results: page.docs.map(workflowSummary), total: page.total } };
      },
    }),
    route({
      method: 'POST',
      path: '/service_catalog/invokeServiceOrder',
      name: 'invokeServiceOrder',
      roles: SERVICE_CATALOG_ORDER_ROLES,
      description: "Order a service {serviceId | service_id | name, formData, description?}: checks formData against the service's form and starts its workflow with formData as the job variables; answers the job",
      answer: answer(JOB),
      input: { body: orderBody },
      async handle({ body }, ctx) {
        const job = await invokeServiceOrder({ catalog, workflows, engine: deps.engine }, body, callerOf(ctx));
        ctx.logger.info('service ordered', { jobId: job['_id'], workflow: job['name'] });
        return { body: job };
      },
    }),
    route({
      method: 'GET',
      path: '/service_catalog/ServiceModels',
      name: 'ServiceModels',
      roles: SERVICE_CATALOG_READ_ROLES,
      description: "The orchestrator's service models, through the relay (adapterId, or the first nso adapter): {adapterId, results: [{name, module, path, kind, instances}], total}",
      answer: answer(closed({ adapterId: STRING, results: arrayOf(closed({ name: STRING, module: STRING, path: STRING, kind: oneOfValues('list', 'container', 'leaf'), instances: INTEGER })), total: INTEGER })),
      input: { query: serviceModelsQuery },
      async handle({ query }) {
        return { body: await serviceModels({ relay: deps.relay, registry }, query.adapterId) };
      },
    }),
  ];
}
