/**
 * Trigger records: create, read, change, delete, import and export. Every
 * change is a revision-checked replace, so a change never overwrites what
 * the scheduler (or another process) wrote since it was read.
 */
import type { Caller } from '../../auth/caller.ts';
import { RecordService } from '../record-service.ts';
import { ConflictError, newObjectId, repository, ValidationError } from '../../../../kernel/index.ts';
import type { Condition, ErrorDetail, Store } from '../../../../kernel/index.ts';
import { OM_AUTOMATIONS, TRIGGERS } from '../../store/collections.ts';
import { triggers as triggerType } from '../../store/doc-types.ts';
import { BOOKKEEPING, readPatch, readTrigger } from './model.ts';
import type { TriggerDoc, TriggerInput } from './model.ts';
import { plannedRun } from './schedule.ts';

const field = (path: string) => triggerType.fields.get(path)!;
const eq = (path: string, value: string | boolean): Condition => ({ kind: 'compare', op: 'eq', field: field(path), value });

export interface ImportReport {
  readonly imported: TriggerDoc[];
  readonly failures: ErrorDetail[];
}

export interface TriggerServiceDeps {
  readonly store: Store;
  readonly now?: () => number;
  readonly graceMs: number;
}

export class TriggerService extends RecordService<TriggerDoc> {
  constructor(private readonly deps: TriggerServiceDeps) {
    super(deps.store, TRIGGERS, deps.now);
  }

  /** Triggers of one automation, in a stable order. */
  async ofAction(actionId: string): Promise<TriggerDoc[]> {
    const page = await this.records.search({ where: eq('actionId', actionId), sort: [{ field: field('_id'), direction: 1 }], skip: 0, limit: 10_000 });
    return page.docs;
  }

  /** Endpoint triggers of a route name, enabled first. */
  async ofRoute(routeName: string): Promise<TriggerDoc[]> {
    const where: Condition = { kind: 'and', items: [eq('type', 'endpoint'), eq('routeName', routeName), eq('verb', 'POST')] };
    const { docs } = await this.records.search({ where, sort: [{ field: field('_id'), direction: 1 }], skip: 0, limit: 100 });
    return [...docs.filter((d) => d.enabled), ...docs.filter((d) => !d.enabled)];
  }

  async create(input: TriggerInput, caller: Caller, id = newObjectId()): Promise<TriggerDoc> {
    const at = new Date(this.now()).toISOString();
    // readTrigger checked that the input has every field its type requires.
    const doc = this.withSchedule({ ...input, _id: id, created: at, createdBy: caller.id, lastUpdated: at, lastUpdatedBy: caller.id, _rev: 0 } as TriggerDoc);
    await this.checkAction(doc.actionId, 'body.actionId');
    await this.checkRoute(doc);
    return this.records.insert(doc);
  }

  async update(id: string, raw: Record<string, unknown>, caller: Caller): Promise<TriggerDoc> {
    return this.records.update(id, async (current) => {
      const patch = readPatch(current.type, raw);
      if (patch.actionId !== undefined) await this.checkAction(patch.actionId, 'body.actionId');
      const merged = { ...current, ...patch, lastUpdated: new Date(this.now()).toISOString(), lastUpdatedBy: caller.id };
      const changesSchedule = ['enabled', 'firstRunAt', 'repeatInterval'].some((k) => k in patch);
      const next = changesSchedule ? this.withSchedule(merged) : merged;
      await this.checkRoute(next);
      return next;
    });
  }

  async delete(id: string): Promise<void> {
    await this.records.delete(id);
  }

  async deleteOfAction(actionId: string): Promise<number> {
    let deleted = 0;
    for (const t of await this.ofAction(actionId)) if (await this.collection.deleteOne(t._id)) deleted += 1;
    return deleted;
  }

  /** Each item on its own: valid ones are stored, the others reported by their place in the list. */
  async importMany(items: readonly unknown[], caller: Caller, actionOverride?: string): Promise<ImportReport> {
    const imported: TriggerDoc[] = [];
    const failures: ErrorDetail[] = [];
    for (const [i, raw] of items.entries()) {
      const at = `triggers[${i}]`;
      try {
        const input = readTrigger(actionOverride && raw && typeof raw === 'object' ? { ...raw, actionId: actionOverride } : raw, at, true);
        const { _id, ...rest } = input as TriggerInput & { _id?: string };
        for (const k of BOOKKEEPING) delete (rest as Record<string, unknown>)[k];
        imported.push(await this.create(rest, caller, _id ?? newObjectId()));
      } catch (err) {
        if (!(err instanceof ValidationError || err instanceof ConflictError)) throw err;
        failures.push({ parameter: at, message: err.message });
      }
    }
    return { imported, failures };
  }

  /** `nextRunAt` of a schedule trigger, planned from its (possibly changed) schedule. */
  private withSchedule(doc: TriggerDoc): TriggerDoc {
    if (doc.type !== 'schedule') return doc;
    const nextRunAt = plannedRun({ enabled: doc.enabled, firstRunAt: doc.firstRunAt!, repeatInterval: doc.repeatInterval ?? null }, this.now(), this.deps.graceMs);
    return { ...doc, nextRunAt, lastRunAt: doc.lastRunAt ?? null };
  }

  private async checkAction(actionId: string, parameter: string): Promise<void> {
    if (!(await repository(this.deps.store, OM_AUTOMATIONS).find(actionId))) {
      throw new ValidationError(`Automation ${actionId} does not exist`, [{ parameter, message: 'names no automation' }]);
    }
  }

  /**
   * One enabled endpoint trigger per route name, so a POST always has one
   * meaning. Two processes creating the same route at once can both pass:
   * the store has no unique index that could decide it.
   */
  private async checkRoute(doc: TriggerDoc): Promise<void> {
    if (doc.type !== 'endpoint' || !doc.enabled) return;
    const taken = (await this.ofRoute(doc.routeName!)).find((t) => t.enabled && t._id !== doc._id);
    if (taken) throw new ConflictError(`Route ${doc.routeName} is already served by enabled trigger ${taken.name} (${taken._id})`, [{ parameter: 'routeName', message: `is used by trigger ${taken._id}` }]);
  }
}
