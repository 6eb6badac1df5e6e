/**
 * Fires schedule triggers with the core's generic scheduler, which claims
 * each due trigger with a revision-checked write so that exactly one
 * process runs it. This file only says which triggers are eligible, whether
 * a due one starts its automation (missed-run policy) and when it runs next.
 */
import { and } from '../../../../kernel/index.ts';
import type { Logger, Store } from '../../../../kernel/index.ts';
import { TRIGGERS } from '../../store/collections.ts';
import { triggers as triggerType } from '../../store/doc-types.ts';
import { Scheduler } from '../../scheduler/scheduler.ts';
import type { RunObserver } from '../../scheduler/scheduler.ts';
import type { MissedRuns, TriggerDoc } from './model.ts';
import type { AutomationRunner } from './run.ts';
import { decide } from './schedule.ts';

export interface TriggerSchedulerDeps {
  readonly store: Store;
  readonly runner: AutomationRunner;
  readonly logger: Logger;
  readonly pollMs: number;
  readonly graceMs: number;
  readonly now?: () => number;
  /** Told of each finished run (the metrics). */
  readonly onRun?: RunObserver;
}

function decision(t: TriggerDoc, at: number, graceMs: number): ReturnType<typeof decide> | null {
  if (typeof t.nextRunAt !== 'number') return null;
  return decide({ nextRunAt: t.nextRunAt, repeatInterval: t.repeatInterval ?? null, processMissedRuns: (t.processMissedRuns ?? 'none') as MissedRuns }, at, graceMs);
}

export function triggerScheduler(deps: TriggerSchedulerDeps): Scheduler<TriggerDoc> {
  const now = deps.now ?? Date.now;
  const field = (path: string) => triggerType.fields.get(path)!;
  return new Scheduler({
    store: deps.store,
    collection: TRIGGERS,
    eligible: and([
      { kind: 'compare', op: 'eq', field: field('type'), value: 'schedule' },
      { kind: 'compare', op: 'eq', field: field('enabled'), value: true },
    ]),
    async run(t) {
      const d = decision(t, now(), deps.graceMs);
      if (!d?.run) {
        deps.logger.info('schedule trigger skipped missed runs', { trigger: t._id, nextRunAt: d?.nextRunAt ?? null });
        return;
      }
      // Acts for whoever last changed what it runs (run.ts); a refusal is this run's failure, recorded on the trigger.
      const job = await deps.runner.runScheduled(t);
      deps.logger.info('schedule trigger started a job', { trigger: t._id, automation: t.actionId, jobId: job['_id'] });
    },
    next: (doc, ranAt) => decision(doc, ranAt, deps.graceMs)?.nextRunAt ?? null,
    logger: deps.logger,
    pollMs: deps.pollMs,
    label: 'operations-manager triggers',
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.onRun ? { onRun: deps.onRun } : {}),
  });
}
