/**
 * The automation catalog: automations stored in Agenda's shape, each able to
 * start its workflow's job now (run) or on a schedule (the scheduler calls
 * `runScheduled`). Writes go through `modify`, a compare-and-set on `_rev`,
 * so an edit never overwrites the scheduler's lock or another edit. Every
 * operation a caller asks for checks the automation's group access
 * (gbac.ts); only the scheduler runs without a caller.
 */
import type { Caller } from '../auth/caller.ts';
import { and, AppError, BadRequestError, ForbiddenError, newObjectId, repository, ValidationError } from '../../../kernel/index.ts';
import type { Doc, ErrorDetail, Logger, Repository, SearchQuery, Store } from '../../../kernel/index.ts';
import { principalNamed } from '../auth/principal.ts';
import type { Authority } from '../engine/authority.ts';
import { initiatorOf } from '../engine/new-job.ts';
import type { Initiator } from '../engine/new-job.ts';
import type { StudioWorkflow } from '../engine/types.ts';
import type { JobDoc } from '../jobs/document.ts';
import type { WorkflowLookup } from '../workflows/lookup.ts';
import { applyCatalogSchedule, newCatalogAutomation, readImported } from './document.ts';
import type { CatalogAutomation, Gbac, CatalogSchedule } from './document.ts';
import { mayRead, mayWrite, PROVENANCE, readable } from './gbac.ts';
import { CATALOG_AUTOMATIONS } from '../store/collections.ts';
import { fromAgendaJob } from './migrate.ts';

export interface CatalogDeps {
  readonly store: Store;
  readonly logger: Logger;
  readonly workflows: WorkflowLookup;
  readonly startJob: (workflowName: string, options: { variables: Record<string, unknown> }, initiator: Initiator) => Promise<JobDoc>;
  /** What a scheduled run's principal may do now (docs/auth.md, "Whose authority background work uses"). */
  readonly authority: Authority;
  readonly now?: () => number;
}

/** What running an automation by hand needs over HTTP; a schedule's principal needs the same. */
const RUN_AUTOMATION = { provenance: PROVENANCE, method: 'runAutomation' };

/** The `options` of `PUT .../:id`. */
export interface UpdateOptions extends Omit<CatalogSchedule, 'disabled'> {
  workflow?: string | null;
  workflowId?: string | null;
  formId?: string | null;
  gbac?: Gbac;
  formData?: Record<string, unknown> | null;
}

export interface ImportResult {
  readonly imported: CatalogAutomation[];
  readonly failed: ErrorDetail[];
}

export interface MigrationResult {
  readonly converted: Array<{ index: number; _id: string; name: string }>;
  readonly skipped: Array<{ index: number; name: string | null; reason: string }>;
}

export class AutomationCatalog {
  private readonly now: () => number;
  /** A taken name answers 400, as the platform's catalogs do (the declaration's refusal). */
  private readonly automations: Repository<CatalogAutomation>;

  constructor(private readonly deps: CatalogDeps) {
    this.now = deps.now ?? Date.now;
    this.automations = repository(deps.store, CATALOG_AUTOMATIONS);
  }

  async create(name: string, description: string, user: string): Promise<CatalogAutomation> {
    return this.automations.insert(newCatalogAutomation(newObjectId(this.now()), name, description, user, this.now()));
  }

  /** The automation, if the caller may see it; one hidden from them is not found, like one that does not exist. */
  async get(id: string, caller: Caller): Promise<CatalogAutomation> {
    return this.visible(await this.automations.find(id), id, caller);
  }

  private visible(found: CatalogAutomation | null, id: string, caller: Caller): CatalogAutomation {
    if (!found || !mayRead(caller, found)) throw CATALOG_AUTOMATIONS.notFound(id);
    return found;
  }

  /** The automation if the caller may change it: 404 when hidden from them, 403 when seen but not theirs to write. */
  private async writable(id: string, caller: Caller): Promise<CatalogAutomation> {
    return this.mayChange(await this.get(id, caller), caller);
  }

  private mayChange(doc: CatalogAutomation, caller: Caller): CatalogAutomation {
    if (!mayWrite(caller, doc)) throw new ForbiddenError(`Automation ${doc.name} may be changed only by members of its write groups`);
    return doc;
  }

