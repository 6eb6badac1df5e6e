/**
 * Assembles the core service: an ordered list of middleware and the route
 * tables of each module. Everything it needs is passed in.
 */
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { AppConfig } from '../../config/schema.ts';
import { healthRoutes } from './health/routes.ts';
import { bodyError, errorHandler } from './http/error-handler.ts';
import { mountRoutes } from './http/mount.ts';
import { requestContext } from './http/request-context.ts';
import type { AnyRoute } from './http/route.ts';
import { securityHeaders } from './http/security-headers.ts';
import { indexRoutes } from './indexes/routes.ts';
import type { Logger } from './logger.ts';
import { createSearchService } from './operations-manager/search-service.ts';
import { searchRoutes } from './operations-manager/search-routes.ts';
import type { Store } from './store/types.ts';

export interface CoreDeps {
  readonly store: Store;
  readonly config: Readonly<AppConfig>;
  readonly logger: Logger;
}

/** Every route of the core, for mounting and for the tests that enumerate them. */
export function coreRoutes(deps: CoreDeps): AnyRoute[] {
  return [
    ...healthRoutes(),
    ...searchRoutes(createSearchService(deps.store), deps.config.search),
    ...indexRoutes(deps.store),
  ];
}

export function createCoreApp(deps: CoreDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  const router = mountRoutes(coreRoutes(deps));
  app.use(requestContext(deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(securityHeaders());
  app.use(
    bodyParser({
      enableTypes: ['json', 'form'],
      jsonLimit: deps.config.http.bodyLimit,
      formLimit: deps.config.http.bodyLimit,
      onError: (err) => {
        throw bodyError(err);
      },
    }),
  );
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  // Errors are rendered by errorHandler; this only stops Koa printing them twice.
  app.silent = true;
  return app;
}
