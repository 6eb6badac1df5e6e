/**
 * The profiles module: its routes, and the start-time migration of
 * single-object `alarmProps` that the core's bootstrap runs.
 */
import type { AnyRoute } from '../../../kernel/index.ts';
import { profileRoutes } from './routes.ts';
import { ProfileService } from './service.ts';
import type { ProfileDeps } from './service.ts';

export interface ProfilesModule {
  readonly service: ProfileService;
  readonly routes: AnyRoute[];
  /** Run once before serving: stored single-object alarmProps become arrays. */
  migrate(): Promise<number>;
}

export function createProfiles(deps: ProfileDeps): ProfilesModule {
  const service = new ProfileService(deps);
  return { service, routes: profileRoutes(service), migrate: () => service.migrate() };
}
