/**
 * What an archive group takes from the store, batch by batch. Each service
 * declares its own groups: the core's jobs with their tasks
 * (core/src/archive/jobs.ts), the gateway's audit records
 * (gateway/src/audit/archive-group.ts).
 *
 * Batches are taken from a window over an indexed date (`metrics.start_time`
 * for jobs, `time` for audit) that widens while it finds little and narrows
 * while it fills a batch, so each pick walks about a batch's worth of index
 * entries instead of skipping, every time, the documents before it that are
 * not due. A job starts before it ends, so the windows stop at the cutoff.
 *
 * Each step runs on the event loop of a service that is answering requests
 * (the embedded store does its work synchronously), so every step is cut
 * small: a batch is picked as ids only, without a count; its documents are
 * read and serialised a slice at a time, with a yield to the loop after each
 * (docs/archive.md, "How small the batches are").
 */
import { and } from '../search/conditions.ts';
import type { Condition } from '../search/conditions.ts';
import type { DocType, FieldDef } from '../search/fields.ts';
import type { Doc, Store } from '../store/types.ts';
import type { ArchiveKind, GroupName } from './files.ts';

const DAY = 86_400_000;
/** Documents read and serialised between two yields to the event loop. */
export const READ_SLICE = 25;

export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The documents with these ids, read `READ_SLICE` at a time with a yield after each slice, each with its JSON. */
export async function readSliced(store: Store, collection: ArchiveKind, ids: readonly string[]): Promise<Array<{ doc: Doc; json: string }>> {
  const out: Array<{ doc: Doc; json: string }> = [];
  for (let i = 0; i < ids.length; i += READ_SLICE) {
    for (const doc of await store.collection(collection).findByIds(ids.slice(i, i + READ_SLICE))) out.push({ doc, json: JSON.stringify(doc) });
    await yieldToLoop();
  }
  return out;
}

export interface DueItem {
  readonly kind: ArchiveKind;
  readonly day: string;
  readonly id: string;
  readonly json: string;
}

export interface GroupSpec {
  readonly name: GroupName;
  /** Kinds in the order their documents are deleted: a job's tasks before the job. */
  readonly kinds: readonly ArchiveKind[];
  readonly windowField: FieldDef;
  /** The collection whose documents the window walks; the others' go with them. */
  readonly primary: ArchiveKind;
  due(cutoff: number): Condition;
  /** The documents of a batch of primary ids, with what goes with them, read a slice at a time. */
  expand(store: Store, ids: readonly string[]): Promise<DueItem[]>;
}

export function fieldOf(type: DocType, path: string): FieldDef {
  const field = type.fields.get(path);
  if (!field) throw new Error(`the ${type.name} registry has no field ${path}`);
  return field;
}

export const lt = (field: FieldDef, value: number): Condition => ({ kind: 'compare', op: 'lt', field, value });
const gte = (field: FieldDef, value: number): Condition => ({ kind: 'compare', op: 'gte', field, value });


/** Walks the window over the group's indexed date from the epoch up to the cutoff. */
export class DueWindow {
  private lo = 0;
  private width = DAY;

  constructor(private readonly store: Store, private readonly group: GroupSpec, private readonly cutoff: number, private readonly limit: number) {}

  /**
   * The ids of the next batch of due primary documents; empty once the
   * window has passed the cutoff. The batch's documents leave the store
   * before the next call, so a window that filled a batch is searched again
   * from its start, narrowed, until it holds less than a batch.
   */
  async next(): Promise<string[]> {
    const collection = this.store.collection(this.group.primary);
    const field = this.group.windowField;
    while (this.lo < this.cutoff) {
      const hi = Math.min(this.lo + this.width, this.cutoff);
      const ids = await collection.findIds(and([this.group.due(this.cutoff), gte(field, this.lo), lt(field, hi)]), this.limit);
      if (ids.length < this.limit) {
        // The window held no more than this: the next search starts past it.
        this.lo = hi;
        if (ids.length < this.limit / 4) this.width *= 2;
        if (ids.length === 0) continue;
      } else this.width = Math.max(1, Math.floor(this.width / 2));
      return ids;
    }
    return [];
  }

  /** How many due primary documents there are in all (one full count: for --dry-run, not for batches). */
  static countDue(store: Store, group: GroupSpec, cutoff: number): Promise<number> {
    return store.collection(group.primary).count(group.due(cutoff));
  }
}
