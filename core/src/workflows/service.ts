/**
 * Saving and deleting workflows: the defaults Automation Studio fills, the
 * checks of validate.ts, unique names, and the refusal to delete a workflow
 * that running or paused jobs still use.
 */
import type { StudioWorkflow } from '../engine/types.ts';
import { ConflictError, newUuid, repository, ValidationError } from '../../../kernel/index.ts';
import type { ErrorDetail, Repository, SearchQuery, Store } from '../../../kernel/index.ts';
import { WORKFLOWS } from '../store/collections.ts';
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

export class StudioWorkflowService {
  readonly lookup: WorkflowLookup;
  /** A taken id or name is the factory's 409, naming `_id` or `name`. */
  private readonly workflows: Repository<StudioWorkflow>;

  constructor(private readonly store: Store) {
    this.lookup = createWorkflowLookup(store);
    this.workflows = repository(store, WORKFLOWS);
  }

  /** A page of workflows, as stored. */
  search(query: SearchQuery): Promise<{ docs: StudioWorkflow[]; total: number }> {
    return this.workflows.search(query);
  }

  /** Ids are stored lower-case (UUIDs as the platform writes them); the 404 names the id as given. */
  async get(id: string): Promise<StudioWorkflow> {
    const found = await this.lookup.byId(id);
    if (!found) throw WORKFLOWS.notFound(id);
    return found;
  }

  /** By id first, then by exact name: clients pass either. */
  async getByIdOrName(idOrName: string): Promise<StudioWorkflow> {
    const found = (await this.lookup.byId(idOrName)) ?? (await this.lookup.byName(idOrName));
    if (!found) throw WORKFLOWS.notFound(idOrName);
    return found;
  }

  async create(input: Record<string, unknown>, user: string): Promise<StudioWorkflow> {
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
    // validateWorkflow checked every field a workflow needs.
    return this.workflows.insert(doc as StudioWorkflow);
  }

  /**
   * The update is laid over the stored workflow field by field (a given
   * `tasks` replaces all tasks), and the result must pass every check a new
   * workflow does. The id and the creation record never change.
   */
  async update(id: string, update: Record<string, unknown>, user: string): Promise<StudioWorkflow> {
    const existing = await this.get(id);
    const problems: ErrorDetail[] = [];
    const givenId = update['_id'];
    if (givenId !== undefined && (typeof givenId !== 'string' || givenId.toLowerCase() !== existing._id)) {
      problems.push({ parameter: 'update._id', message: `cannot change: this workflow's id is ${existing._id}` });
    }
    const merged = {
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
    // A workflow deleted meanwhile is a 404 naming its stored id.
    return this.workflows.replace(merged);
  }

  /** Refused while jobs of the workflow are running or paused: they read it as they go. */
  async delete(id: string): Promise<StudioWorkflow> {
    const existing = await this.get(id);
    const active = await countActiveJobs(this.store, existing.name);
    if (active > 0) {
      const jobs = active === 1 ? '1 job' : `${active} jobs`;
      throw new ConflictError(`Workflow ${existing.name} is used by ${jobs} that ${active === 1 ? 'is' : 'are'} ${ACTIVE_JOB_STATUSES.join(' or ')}; cancel or finish ${active === 1 ? 'it' : 'them'} first`, [
        { parameter: 'id', message: `${jobs} ${ACTIVE_JOB_STATUSES.join(' or ')}` },
      ]);
    }
    await this.workflows.delete(existing._id);
    return existing;
  }
}
