/**
 * The transformations module's operations over the store. Names are unique:
 * the store's unique index decides (no check-then-write race). Creating or
 * renaming onto a taken name is refused with the real platform's 400; an
 * import instead takes the next free `name (n)`, as the real platform does.
 */
import pkg from '../../../package.json' with { type: 'json' };
import { BadRequestError, DuplicateKeyError, isObjectId, newObjectId, repository, ValidationError } from '../../../kernel/index.ts';
import type { Doc, ErrorDetail, SearchQuery, Store } from '../../../kernel/index.ts';
import { TRANSFORMATIONS } from '../store/collections.ts';
import { readEditable, toDocument } from './document.ts';
import type { Author, Editable, TransformationDoc } from './document.ts';
import { splitRunBody, TransformationRunner } from './run.ts';
import type { RunOptions } from './run.ts';
import { DEFAULT_LIMITS, MappingSandbox } from './sandbox.ts';
import type { SandboxLimits } from './sandbox.ts';

/** How many `name (n)` an import tries before giving up. */
const MAX_RENAMES = 1000;

export interface Transformations {
  search(query: SearchQuery): Promise<{ results: Doc[]; total: number }>;
  get(id: string): Promise<TransformationDoc>;
  create(body: unknown, author: Author): Promise<TransformationDoc>;
  update(id: string, body: unknown, author: Author): Promise<TransformationDoc>;
  remove(id: string): Promise<void>;
  /** One document or an array of them; answers what was stored, in the same form. */
  import(body: unknown, author: Author): Promise<TransformationDoc | TransformationDoc[]>;
  /** What the workflow task calls: incoming values keyed by `$id`. */
  run(id: string, incoming: Record<string, unknown>, options: RunOptions): Promise<unknown>;
  /** What `POST /transformations/:id` calls: `{incoming, options}` or the bare values. */
  runBody(id: string, body: Record<string, unknown>): Promise<unknown>;
  /** Stops the idle mapping workers. */
  close(): void;
}

export interface TransformationOptions {
  readonly limits?: Partial<SandboxLimits>;
}

function refuse(problems: readonly ErrorDetail[]): never {
  const shown = problems.slice(0, 5).map((d) => `${d.parameter} ${d.message}`).join('; ');
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
  throw new ValidationError(`Invalid transformation: ${shown}${more}`, problems);
}

function stamp(author: Author, created?: { created: string; createdBy: Author }) {
  const now = new Date().toISOString();
  return { created: created?.created ?? now, createdBy: created?.createdBy ?? author, lastUpdated: now, lastUpdatedBy: author, version: pkg.version };
}

export function createTransformations(store: Store, options: TransformationOptions = {}): Transformations {
  // A taken name is the platform's 400 (the declaration's refusal).
  const transformations = repository(store, TRANSFORMATIONS);
  const sandbox = new MappingSandbox({ ...DEFAULT_LIMITS, ...options.limits });
  const runner = new TransformationRunner(sandbox);

  async function get(id: string): Promise<TransformationDoc> {
    const found = isObjectId(id) ? await transformations.find(id.toLowerCase()) : null;
    if (!found) throw TRANSFORMATIONS.notFound(id);
    return found;
  }

  async function insertRenaming(fields: Editable, givenId: unknown, author: Author): Promise<TransformationDoc> {
    let id = isObjectId(givenId) ? givenId.toLowerCase() : newObjectId();
    for (let n = 0; n <= MAX_RENAMES; ) {
      const doc = toDocument(id, { ...fields, name: n === 0 ? fields.name : `${fields.name} (${n})` }, stamp(author));
      try {
        // The store's own refusal, not the repository's: which key was taken decides what to change.
        await transformations.collection.insertOne({ ...doc });
        return doc;
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        // A taken id gets a new one (the document is still imported); a taken name the next number.
        if (err.key === '_id') id = newObjectId();
        else n += 1;
      }
    }
    throw new BadRequestError(`Transformation ${JSON.stringify(fields.name)} could not be imported: ${MAX_RENAMES} renamed copies of it exist`, [{ parameter: 'name', message: 'has no free numbered name left' }]);
  }

  return {
    async search(query) {
      const page = await transformations.collection.search(query);
      return { results: page.docs, total: page.total };
    },

    get,

    async create(body, author) {
      const problems: ErrorDetail[] = [];
      const fields = readEditable(body, 'body', problems);
      if (!fields) refuse(problems);
      return transformations.insert(toDocument(newObjectId(), fields, stamp(author)));
    },

    async update(id, body, author) {
      const existing = await get(id);
      const problems: ErrorDetail[] = [];
      const givenId = (body as Record<string, unknown> | null)?.['_id'];
      if (givenId !== undefined && (typeof givenId !== 'string' || givenId.toLowerCase() !== existing._id)) {
        problems.push({ parameter: 'body._id', message: `cannot change: this transformation's id is ${existing._id}` });
      }
      const fields = readEditable(body, 'body', problems);
      if (!fields || problems.length > 0) refuse(problems);
      return transformations.replace(toDocument(existing._id, fields, stamp(author, existing)));
    },

    async remove(id) {
      const existing = await get(id);
      await transformations.delete(existing._id);
    },

    async import(body, author) {
      const list = Array.isArray(body) ? (body as unknown[]) : [body];
      if (list.length === 0) throw new ValidationError('Invalid import: nothing to import', [{ parameter: 'body', message: 'must be a transformation or a non-empty array of them' }]);
      // Every document is checked before any is stored, so a bad one imports nothing.
      const problems: ErrorDetail[] = [];
      const read = list.map((raw, i) => readEditable(raw, Array.isArray(body) ? `body[${i}]` : 'body', problems));
      if (problems.length > 0) refuse(problems);
      const imported: TransformationDoc[] = [];
      for (const [i, fields] of read.entries()) {
        imported.push(await insertRenaming(fields!, (list[i] as Record<string, unknown>)['_id'], author));
      }
      return Array.isArray(body) ? imported : imported[0]!;
    },

    async run(id, incoming, runOptions) {
      return runner.run(await get(id), incoming, runOptions);
    },

    async runBody(id, body) {
      const doc = await get(id);
      const { incoming, options: runOptions } = splitRunBody(doc, body);
      return runner.run(doc, incoming, runOptions);
    },

    close: () => sandbox.close(),
  };
}
