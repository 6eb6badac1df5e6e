/**
 * Assembles the core service: an ordered list of middleware and one list of
 * modules (module.ts), whose routes it mounts and whose bootstrap, start and
 * stop it folds into its own. Everything it needs is passed in; what runs in
 * the background runs only between `start()` and `stop()`.
 */
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { AppConfig } from '../../config/schema.ts';
import pkg from '../../package.json' with { type: 'json' };
import { authenticate } from './auth/authenticate.ts';
import { authModule } from './auth/module.ts';
import { methodCatalog, viewCatalog } from './auth/roles.ts';
import { AuthService } from './auth/service.ts';
import { authorizationRoutes } from './authorization/routes.ts';
import { jobArchiveModule } from './archive/module.ts';
import { createAutomationCatalog } from './automation-catalog/index.ts';
import { JobControl } from './engine/control.ts';
import { Engine } from './engine/engine.ts';
import { engineModule } from './engine/module.ts';
import { TurnQueue } from './engine/turns.ts';
import { routeAuthority } from './engine/authority.ts';
import type { Authority } from './engine/authority.ts';
import { principalLoader } from './auth/principal.ts';
import { TaskControl } from './engine/task-control.ts';
import { findTask } from './engine/tasks/index.ts';
import { agManagerModule } from './ag-manager/module.ts';
import { createAgManager } from './ag-manager/service.ts';
import type { AgManager } from './ag-manager/service.ts';
import { healthRoutes } from './health/routes.ts';
import { healthStatusRoutes } from './health/status.ts';
import { bodyDepthError, bodyError, crossSiteGuard, errorHandler, forwardedRequest, metricsRoutes, observeAnswers, requestContext, routerTemplate, securityHeaders, trustedProxies } from '../../kernel/index.ts';
import type { AnswerTap, AnyRoute, Logger, StallCount, Store } from '../../kernel/index.ts';
import { jsonBody } from './http/json-body.ts';
import { mountRoutes, routeFinder, routeShapes } from './http/mount.ts';
import { readCredential } from './auth/credentials.ts';
import { indexRoutes } from './indexes/routes.ts';
import { createCoreMetrics } from './metrics/core-metrics.ts';
import type { CoreMetrics } from './metrics/core-metrics.ts';
import { moduleLifecycle, routesModule } from './module.ts';
import type { BootstrapOptions, CoreModule } from './module.ts';
import { coreDocument } from './openapi/document.ts';
import { openApiRoutes } from './openapi/routes.ts';
import { orchestratorManager } from './relay/index.ts';
import { createOmAutomations } from './operations-manager/automations/index.ts';
import { createProfiles } from './profiles/index.ts';
import { createSearchService } from './operations-manager/search-service.ts';
import { controlRoutes } from './operations-manager/control-routes.ts';
import { searchRoutes } from './operations-manager/search-routes.ts';
import { serviceCatalogRoutes } from './service-catalog/routes.ts';
import type { Scheduler } from './scheduler/scheduler.ts';
import { createWorkflowLookup } from './workflows/lookup.ts';
import { transformationRoutes } from './transformations/routes.ts';
import { createTransformations } from './transformations/service.ts';
import { studioWorkflowRoutes } from './workflows/routes.ts';
import { workflowEngineMetricsRoutes } from './workflow-engine/metrics-routes.ts';

export interface CoreDeps {
  readonly store: Store;
  readonly config: Readonly<AppConfig>;
  readonly logger: Logger;
  /** Its metrics (docs/metrics.md); made from the store when absent and `metrics.enabled`, none when null. */
  readonly metrics?: CoreMetrics | null;
  /** Sees every answer (the contract test records them); none by default. */
  readonly tap?: AnswerTap | null;
  /** The stall detector main.ts started, whose count the metrics report. */
  readonly stalls?: StallCount;
}

export interface Core {
  readonly app: Koa;
  /** The modules, in the order their routes match, bootstraps and starts run (stops run in reverse). */
  readonly modules: readonly CoreModule[];
  /** Every route, for mounting and for the tests that enumerate them. */
  readonly routes: readonly AnyRoute[];
  readonly auth: AuthService;
  readonly engine: Engine;
  /** What background work may do for its principal (docs/auth.md); a second scheduler in a test shares it. */
  readonly authority: Authority;
  readonly gateways: AgManager;
  /** Runs due automation-catalog schedules; started by `start()` (or a test, which may tick it instead). */
  readonly automationScheduler: Scheduler;
  /** Fires operations-manager schedule triggers; started like automationScheduler. */
  readonly triggerScheduler: Scheduler;
  readonly metrics: CoreMetrics | null;
  /** Prepares the store (built-in roles, first administrator, migrations): every module's bootstrap, once, before serving. */
  bootstrap(options?: BootstrapOptions): Promise<void>;
  /** Starts every module's background work (schedulers, recovery, the archive, the cluster record). */
  start(): Promise<void>;
  /** Stops it, last started first, waiting for work in flight; then the store may close. */
  stop(): Promise<void>;
}

