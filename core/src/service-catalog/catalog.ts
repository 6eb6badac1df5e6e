/**
 * Services (`catalog_store`) and their forms (`forms`). A service names the
 * workflow its orders start (by name, as jobs do) and the form whose JSON
 * Schema checks the order's data. A service with groups is visible only to
 * members of one of them and to ServiceCatalog admins; one the caller cannot
 * see is answered as not found, as jobs are.
 */
import type { Caller } from '../auth/caller.ts';
import { and, duplicateRefusal, newObjectId, NotFoundError, repository, schemaProblems, ValidationError } from '../../../kernel/index.ts';
import type { Condition, Doc, ErrorDetail, FieldDef, Keyed, Repository, Store } from '../../../kernel/index.ts';
import { FORMS, GROUPS as GROUP_COLLECTION, SERVICES } from '../store/collections.ts';
import type { WorkflowLookup } from '../workflows/lookup.ts';
import type { FormDoc } from './form-schema.ts';
import type { AddServiceBody, NewForm, Page, ServiceFields, UpdateServiceBody } from './schemas.ts';

export const PROVENANCE = 'ServiceCatalog';

export interface ServiceDoc extends Doc {
  _id: string;
  name: string;
  description: string;
  formId: string;
  workflow: string;
  groups: string[];
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

export interface ListAnswer {
  results: Doc[];
  total: number;
}

// Neither collection has a search registry; `name` has a column through its unique index.
function field(path: string, type: FieldDef['type'], options: { array?: boolean; sortable?: boolean } = {}): FieldDef {
  return { path, type, array: options.array ?? false, arrayOfObjects: null, dateEncoding: null, sortable: options.sortable ?? false, textSearch: false };
}
const NAME = field('name', 'string', { sortable: true });
const ID = field('_id', 'objectId', { sortable: true });
const GROUPS = field('groups', 'string', { array: true });
/** Services read per page when gathering the forms a caller may see. */
const SERVICE_PAGE = 1000;
const BY_NAME = [{ field: NAME, direction: 1 as const }, { field: ID, direction: 1 as const }];

export const ALL = 'all';

function seesAll(caller: Caller): boolean {
  return caller.adminOf.has(PROVENANCE);
}

function visibleTo(caller: Caller, service: Doc): boolean {
  const groups = service['groups'];
  if (seesAll(caller) || !Array.isArray(groups) || groups.length === 0) return true;
  return groups.some((g) => typeof g === 'string' && caller.groupIds.has(g));
}

function visibility(caller: Caller): Condition | null {
  if (seesAll(caller)) return null;
  const open: Condition = { kind: 'empty', field: GROUPS };
  if (caller.groupIds.size === 0) return open;
  return { kind: 'or', items: [open, { kind: 'in', field: GROUPS, values: [...caller.groupIds] }] };
}

export class ServiceCatalog {
  /** Names are unique (the store's index decides); a taken one is the factory's 409. */
  private readonly services: Repository<ServiceDoc>;
  private readonly forms: Repository<FormDoc & Doc>;

  constructor(private readonly store: Store, private readonly workflows: WorkflowLookup, private readonly now: () => Date = () => new Date()) {
    this.services = repository(store, SERVICES);
    this.forms = repository(store, FORMS);
  }

  async service(id: string, caller: Caller): Promise<ServiceDoc> {
    const doc = await this.services.find(id);
    if (!doc || !visibleTo(caller, doc)) throw SERVICES.notFound(id);
    return doc;
  }

  async serviceNamed(name: string, caller: Caller): Promise<ServiceDoc> {
    const doc = await this.named(this.services, name);
    if (!doc || !visibleTo(caller, doc)) throw new NotFoundError(`No service is named ${name}`);
    return doc;
  }

  /**
   * A form the caller may see: one that a service visible to them uses (admins: any). A form is
   * the schema of a service's orders, so it is seen with its service, never without: a hidden
   * service's form, or a form no service uses any longer, is answered as not found.
   */
  async visibleForm(id: string, caller: Caller): Promise<FormDoc & Doc> {
    const doc = await this.form(id);
    if (!(seesAll(caller) || (await this.usedVisibly(id, caller)))) throw FORMS.notFound(id);
    return doc;
  }

  /** A form by id whoever may see it: for an order, whose service the caller was shown already. */
  form(id: string): Promise<FormDoc & Doc> {
    return this.forms.get(id);
  }

  /** `formId` has no column to search by: the visible services are read (a catalog holds tens or hundreds). */
  private async usedVisibly(formId: string, caller: Caller): Promise<boolean> {
    return (await this.visibleFormIds(caller)).includes(formId);
  }

  /** The ids of the forms the services visible to the caller use. */
  private async visibleFormIds(caller: Caller): Promise<string[]> {
    const ids = new Set<string>();
    for (let skip = 0; ; skip += SERVICE_PAGE) {
      const page = await this.services.search({ where: visibility(caller), sort: BY_NAME, skip, limit: SERVICE_PAGE });
      for (const service of page.docs) if (typeof service['formId'] === 'string') ids.add(service['formId']);
      if (page.docs.length < SERVICE_PAGE) return [...ids];
    }
  }

