/**
 * The one contract every core module keeps: its routes, and, when it has
 * them, what it prepares in the store before serving (`bootstrap`) and the
 * background work it runs while the service is up (`start`, `stop`). The app
 * folds over one list of modules (app.ts, `modules`): the routes are mounted
 * in list order, bootstraps and starts run in list order, stops in reverse.
 * Adding a module with a background job is one entry in that list
 * (docs/architecture.md, "Core modules").
 */
import type { AnyRoute, Logger } from '../../kernel/index.ts';

export interface BootstrapOptions {
  /** Where a first start prints what an operator must see once (the generated administrator password). */
  readonly announce?: (text: string) => void;
}

export interface CoreModule {
  /** Names the module in logs. */
  readonly name: string;
  /** Its routes, in matching order. */
  readonly routes: readonly AnyRoute[];
  /** Prepares the store (roles, migrations, records other instances read); run once before serving. */
  bootstrap?(options: BootstrapOptions): Promise<void>;
  /** Starts background work (schedulers, timers); nothing of it runs before. */
  start?(): void | Promise<void>;
  /** Stops it and waits for work in flight; after it, the store may close. */
  stop?(): void | Promise<void>;
}

/** A module that only serves routes. */
export function routesModule(name: string, routes: readonly AnyRoute[]): CoreModule {
  return { name, routes };
}

/** The three folds the app makes over its list. */
export function moduleLifecycle(modules: readonly CoreModule[], logger: Logger): { bootstrap(options?: BootstrapOptions): Promise<void>; start(): Promise<void>; stop(): Promise<void> } {
  return {
    async bootstrap(options = {}) {
      for (const m of modules) await m.bootstrap?.(options);
    },
    async start() {
      for (const m of modules) await m.start?.();
    },
    // Reverse order: what started last (and may lean on earlier modules) stops first; one failing stop does not keep the others running.
    async stop() {
      for (const m of [...modules].reverse()) {
        try {
          await m.stop?.();
        } catch (err) {
          logger.error('module did not stop cleanly', { module: m.name, error: err instanceof Error ? err.message : String(err) });
        }
      }
    },
  };
}
