/**
 * The gateway manager as a module: its routes, and the record of this
 * instance's gateway adapters that every core sharing the store lists
 * (written at bootstrap, then every PUBLISH_MS while the service runs).
 */
import type { Logger } from '../../../kernel/index.ts';
import type { CoreModule } from '../module.ts';
import { agManagerRoutes } from './routes.ts';
import type { AgManager } from './service.ts';

/** Well inside INSTANCE_TTL_MS (service.ts), after which other instances stop listing this one's adapters. */
export const PUBLISH_MS = 30_000;

export function agManagerModule(gateways: AgManager, logger: Logger): CoreModule {
  let timer: NodeJS.Timeout | null = null;
  return {
    name: 'gateway manager',
    routes: agManagerRoutes(gateways),
    bootstrap: () => gateways.publish(),
    start() {
      if (timer) return;
      timer = setInterval(() => void gateways.publish().catch((err: unknown) => logger.warn('cluster record not written', { error: String(err) })), PUBLISH_MS);
      // The timer must not keep a stopping process alive.
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
