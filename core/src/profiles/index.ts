/**
 * The profiles module: its routes, and the start-time migration of
 * single-object `alarmProps` that the core's bootstrap runs.
 */
import type { CoreModule } from '../module.ts';
import { profileRoutes } from './routes.ts';
import { ProfileService } from './service.ts';
import type { ProfileDeps } from './service.ts';

export interface ProfilesModule extends CoreModule {
  readonly service: ProfileService;
}

export function createProfiles(deps: ProfileDeps): ProfilesModule {
  const service = new ProfileService(deps);
  return {
    name: 'profiles',
    service,
    routes: profileRoutes(service),
    // Once before serving: stored single-object alarmProps become arrays.
    bootstrap: async () => {
      await service.migrate();
    },
  };
}
