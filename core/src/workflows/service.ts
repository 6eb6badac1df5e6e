/**
 * Saving and deleting workflows: the defaults Automation Studio fills, the
 * checks of validate.ts, unique names, and the refusal to delete a workflow
 * that running or paused jobs still use.
 */
import type { WorkflowDoc } from '../engine/types.ts';
import { ConflictError, DuplicateKeyError, newUuid, NotFoundError, ValidationError } from '../../../kernel/index.ts';
import type { Doc, ErrorDetail, Store } from '../../../kernel/index.ts';
import { ACTIVE_JOB_STATUSES, countActiveJobs, createWorkflowLookup } from './lookup.ts';
import type { WorkflowLookup } from './lookup.ts';
import { validateWorkflow } from './validate.ts';

/** Workflow ids are UUIDs, as the platform writes them and as the workflows registry reads `_id`. */
export const WORKFLOW_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Cosmetic fields the editor writes on every workflow; filled when a client leaves them out. */
const DEFAULTS = { type: 'automation', canvasVersion: 3, encodingVersion: 1, font_size: 12 } as const;

export function editPath(id: string): string {
  return `/automation-studio/#/edit?automation_id=${id}`;
}

function refuse(problems: readonly ErrorDetail[], what: string): never {
  const shown = problems.slice(0, 5).map((d) => `${d.parameter} ${d.message}`).join('; ');
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
  throw new ValidationError(`Invalid ${what}: ${shown}${more}`, problems);
}

export class WorkflowService {
  readonly lookup: WorkflowLookup;

  constructor(private readonly store: Store) {
    this.lookup = createWorkflowLookup(store);
  }

  private get workflows() {
    return this.store.collection('workflows');
  }

  async get(id: string): Promise<WorkflowDoc> {
    const found = await this.lookup.byId(id);
    if (!found) throw new NotFoundError(`Workflow ${id} not found`);
    return found;
  }

  /** By id first, then by exact name: clients pass either. */
  async getByIdOrName(idOrName: string): Promise<WorkflowDoc> {
    const found = (await this.lookup.byId(idOrName)) ?? (await this.lookup.byName(idOrName));
    if (!found) throw new NotFoundError(`Workflow ${idOrName} not found`);
    return found;
  }

  async create(input: Record<string, unknown>, user: string): Promise<WorkflowDoc> {
    const problems = validateWorkflow(input, 'automation');
    const given = input['_id'];
    if (given !== undefined && (typeof given !== 'string' || !WORKFLOW_ID.test(given))) {
      problems.unshift({ parameter: 'automation._id', message: 'must be a UUID (or left out for a new one)' });
    }
    if (problems.length > 0) refuse(problems, 'automation');
    const id = typeof given === 'string' ? given.toLowerCase() : newUuid();
    const now = new Date().toISOString();
    const { _id: _given, ...fields } = input;
    const doc: Record<string, unknown> = {
      _id: id,
      ...DEFAULTS,
      groups: [],
      ...fields,
      // Authorship is the server's to record, whatever the client sent.
      created: now,
      created_by: user,
      last_updated: now,
      last_updated_by: user,
    };
    const workflow = doc as WorkflowDoc;
    await this.write(() => this.workflows.insertOne(workflow as Doc), workflow);
    return workflow;
  }

  /**
   * The update is laid over the stored workflow field by field (a given
   * `tasks` replaces all tasks), and the result must pass every check a new
   * workflow does. The id and the creation record never change.
   */
  async update(id: string, update: Record<string, unknown>, user: string): Promise<WorkflowDoc> {
    const existing = await this.get(id);
    const problems: ErrorDetail[] = [];
    const givenId = update['_id'];
    if (givenId !== undefined && (typeof givenId !== 'string' || givenId.toLowerCase() !== existing._id)) {
      problems.push({ parameter: 'update._id', message: `cannot change: this workflow's id is ${existing._id}` });
    }
    const merged: Record<string, unknown> = {
      ...existing,
      ...update,
      _id: existing._id,
      created: existing['created'],
      created_by: existing['created_by'],
      last_updated: new Date().toISOString(),
      last_updated_by: user,
    };
    problems.push(...validateWorkflow(merged, 'update'));
    if (problems.length > 0) refuse(problems, 'update');
    const workflow = merged as WorkflowDoc;
    const replaced = await this.write(() => this.workflows.replaceOne(workflow as Doc), workflow);
    if (!replaced) throw new NotFoundError(`Workflow ${id} not found`);
    return workflow;
  }

  /** Refused while jobs of the workflow are running or paused: they read it as they go. */
  async delete(id: string): Promise<WorkflowDoc> {
    const existing = await this.get(id);
    const active = await countActiveJobs(this.store, existing.name);
    if (active > 0) {
      const jobs = active === 1 ? '1 job' : `${active} jobs`;
      throw new ConflictError(`Workflow ${existing.name} is used by ${jobs} that ${active === 1 ? 'is' : 'are'} ${ACTIVE_JOB_STATUSES.join(' or ')}; cancel or finish ${active === 1 ? 'it' : 'them'} first`, [
        { parameter: 'id', message: `${jobs} ${ACTIVE_JOB_STATUSES.join(' or ')}` },
      ]);
    }
    if (!(await this.workflows.deleteOne(existing._id))) throw new NotFoundError(`Workflow ${id} not found`);
    return existing;
  }

  /** The store's unique indexes decide (no check-then-write race); this turns their refusal into a 409. */
  private async write<T>(run: () => Promise<T>, workflow: WorkflowDoc): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      if (err.key === '_id') throw new ConflictError(`A workflow with id ${workflow._id} already exists`, [{ parameter: '_id', message: 'is already the id of another workflow' }]);
      throw new ConflictError(`A workflow named ${workflow.name} already exists`, [{ parameter: 'name', message: 'is already the name of another workflow' }]);
    }
  }
}
