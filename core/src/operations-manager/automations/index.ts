/**
 * Operations-manager automations and triggers as one module: their routes
 * and the scheduler of schedule triggers. The scheduler is built stopped,
 * like the automation catalog's; the core's `start()` starts it.
 */
import type { Engine } from '../../engine/engine.ts';
import type { Authority } from '../../engine/authority.ts';
import type { Logger, Store } from '../../../../kernel/index.ts';
import type { CoreModule } from '../../module.ts';
import type { RunObserver, Scheduler } from '../../scheduler/scheduler.ts';
import { createWorkflowLookup } from '../../workflows/lookup.ts';
import type { WorkflowLookup } from '../../workflows/lookup.ts';
import { automationRunner } from '../triggers/run.ts';
import { triggerRunRoutes } from '../triggers/run-routes.ts';
import { DEFAULT_GRACE_MS } from '../triggers/schedule.ts';
import { triggerScheduler } from '../triggers/scheduler.ts';
import { triggerRoutes } from '../triggers/routes.ts';
import { TriggerService } from '../triggers/service.ts';
import { omAutomationRoutes } from './routes.ts';
import { OmAutomationService } from './service.ts';
import type { ListLimits } from '../../http/list-query.ts';

export interface OmAutomationsDeps {
  readonly store: Store;
  readonly engine: Engine;
  /** What a schedule's principal may do (run.ts). */
  readonly authority: Authority;
  readonly logger: Logger;
  readonly pollMs: number;
  /** The largest page a list gives (the config's `search.maxLimit`). */
  readonly limits: ListLimits;
  /** How late a scheduled run may start and still count as on time (not missed). */
  readonly graceMs?: number;
  readonly now?: () => number;
  /** The app's workflow lookup; one of its own when absent (a test's second process). */
  readonly workflows?: WorkflowLookup;
  /** Told of each scheduled run (the metrics). */
  readonly onRun?: RunObserver;
}

export interface OmAutomationsModule extends CoreModule {
  readonly scheduler: Scheduler;
  readonly automations: OmAutomationService;
  readonly triggers: TriggerService;
}

export function createOmAutomations(deps: OmAutomationsDeps): OmAutomationsModule {
  const graceMs = deps.graceMs ?? DEFAULT_GRACE_MS;
  const now = deps.now ? { now: deps.now } : {};
  const workflows = deps.workflows ?? createWorkflowLookup(deps.store);
  const triggers = new TriggerService({ store: deps.store, graceMs, ...now });
  const automations = new OmAutomationService({ store: deps.store, workflows, triggers, ...now });
  const runner = automationRunner({ store: deps.store, engine: deps.engine, workflows, authority: deps.authority });
  const migration = { store: deps.store, workflows, automations, triggers, logger: deps.logger, ...now };
  const scheduler = triggerScheduler({ store: deps.store, runner, logger: deps.logger, pollMs: deps.pollMs, graceMs, ...now, ...(deps.onRun ? { onRun: deps.onRun } : {}) });
  return {
    name: 'operations-manager automations',
    routes: [...omAutomationRoutes(automations, migration, deps.limits), ...triggerRoutes(triggers, deps.limits), ...triggerRunRoutes(triggers, runner)],
    scheduler,
    automations,
    triggers,
    start: () => scheduler.start(),
    stop: () => scheduler.stop(),
  };
}
