/**
 * The automation catalog module: its routes and the scheduler that runs due
 * automations. The scheduler is built stopped; the core's `start()` starts
 * it, and tests that need it start, tick and stop it themselves.
 */
import type { CoreModule } from '../module.ts';
import { CATALOG_AUTOMATIONS } from '../store/collections.ts';
import { catalogAutomations as automationType } from '../store/doc-types.ts';
import { Scheduler } from '../scheduler/scheduler.ts';
import type { RunObserver } from '../scheduler/scheduler.ts';
import { automationCatalogRoutes } from './routes.ts';
import { AutomationCatalog } from './service.ts';
import type { CatalogDeps } from './service.ts';
import type { CatalogAutomation } from './document.ts';
import type { ListLimits } from '../http/list-query.ts';

export interface AutomationCatalogModule extends CoreModule {
  readonly catalog: AutomationCatalog;
  readonly scheduler: Scheduler<CatalogAutomation>;
}

export interface AutomationCatalogDeps extends CatalogDeps {
  readonly pollMs: number;
  /** The largest page a list gives (the config's `search.maxLimit`). */
  readonly limits: ListLimits;
  /** Told of each scheduled run (the metrics). */
  readonly onRun?: RunObserver;
}

export function createAutomationCatalog(deps: AutomationCatalogDeps): AutomationCatalogModule {
  const catalog = new AutomationCatalog(deps);
  const disabled = automationType.fields.get('disabled')!;
  const scheduler = new Scheduler({
    store: deps.store,
    collection: CATALOG_AUTOMATIONS,
    eligible: { kind: 'not', item: { kind: 'compare', op: 'eq', field: disabled, value: true } },
    run: (doc) => catalog.runScheduled(doc),
    logger: deps.logger,
    pollMs: deps.pollMs,
    label: 'automation catalog',
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.onRun ? { onRun: deps.onRun } : {}),
  });
  return {
    name: 'automation catalog',
    catalog,
    routes: automationCatalogRoutes(catalog, deps.limits),
    scheduler,
    start: () => scheduler.start(),
    stop: () => scheduler.stop(),
  };
}
