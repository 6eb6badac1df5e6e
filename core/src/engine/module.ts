/**
 * The workflow engine as a module: the routes that control jobs and tasks,
 * and, once the service starts, the iterations a stopped process left
 * claimed run again (Engine.recover); at stop, running handlers are aborted
 * and their iterations stay claimed for the next start.
 */
import type { AnyRoute, Logger } from '../../../kernel/index.ts';
import type { CoreModule } from '../module.ts';
import type { Engine } from './engine.ts';

export function engineModule(engine: Engine, routes: readonly AnyRoute[], logger: Logger): CoreModule {
  return {
    name: 'workflow engine',
    routes,
    start() {
      // Not awaited: resuming many jobs must not hold the other modules' start.
      void engine.recover().catch((err: unknown) => logger.error('resuming running jobs failed', { error: String(err) }));
    },
    stop: () => engine.stop(),
  };
}