  /** Only what the caller may see: paging and totals count nothing else. */
  list(query: SearchQuery, caller: Caller): Promise<{ docs: Doc[]; total: number }> {
    const visible = readable(caller);
    return this.automations.search(visible ? { ...query, where: and([...(query.where ? [query.where] : []), visible]) } : query);
  }

  /**
   * Deletes those that exist; answers which were deleted and which were not
   * found (hidden ones count as not found). If the caller may not write one
   * they can see, nothing is deleted and the answer is 403 naming it.
   */
  async delete(ids: readonly string[], caller: Caller): Promise<{ deleted: string[]; notFound: string[] }> {
    const deleted: string[] = [];
    const notFound: string[] = [];
    const present: string[] = [];
    const refused: string[] = [];
    for (const id of new Set(ids)) {
      const doc = await this.automations.find(id);
      if (!doc || !mayRead(caller, doc)) notFound.push(id);
      else if (!mayWrite(caller, doc)) refused.push(`${doc.name} (${id})`);
      else present.push(id);
    }
    if (refused.length > 0) throw new ForbiddenError(`Nothing was deleted: only members of their write groups may delete ${refused.join(', ')}`);
    for (const id of present) ((await this.automations.collection.deleteOne(id)) ? deleted : notFound).push(id);
    return { deleted, notFound };
  }

  /** Re-reads and reapplies `change` until the write lands on the revision it read (the repository's update). */
  private modify(id: string, caller: Caller, change: (doc: CatalogAutomation) => void | Promise<void>): Promise<CatalogAutomation> {
    return this.automations.update(id, async (doc) => {
      // Checked on every read: the groups may have changed since the last attempt.
      this.mayChange(this.visible(doc, id, caller), caller);
      await change(doc);
      doc.lastModifiedBy = caller.username;
      doc.data.lastUpdated = new Date(this.now()).toISOString();
      return doc;
    });
  }

  async update(id: string, options: UpdateOptions, caller: Caller): Promise<CatalogAutomation> {
    // Access first: a hidden automation is not found whatever the options say.
    await this.writable(id, caller);
    if (options.workflowId) await this.requireWorkflow('options.workflowId', await this.deps.workflows.byId(options.workflowId), options.workflowId);
    if (options.workflow) await this.requireWorkflow('options.workflow', await this.deps.workflows.byName(options.workflow), options.workflow);
    return this.modify(id, caller, (doc) => {
      const data = doc.data;
      // One way of naming the workflow at a time: setting either replaces the other.
      if (options.workflow !== undefined || options.workflowId !== undefined) {
        delete data.workflow;
        delete data.workflowId;
        if (options.workflow) data.workflow = options.workflow;
        if (options.workflowId) data.workflowId = options.workflowId;
      }
      if (options.formId !== undefined) {
        if (options.formId === null) delete data.formId;
        else data.formId = options.formId;
      }
      if (options.formData !== undefined) {
        if (options.formData === null) delete data.formData;
        else data.formData = options.formData;
      }
      if (options.gbac) data.gbac = { read: options.gbac.read, write: options.gbac.write };
      const { nextRunAt, repeatInterval, repeatTimezone } = options;
      applyCatalogSchedule(doc, { nextRunAt, repeatInterval, repeatTimezone }, this.now(), 'options.');
    });
  }

  schedule(id: string, change: CatalogSchedule, caller: Caller): Promise<CatalogAutomation> {
    return this.modify(id, caller, (doc) => applyCatalogSchedule(doc, change, this.now(), ''));
  }

  private async requireWorkflow(parameter: string, found: unknown, value: string): Promise<void> {
    if (!found) throw new ValidationError(`No workflow ${value} exists`, [{ parameter, message: `no workflow matches ${value}` }]);
  }

  /**
   * Inserts each automation that reads and whose name is free; one that does
   * not is listed in `failed` and the others still go in. A taken `_id` is
   * replaced by a new one.
   */
  async import(items: readonly unknown[], user: string): Promise<ImportResult> {
    const imported: CatalogAutomation[] = [];
    const failed: ErrorDetail[] = [];
    for (const [index, item] of items.entries()) {
      const read = readImported(item, `automations[${index}]`, user, this.now());
      if ('problems' in read) {
        failed.push(...read.problems);
        continue;
      }
      const outcome = await this.insertFresh(read.doc, `automations[${index}]`);
      if (outcome) failed.push(outcome);
      else imported.push(read.doc);
    }
    return { imported, failed };
  }

