/**
 * The automation catalog module: its routes and the scheduler that runs due
 * automations. The scheduler is built stopped; the service's entry point
 * (main.ts) starts it, and tests that need it start and stop it themselves.
 */
import type { AnyRoute } from '../../../kernel/index.ts';
import { CATALOG_AUTOMATIONS } from '../store/collections.ts';
import { automations as automationType } from '../store/doc-types.ts';
import { Scheduler } from '../scheduler/scheduler.ts';
import { automationCatalogRoutes } from './routes.ts';
import { AutomationCatalog } from './service.ts';
import type { CatalogDeps } from './service.ts';
import type { AutomationDoc } from './document.ts';
import type { ListLimits } from '../http/list-query.ts';

export interface AutomationCatalogModule {
  readonly catalog: AutomationCatalog;
  readonly routes: AnyRoute[];
  readonly scheduler: Scheduler<AutomationDoc>;
}

/** `limits`: the largest page a list gives (the config's `search.maxLimit`). */
export function createAutomationCatalog(deps: CatalogDeps & { readonly pollMs: number; readonly limits: ListLimits }): AutomationCatalogModule {
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
  });
  return { catalog, routes: automationCatalogRoutes(catalog, deps.limits), scheduler };
}
