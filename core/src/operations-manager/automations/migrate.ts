/**
 * Migrating an automation-catalog automation (collection `automations`,
 * Agenda-shaped) to the operations manager, as the platform does:
 * an automation running the same workflow, a manual trigger with the same
 * form, and, when the catalog automation was scheduled, a schedule trigger
 * that is created DISABLED so nothing runs twice until someone enables it.
 * The catalog automation is kept and marked `migratedToOM`.
 */
import type { Caller } from '../../auth/caller.ts';
import { mayRead, mayWrite } from '../../automation-catalog/gbac.ts';
import { ConflictError, ForbiddenError, NotFoundError, repository } from '../../../../kernel/index.ts';
import type { Doc, Logger, Store } from '../../../../kernel/index.ts';
import { parseRepeat, ScheduleError } from '../../scheduler/schedule.ts';
import { CATALOG_AUTOMATIONS } from '../../store/collections.ts';
import type { WorkflowLookup } from '../../workflows/lookup.ts';
import type { TriggerDoc } from '../triggers/model.ts';
import type { TriggerService } from '../triggers/service.ts';
import type { OmAutomation } from './model.ts';
import type { OmAutomationService } from './service.ts';

export interface MigrateDeps {
  readonly store: Store;
  readonly workflows: WorkflowLookup;
  readonly automations: OmAutomationService;
  readonly triggers: TriggerService;
  readonly logger: Logger;
  readonly now?: () => number;
}

export interface Migrated {
  readonly automation: OmAutomation;
  readonly triggers: TriggerDoc[];
  /** What could not be carried over exactly (a cron schedule), for the caller to review. */
  readonly warnings: string[];
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** The catalog names its workflow by id (2019–2022) or by name. */
function component(data: Doc): { componentId?: string; componentName?: string } {
  const id = text(data['workflowId']);
  const name = text(data['workflow']);
  return id ? { componentId: id } : name ? { componentName: name } : {};
}

/**
 * The schedule as an OM schedule trigger: Agenda's human intervals are fixed
 * durations and carry over; a cron expression has no interval equivalent,
 * so that trigger runs once at the next match and the answer says so.
 */
function schedule(catalog: Doc, now: number): { firstRunAt: number; repeatInterval: number | null; warning: string | null } | null {
  const nextRunAt = text(catalog['nextRunAt']);
  const repeat = catalog['repeatInterval'];
  if (!nextRunAt && (repeat === null || repeat === undefined || repeat === '')) return null;
  const parsedNext = nextRunAt ? Date.parse(nextRunAt) : Number.NaN;
  const firstRunAt = Number.isNaN(parsedNext) ? now : parsedNext;
  if (typeof repeat !== 'string' && typeof repeat !== 'number') return { firstRunAt, repeatInterval: null, warning: null };
  try {
    const parsed = parseRepeat(repeat, text(catalog['repeatTimezone']));
    if (parsed.kind === 'interval') return { firstRunAt, repeatInterval: Math.max(1000, Math.round(parsed.ms)), warning: null };
    return { firstRunAt, repeatInterval: null, warning: `repeatInterval ${JSON.stringify(repeat)} is a cron expression; schedule triggers repeat by a fixed interval, so the schedule trigger runs once: set its repeatInterval before enabling it` };
  } catch (err) {
    if (!(err instanceof ScheduleError)) throw err;
    return { firstRunAt, repeatInterval: null, warning: `repeatInterval ${JSON.stringify(repeat)} could not be read (${err.message}); the schedule trigger runs once` };
  }
}

export async function migrateCatalogAutomation(deps: MigrateDeps, catalogId: string, caller: Caller): Promise<Migrated> {
  const now = (deps.now ?? Date.now)();
  const catalog = await repository(deps.store, CATALOG_AUTOMATIONS).find(catalogId);
  // The catalog's group access holds here too (docs/automation-catalog.md, "Group access"): migrating reads and marks it.
  if (!catalog || !mayRead(caller, catalog)) throw new NotFoundError(`Automation-catalog automation ${catalogId} was not found`);
  if (!mayWrite(caller, catalog)) throw new ForbiddenError(`Automation-catalog automation ${String(catalog['name'])} may be migrated only by members of its write groups`);
  const previous = text(catalog['correspondingOMAutomationId']);
  if (catalog['migratedToOM'] === true && previous && (await deps.automations.records.find(previous))) {
    throw new ConflictError(`Automation-catalog automation ${String(catalog['name'])} was already migrated to operations-manager automation ${previous}`);
  }
  const data = (catalog['data'] && typeof catalog['data'] === 'object' ? catalog['data'] : {}) as Doc;
  // The unique name is what makes two concurrent migrations of one automation create one: the second gets a 409.
  const automation = await deps.automations.create({ name: String(catalog['name']), description: text(data['description']) ?? '', ...component(data) }, caller, { migratedFrom: catalogId });
  const created: TriggerDoc[] = [];
  const warnings: string[] = [];
  try {
    created.push(await deps.triggers.create({ name: `${automation.name} (manual)`, description: 'Migrated from the automation catalog', type: 'manual', enabled: true, actionType: 'automations', actionId: automation._id, formId: text(data['formId']), legacyWrapper: false }, caller));
    const s = schedule(catalog, now);
    if (s) {
      if (s.warning) warnings.push(s.warning);
      created.push(await deps.triggers.create({ name: `${automation.name} (schedule)`, description: 'Migrated from the automation catalog; enable it once the catalog schedule is stopped', type: 'schedule', enabled: false, actionType: 'automations', actionId: automation._id, firstRunAt: s.firstRunAt, repeatInterval: s.repeatInterval, processMissedRuns: 'none' }, caller));
    }
  } catch (err) {
    // Nothing half-migrated stays behind: the next attempt starts clean.
    await deps.automations.delete(automation._id).catch(() => undefined);
    throw err;
  }
  await markMigrated(deps, catalogId, automation._id);
  return { automation, triggers: created, warnings };
}

/** Records the migration on the catalog automation, revision-checked so a concurrent catalog edit is not lost. */
async function markMigrated(deps: MigrateDeps, catalogId: string, omId: string): Promise<void> {
  try {
    await repository(deps.store, CATALOG_AUTOMATIONS).update(catalogId, (current) => ({ ...current, migratedToOM: true, correspondingOMAutomationId: omId }));
  } catch (err) {
    // Deleted meanwhile: nothing left to mark.
    if (err instanceof NotFoundError) return;
    if (!(err instanceof ConflictError)) throw err;
    deps.logger.warn('catalog automation not marked as migrated: it kept changing', { catalogId, omAutomationId: omId });
  }
}
