/**
 * The authorization module: accounts, local accounts, groups, roles, the
 * method and view catalogs, and OAuth service accounts. Every write ends
 * with `auth.invalidate()`, because cached callers hold the rights it changed.
 */
import type { AnyRoute } from '../../../kernel/index.ts';
import { accountRoutes } from './accounts.ts';
import type { AuthorizationDeps } from './context.ts';
import { groupRoutes } from './groups.ts';
import { localAccountRoutes } from './local-accounts.ts';
import { roleRoutes } from './roles.ts';
import { serviceAccountRoutes } from './service-accounts.ts';

export type { AuthorizationDeps } from './context.ts';

export function authorizationRoutes(deps: AuthorizationDeps): AnyRoute[] {
  return [...accountRoutes(deps), ...localAccountRoutes(deps), ...groupRoutes(deps), ...roleRoutes(deps), ...serviceAccountRoutes(deps)];
}
