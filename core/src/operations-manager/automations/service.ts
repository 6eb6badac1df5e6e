/**
 * Operations-manager automation records: create, read, change, delete (with
 * their triggers), export (with their triggers), import and clone. Changes
 * are revision-checked replaces; names are unique (the store's index decides).
 */
import type { Caller } from '../../auth/caller.ts';
import { RecordService } from '../record-service.ts';
import { ConflictError, joiBody, newObjectId, ValidationError } from '../../../../kernel/index.ts';
import type { Doc, ErrorDetail, Store } from '../../../../kernel/index.ts';
import { OM_AUTOMATIONS } from '../../store/collections.ts';
import type { WorkflowLookup } from '../../workflows/lookup.ts';
import { settable } from '../triggers/model.ts';
import type { TriggerDoc } from '../triggers/model.ts';
import type { TriggerService } from '../triggers/service.ts';
import { importSchema, resolveComponent } from './model.ts';
import type { OmAutomation, OmAutomationInput } from './model.ts';
import { view } from './om-list.ts';

export interface OmAutomationServiceDeps {
  readonly store: Store;
  readonly workflows: WorkflowLookup;
  readonly triggers: TriggerService;
  readonly now?: () => number;
}

export interface OmAutomationImport {
  readonly imported: Doc[];
  readonly failures: ErrorDetail[];
}

export class OmAutomationService extends RecordService<OmAutomation> {
  constructor(private readonly deps: OmAutomationServiceDeps) {
    super(deps.store, OM_AUTOMATIONS, deps.now);
  }

  async create(input: OmAutomationInput, caller: Caller, options: { id?: string; migratedFrom?: string } = {}): Promise<OmAutomation> {
    const component = await resolveComponent(this.deps.workflows, input);
    const at = new Date(this.now()).toISOString();
    const doc: OmAutomation = {
      _id: options.id ?? newObjectId(),
      name: input.name!,
      description: input.description ?? '',
      componentType: 'workflows',
      ...component,
      created: at,
      createdBy: caller.id,
      lastUpdated: at,
      lastUpdatedBy: caller.id,
      ...(options.migratedFrom ? { migratedFrom: options.migratedFrom } : {}),
      _rev: 0,
    };
    return this.records.insert(doc);
  }

  async update(id: string, patch: OmAutomationInput, caller: Caller): Promise<OmAutomation> {
    return this.records.update(id, async (current) => {
      const next: OmAutomation = { ...current, ...patch, componentType: 'workflows', lastUpdated: new Date(this.now()).toISOString(), lastUpdatedBy: caller.id };
      // The workflow is looked up again from what the patch names, so id and name always agree.
      if ('componentId' in patch || 'componentName' in patch) {
        Object.assign(next, await resolveComponent(this.deps.workflows, { componentId: patch.componentId ?? null, componentName: patch.componentName ?? null }));
      }
      return next;
    });
  }

  /** Its triggers go first: a crash in between leaves an automation without triggers, never triggers without it. */
  async delete(id: string): Promise<number> {
    await this.get(id);
    const deleted = await this.deps.triggers.deleteOfAction(id);
    await this.records.delete(id);
    return deleted;
  }

  async export(id: string): Promise<Doc> {
    const doc = await this.get(id);
    return { ...view(doc), triggers: (await this.deps.triggers.ofAction(id)).map(view) };
  }

  /**
   * Each automation on its own; its triggers follow it, pointed at it. An
   * unknown componentId falls back to the workflow of the same name, since
   * workflow ids differ between instances.
   */
  async importMany(items: readonly unknown[], caller: Caller): Promise<OmAutomationImport> {
    const imported: Doc[] = [];
    const failures: ErrorDetail[] = [];
    for (const [i, raw] of items.entries()) {
      const at = `automations[${i}]`;
      try {
        const item = joiBody<OmAutomationInput & { _id?: string; triggers?: unknown[] }>(importSchema).validate(raw);
        const byId = item.componentId ? await this.deps.workflows.byId(item.componentId) : null;
        const input = { ...item, ...(byId || !item.componentName ? {} : { componentId: null }) };
        const doc = await this.create(input, caller, item._id ? { id: item._id } : {});
        const report = await this.deps.triggers.importMany(item.triggers ?? [], caller, doc._id);
        for (const f of report.failures) failures.push({ parameter: `${at}.${f.parameter}`, message: f.message });
        imported.push({ ...view(doc), triggers: report.imported.map(view) });
      } catch (err) {
        if (!(err instanceof ValidationError || err instanceof ConflictError)) throw err;
        failures.push({ parameter: at, message: err.message });
      }
    }
    return { imported, failures };
  }

  /** A copy under a new name, with copies of its triggers, disabled so the copy never fires twice or takes a route. */
  async clone(id: string, name: string | undefined, caller: Caller): Promise<{ automation: OmAutomation; triggers: TriggerDoc[] }> {
    const source = await this.get(id);
    const automation = await this.create({ name: name ?? `${source.name} (copy)`, description: source.description, componentId: source.componentId, componentName: source.componentName }, caller);
    const copies: TriggerDoc[] = [];
    for (const t of await this.deps.triggers.ofAction(id)) {
      copies.push(await this.deps.triggers.create({ ...settable(t), actionId: automation._id, enabled: false }, caller));
    }
    return { automation, triggers: copies };
  }
}
