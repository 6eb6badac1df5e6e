/**
 * Authentication as a module: the login routes, and the bootstrap that
 * writes the built-in roles for every route and the first administrator.
 */
import type { AnyRoute, Logger, Store } from '../../../kernel/index.ts';
import type { CoreModule } from '../module.ts';
import { bootstrapAuth } from './bootstrap.ts';
import type { BootstrapDeps } from './bootstrap.ts';
import { loginRoutes } from './login-routes.ts';
import { methodCatalog } from './roles.ts';
import type { AuthService } from './service.ts';

export interface AuthModuleDeps {
  readonly store: Store;
  readonly logger: Logger;
  readonly auth: AuthService;
  readonly admin: BootstrapDeps['admin'];
  /** Every route of the core, read when asked: the roles written and the methods listed cover them all. */
  readonly routes: () => readonly AnyRoute[];
}

export function authModule(deps: AuthModuleDeps): CoreModule {
  return {
    name: 'auth',
    routes: loginRoutes(deps.auth, () => methodCatalog(deps.routes())),
    bootstrap: (options) => bootstrapAuth({ store: deps.store, logger: deps.logger, routes: deps.routes(), admin: deps.admin, auth: deps.auth, ...options }),
  };
}