export function createCoreApp(deps: CoreDeps): Core {
  const { store, config, logger } = deps;
  const auth = new AuthService(store, config.auth, logger);
  const metrics = deps.metrics !== undefined ? deps.metrics : config.metrics.enabled ? createCoreMetrics(store, Date.now, deps.stalls) : null;
  const onRun = metrics ? { onRun: metrics.schedulerRun } : {};
  const limits = config.search;
  const release = config.platform.release;
  const gateways = createAgManager(deps);
  const orchestrator = orchestratorManager({ ...deps, observeRelay: metrics?.relay ?? null });
  const transformations = createTransformations(store);
  const workflows = createWorkflowLookup(store);
  // Background work may do what its principal may do over HTTP: the route table (below) says what that is.
  const authority = routeAuthority(() => routes, principalLoader(store));
  const engine = new Engine({
    store,
    logger,
    workflows,
    // Tasks discovered on automation gateways first; their names (`script:x`) never shadow a built-in.
    findTask: (app, name) => gateways.findTask(app, name) ?? findTask(app, name),
    processTasksOnStart: config.workflowEngine.processTasksOnStart,
    limits: config.workflowEngine,
    services: { relay: orchestrator.relay.call, runTransformation: transformations.run },
    authority,
    turns: new TurnQueue(),
    ...(metrics ? { observer: metrics.engine } : {}),
  });
  const jobControl = new JobControl(engine, store);
  const automationCatalog = createAutomationCatalog({ ...deps, workflows, startJob: (name, options, initiator) => engine.startJob(name, options, initiator), authority, pollMs: config.scheduler.pollMs, limits, ...onRun });
  const omAutomations = createOmAutomations({ ...deps, engine, authority, workflows, pollMs: config.scheduler.pollMs, limits, ...onRun });
  const methods = (): ReturnType<typeof methodCatalog> => methodCatalog(routes);
  // The catalogs (applications, methods, views, the interface document) read the route table when asked, so they always list every route.
  const applications = (): string[] => [...new Set(routes.map((r) => r.provenance))].sort();
  // Every module, in route-matching order: the one list to add a module to (docs/architecture.md, "Core modules").
  const modules: CoreModule[] = [
    routesModule('health', healthRoutes({ store, release, version: pkg.version, startedAt: Date.now(), applications })),
    authModule({ store, logger, auth, admin: config.admin, routes: () => routes }),
    routesModule('operations-manager search', searchRoutes(createSearchService(store, { maxJobBytes: limits.maxDereferenceMb * 1024 * 1024, maxTasks: limits.maxDereferenceTasks }), limits)),
    engineModule(engine, controlRoutes(jobControl, new TaskControl(engine, store, jobControl), release), logger),
    routesModule('indexes', indexRoutes(store)),
    routesModule('workflows', studioWorkflowRoutes(store, limits)),
    routesModule('workflow-engine metrics', workflowEngineMetricsRoutes(store, limits)),
    routesModule('health status', healthStatusRoutes({ store })),
    routesModule('authorization', authorizationRoutes({ store, auth, release, logger, methods, views: () => viewCatalog(routes), limits })),
    agManagerModule(gateways, logger),
    orchestrator,
    routesModule('transformations', transformationRoutes(transformations, limits)),
    automationCatalog,
    omAutomations,
    routesModule('service catalog', serviceCatalogRoutes({ ...deps, engine, relay: orchestrator.relay, methods })),
    createProfiles({ store, logger, release }),
    routesModule('metrics', metrics ? metricsRoutes(metrics.registry) : []),
    routesModule('openapi', openApiRoutes(() => coreDocument(routes, pkg.version, release))),
    jobArchiveModule({ store, config, logger }),
  ];
  const routes: AnyRoute[] = modules.flatMap((m) => m.routes);
  const lifecycle = moduleLifecycle(modules, logger);
  const app = new Koa();
  app.proxy = false;
  // Errors are rendered by errorHandler; this only stops Koa printing them twice.
  app.silent = true;
  const router = mountRoutes(routes);
  const findRoute = routeFinder(routes, router);
  // First: everything after reads the client's address and protocol (docs/auth.md, "Forwarded addresses").
  app.use(forwardedRequest(trustedProxies(config.http.trustedProxies)));
  app.use(requestContext(logger));
  if (metrics || deps.tap) app.use(observeAnswers('core', routerTemplate, metrics?.request ?? null, deps.tap ?? null));
  app.use(errorHandler(logger, routeShapes(routes, router)));
  app.use(securityHeaders());
  app.use(authenticate(auth));
  app.use(
    crossSiteGuard({
      byCookie: (ctx) => {
        const credential = readCredential(ctx);
        return credential !== null && credential.kind === 'token' && credential.source === 'cookie';
      },
      formsDeclared: (method, path) => findRoute(method, path)?.acceptsForms === true,
    }),
  );
  // A plain JSON body is read by jsonBody; every other one by the body parser, as before (docs/http-path.md).
  app.use(
    jsonBody({
      limit: config.http.bodyLimitBytes,
      onError: bodyError,
      fallback: bodyParser({
        enableTypes: ['json', 'form'],
        jsonLimit: config.http.bodyLimitBytes,
        formLimit: config.http.bodyLimitBytes,
        onError: (err) => {
          throw bodyError(err);
        },
      }),
    }),
  );
  app.use((ctx, next) => {
    const tooDeep = bodyDepthError((ctx.request as { body?: unknown }).body);
    if (tooDeep) throw tooDeep;
    return next();
  });
  app.use(router.routes());
  // Not thrown: the router then sets Allow, and errorHandler answers 405 in the surface's shape.
  app.use(router.allowedMethods());
  return {
    app,
    modules,
    routes,
    auth,
    engine,
    authority,
    gateways,
    automationScheduler: automationCatalog.scheduler,
    triggerScheduler: omAutomations.scheduler,
    metrics,
    ...lifecycle,
  };
}