  async listServices(filter: string, caller: Caller, page: Page): Promise<ListAnswer> {
    const byName: Condition | null = filter === ALL ? null : { kind: 'match', mode: 'substring', field: NAME, text: filter };
    const found = await this.services.search({ where: and([byName, visibility(caller)].filter((c): c is Condition => c !== null)), sort: BY_NAME, skip: page.skip, limit: page.limit });
    return { results: found.docs, total: found.total };
  }

  /** The forms the caller may see (form() says which), by name. */
  async listForms(page: Page, caller: Caller): Promise<ListAnswer> {
    let where: Condition | null = null;
    if (!seesAll(caller)) {
      const ids = await this.visibleFormIds(caller);
      if (ids.length === 0) return { results: [], total: 0 };
      where = { kind: 'in', field: ID, values: ids };
    }
    const found = await this.forms.search({ where, sort: BY_NAME, skip: page.skip, limit: page.limit });
    return { results: found.docs, total: found.total };
  }

  async add(body: AddServiceBody, caller: Caller): Promise<ServiceDoc> {
    const problems = await this.references(body.service, body.form);
    if (body.service.formId === undefined && body.form === undefined) {
      problems.unshift({ parameter: 'body.service.formId', message: 'is required unless body.form is given' });
    }
    invalidIf(problems);
    await this.assertNameFree(body.service.name, null);
    const at = this.now().toISOString();
    const form = body.form ? await this.createForm(body.form, caller, at) : null;
    const service: ServiceDoc = {
      _id: newObjectId(),
      name: body.service.name,
      description: body.service.description ?? '',
      formId: form ? form._id : body.service.formId!,
      workflow: body.service.workflow,
      groups: body.service.groups ?? [],
      created: at,
      createdBy: caller.username,
      lastUpdated: at,
      lastUpdatedBy: caller.username,
    };
    return this.orUndo(form, () => this.services.insert(service));
  }

  async update(body: UpdateServiceBody, caller: Caller): Promise<ServiceDoc> {
    const { _id, ...changes } = body.service;
    const current = await this.service(_id, caller);
    invalidIf(await this.references(changes, body.form));
    if (changes.name !== undefined) await this.assertNameFree(changes.name, _id);
    const at = this.now().toISOString();
    const form = body.form ? await this.createForm(body.form, caller, at) : null;
    const updated: ServiceDoc = { ...current, ...changes, ...(form ? { formId: form._id } : {}), lastUpdated: at, lastUpdatedBy: caller.username };
    return this.orUndo(form, () => this.services.replace(updated));
  }

  async remove(id: string, caller: Caller): Promise<ServiceDoc> {
    const service = await this.service(id, caller);
    await this.services.delete(id);
    return service;
  }

  /** Every broken reference (workflow, groups, form) and a bad inline form, named by where it was given. */
  private async references(fields: ServiceFields, form: NewForm | undefined): Promise<ErrorDetail[]> {
    const problems: ErrorDetail[] = [];
    if (fields.workflow !== undefined && !(await this.workflows.byName(fields.workflow))) {
      problems.push({ parameter: 'body.service.workflow', message: `no workflow is named ${fields.workflow}` });
    }
    if (fields.groups !== undefined && fields.groups.length > 0) {
      const known = new Set((await repository(this.store, GROUP_COLLECTION).findMany(fields.groups)).map((g) => g._id));
      fields.groups.forEach((g, i) => {
        if (!known.has(g)) problems.push({ parameter: `body.service.groups[${i}]`, message: `no group has the id ${g}` });
      });
    }
    if (fields.formId !== undefined && form !== undefined) {
      problems.push({ parameter: 'body.form', message: 'cannot be given together with body.service.formId' });
    } else if (fields.formId !== undefined && !(await this.forms.find(fields.formId))) {
      problems.push({ parameter: 'body.service.formId', message: `no form has the id ${fields.formId}` });
    }
    if (form !== undefined) problems.push(...schemaProblems(form.schema, 'body.form.schema'));
    return problems;
  }

  private async createForm(input: NewForm, caller: Caller, at: string): Promise<FormDoc & Doc> {
    const form = { _id: newObjectId(), name: input.name, description: input.description, schema: input.schema, uiSchema: input.uiSchema, created: at, createdBy: caller.username, lastUpdated: at, lastUpdatedBy: caller.username };
    if (await this.named(this.forms, input.name)) throw FORMS.duplicate(form, 'name');
    return this.forms.insert(form);
  }

  /** Runs the service write; if it fails, the form made for it is removed so a retry can reuse the name. */
  private async orUndo<T>(form: Doc | null, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (form) await this.forms.collection.deleteOne(String(form['_id']));
      throw err;
    }
  }

  private async assertNameFree(name: string, self: string | null): Promise<void> {
    const other = await this.named(this.services, name);
    if (other && other._id !== self) throw duplicateRefusal(SERVICES.noun, 'name', other._id, { parameter: 'name', text: name });
  }

  private async named<T extends Keyed>(collection: Repository<T>, name: string): Promise<T | null> {
    const found = await collection.search({ where: { kind: 'compare', op: 'eq', field: NAME, value: name }, sort: BY_NAME, skip: 0, limit: 1 });
    return found.docs[0] ?? null;
  }
}

function invalidIf(problems: ErrorDetail[]): void {
  if (problems.length > 0) throw new ValidationError(`Invalid body: ${problems.map((p) => `${p.parameter} ${p.message}`).join('; ')}`, problems);
}
