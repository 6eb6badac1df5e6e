/**
 * Assembles the core service: an ordered list of middleware and the route
 * tables of each module. Everything it needs is passed in.
 */
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { AppConfig } from '../../config/schema.ts';
import pkg from '../../package.json' with { type: 'json' };
import { authenticate } from './auth/authenticate.ts';
import { bootstrapAuth } from './auth/bootstrap.ts';
import { loginRoutes } from './auth/login-routes.ts';
import { methodCatalog, viewCatalog } from './auth/roles.ts';
import { AuthService } from './auth/service.ts';
import { authorizationRoutes } from './authorization/routes.ts';
import { createAutomationCatalog } from './automation-catalog/index.ts';
import { JobControl } from './engine/control.ts';
import { Engine } from './engine/engine.ts';
import { routeAuthority } from './engine/authority.ts';
import type { Authority } from './engine/authority.ts';
import { principalLoader } from './auth/principal.ts';
import { TaskControl } from './engine/task-control.ts';
import { findTask } from './engine/tasks/index.ts';
import { gatewayManagerRoutes } from './gateway-manager/routes.ts';
import { createGatewayManager } from './gateway-manager/service.ts';
import type { GatewayManager } from './gateway-manager/service.ts';
import { healthRoutes } from './health/routes.ts';
import { healthStatusRoutes } from './health/status.ts';
import { bodyDepthError, bodyError, crossSiteGuard, errorHandler, forwardedRequest, metricsRoutes, observeAnswers, requestContext, routerTemplate, securityHeaders, trustedProxies } from '../../kernel/index.ts';
import type { AnswerTap, AnyRoute, Logger, StallCount, Store } from '../../kernel/index.ts';
import { mountRoutes, routeFinder, routeSurfaces } from './http/mount.ts';
import { readCredential } from './auth/credentials.ts';
import { indexRoutes } from './indexes/routes.ts';
import { createCoreMetrics } from './metrics/core-metrics.ts';
import type { CoreMetrics } from './metrics/core-metrics.ts';
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
import { workflowRoutes } from './workflows/routes.ts';
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
  /** Every route, for mounting and for the tests that enumerate them. */
  readonly routes: readonly AnyRoute[];
  readonly auth: AuthService;
  readonly engine: Engine;
  /** What background work may do for its principal (docs/auth.md); a second scheduler in a test shares it. */
  readonly authority: Authority;
  readonly gateways: GatewayManager;
  /** Runs due automation-catalog schedules; built stopped, started by main.ts (or a test). */
  readonly automationScheduler: Scheduler;
  /** Fires operations-manager schedule triggers; built stopped, started like automationScheduler. */
  readonly triggerScheduler: Scheduler;
  readonly metrics: CoreMetrics | null;
  /** Prepares the store (built-in roles, first administrator, migrations); run once before serving. */
  bootstrap(options?: { announce?: (text: string) => void }): Promise<void>;
}