  /** Inserts with the given `_id` when free, else a new one; a problem when the name is taken. */
  private async insertFresh(doc: CatalogAutomation, where: string): Promise<ErrorDetail | null> {
    if (doc._id === '' || (await this.automations.find(doc._id))) doc._id = newObjectId(this.now());
    try {
      await this.automations.insert(doc);
      return null;
    } catch (err) {
      if (err instanceof AppError && err.code === 'CONFLICT') return { parameter: `${where}.name`, message: `${doc.name} is already used by another automation` };
      throw err;
    }
  }

  /** Converts Agenda job documents into automations; answers what was converted and what was skipped, and why. */
  async migrate(jobs: readonly unknown[], user: string): Promise<MigrationResult> {
    const converted: MigrationResult['converted'] = [];
    const skipped: MigrationResult['skipped'] = [];
    for (const [index, job] of jobs.entries()) {
      const name = typeof (job as Doc | null)?.['name'] === 'string' ? ((job as Doc)['name'] as string) : null;
      const mapped = fromAgendaJob(job);
      if ('reason' in mapped) {
        skipped.push({ index, name, reason: mapped.reason });
        continue;
      }
      const read = readImported(mapped.input, `jobs[${index}]`, user, this.now());
      if ('problems' in read) {
        skipped.push({ index, name, reason: read.problems.map((p) => `${p.parameter} ${p.message}`).join('; ') });
        continue;
      }
      read.doc.lastRunAt = (mapped.input['lastRunAt'] as string | null) ?? null;
      read.doc.lastFinishedAt = (mapped.input['lastFinishedAt'] as string | null) ?? null;
      const problem = await this.insertFresh(read.doc, `jobs[${index}]`);
      if (problem) skipped.push({ index, name, reason: 'an automation with this name already exists' });
      else converted.push({ index, _id: read.doc._id, name: read.doc.name });
    }
    return { converted, skipped };
  }

  /** The attached workflow; 400 when none is attached or it no longer exists. */
  private async workflowOf(doc: CatalogAutomation): Promise<StudioWorkflow> {
    const { workflow, workflowId } = doc.data;
    if (!workflow && !workflowId) throw new BadRequestError(`Automation ${doc.name} has no workflow attached; attach one with PUT /automation_catalog/automations/${doc._id}`);
    const found = workflowId ? await this.deps.workflows.byId(workflowId) : await this.deps.workflows.byName(workflow!);
    if (!found) throw new BadRequestError(`The workflow attached to automation ${doc.name} (${workflowId ?? workflow}) does not exist`);
    return found;
  }

  /** Starts the attached workflow's job now, with the automation's form data (or `formData` given) as variables. */
  /** Whoever may see the automation may run it (its read groups too); the job acts for that caller. */
  async run(id: string, caller: Caller, formData?: Record<string, unknown>): Promise<JobDoc> {
    const doc = await this.get(id, caller);
    const workflow = await this.workflowOf(doc);
    const job = await this.deps.startJob(workflow.name, { variables: formData ?? doc.data.formData ?? {} }, initiatorOf(caller));
    this.deps.logger.info('automation run', { automation: doc._id, jobId: job._id });
    return job;
  }

  /**
   * The scheduler's callback. It acts for whoever last changed what it runs
   * (the automation or its workflow), and only while that principal may run
   * the automation by hand; otherwise it starts nothing and the scheduler
   * records why.
   */
  async runScheduled(doc: CatalogAutomation): Promise<void> {
    const workflow = await this.workflowOf(doc);
    const automationAt = Date.parse(doc.data.lastUpdated);
    const workflowAt = Date.parse(String(workflow['last_updated']));
    const workflowBy = workflow['last_updated_by'];
    const by = typeof workflowBy === 'string' && workflowAt > automationAt ? workflowBy : doc.lastModifiedBy;
    const principal = by === null ? null : await principalNamed(this.deps.store, by);
    if (!principal) throw new Error(`Scheduled automation ${doc.name} (${doc._id}) acts for ${by ?? 'nobody'}, who does not exist; nothing was started`);
    const refused = await this.deps.authority.refusal(principal, RUN_AUTOMATION);
    if (refused !== null) throw new Error(`Scheduled automation ${doc.name} (${doc._id}) started nothing: ${refused}`);
    const job = await this.deps.startJob(workflow.name, { variables: doc.data.formData ?? {} }, principal);
    this.deps.logger.info('scheduled automation run', { automation: doc._id, jobId: job._id });
  }
}