export function createCoreApp(deps: CoreDeps): Core {
  const auth = new AuthService(deps.store, deps.config.auth, deps.logger);
  const metrics = deps.metrics !== undefined ? deps.metrics : deps.config.metrics.enabled ? createCoreMetrics(deps.store, Date.now, deps.stalls) : null;
  const gateways = createGatewayManager(deps);
  const orchestrator = orchestratorManager({ ...deps, observeRelay: metrics?.relay ?? null });
  const transformations = createTransformations(deps.store);
  // Background work may do what its principal may do over HTTP: the route table (below) says what that is.
  const authority = routeAuthority(() => routes, principalLoader(deps.store));
  const engine = new Engine({
    store: deps.store,
    logger: deps.logger,
    workflows: createWorkflowLookup(deps.store),
    // Tasks discovered on automation gateways first; their names (`script:x`) never shadow a built-in.
    findTask: (app, name) => gateways.findTask(app, name) ?? findTask(app, name),
    processTasksOnStart: deps.config.workflowEngine.processTasksOnStart,
    limits: deps.config.workflowEngine,
    services: { relay: orchestrator.relay.call, runTransformation: transformations.run },
    authority,
    ...(metrics ? { observer: metrics.engine } : {}),
  });
  const jobControl = new JobControl(engine, deps.store);
  const automationCatalog = createAutomationCatalog({ ...deps, workflows: createWorkflowLookup(deps.store), startJob: (name, options, initiator) => engine.startJob(name, options, initiator), authority, pollMs: deps.config.scheduler.pollMs, limits: deps.config.search });
  const omAutomations = createOmAutomations({ ...deps, engine, authority, pollMs: deps.config.scheduler.pollMs, limits: deps.config.search });
  const profiles = createProfiles({ store: deps.store, logger: deps.logger, release: deps.config.platform.release });
  if (metrics) automationCatalog.scheduler.onRun = omAutomations.scheduler.onRun = metrics.schedulerRun;
  // Every route, in matching order, in this one table. The catalogs (applications, methods, views,
  // the interface document) read it when asked, so they always list every route.
  const applications = (): string[] => [...new Set(routes.map((r) => r.provenance))].sort();
  const routes: AnyRoute[] = [
    ...healthRoutes({ store: deps.store, release: deps.config.platform.release, version: pkg.version, startedAt: Date.now(), applications }),
    ...loginRoutes(auth, () => methodCatalog(routes)),
    ...searchRoutes(createSearchService(deps.store), deps.config.search),
    ...controlRoutes(jobControl, new TaskControl(engine, deps.store, jobControl), deps.config.platform.release),
    ...indexRoutes(deps.store),
    ...workflowRoutes(deps.store, deps.config.search),
    ...workflowEngineMetricsRoutes(deps.store, deps.config.search),
    ...healthStatusRoutes({ store: deps.store }),
    ...authorizationRoutes({ store: deps.store, auth, release: deps.config.platform.release, logger: deps.logger, methods: () => methodCatalog(routes), views: () => viewCatalog(routes), limits: deps.config.search }),
    ...gatewayManagerRoutes(gateways),
    ...orchestrator.routes,
    ...transformationRoutes(transformations, deps.config.search),
    ...automationCatalog.routes,
    ...omAutomations.routes,
    ...serviceCatalogRoutes({ ...deps, engine, relay: orchestrator.relay, methods: () => methodCatalog(routes) }),
    ...profiles.routes,
    ...(metrics ? metricsRoutes(metrics.registry) : []),
    ...openApiRoutes(() => coreDocument(routes, pkg.version, deps.config.platform.release)),
  ];
  const app = new Koa();
  app.proxy = false;
  // Errors are rendered by errorHandler; this only stops Koa printing them twice.
  app.silent = true;
  const router = mountRoutes(routes);
  const findRoute = routeFinder(routes, router);
  // First: everything after reads the client's address and protocol (docs/auth.md, "Forwarded addresses").
  app.use(forwardedRequest(trustedProxies(deps.config.http.trustedProxies)));
  app.use(requestContext(deps.logger));
  if (metrics || deps.tap) app.use(observeAnswers('core', routerTemplate, metrics?.request ?? null, deps.tap ?? null));
  app.use(errorHandler(deps.logger, routeSurfaces(routes, router)));
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
  app.use(
    bodyParser({
      enableTypes: ['json', 'form'],
      jsonLimit: deps.config.http.bodyLimitBytes,
      formLimit: deps.config.http.bodyLimitBytes,
      onError: (err) => {
        throw bodyError(err);
      },
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
    routes,
    auth,
    engine,
    authority,
    gateways,
    automationScheduler: automationCatalog.scheduler,
    triggerScheduler: omAutomations.scheduler,
    metrics,
    bootstrap: async (options = {}) => {
      await bootstrapAuth({ store: deps.store, logger: deps.logger, routes, admin: deps.config.admin, auth, ...options });
      await gateways.publish();
      await profiles.migrate();
    },
  };
}
