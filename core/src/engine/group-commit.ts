/**
 * Group commit: the engine's batches handed in during one turn of the event
 * loop (every start request and change that turn served) are committed
 * together, in one store batch, at the end of the turn. A commit's cost is
 * mostly the pages it writes, and jobs written together share most of theirs
 * (the index pages new jobs and tasks all land on), so each job writes a
 * fraction of what it wrote alone (BENCHMARKS.md, "Where a job's time goes").
 *
 * Nothing is acknowledged early: each caller's promise settles only once the
 * batch holding its writes has committed. If the shared batch is refused (a
 * revision check failed, a document was refused), the store rolled it back
 * whole, and each caller's batch is committed again on its own, in the order
 * they came, so each gets the answer it would have had alone.
 */
import { AppError } from '../../../kernel/index.ts';
import type { Store, WriteOp } from '../../../kernel/index.ts';

/**
 * Writes one shared batch holds at most: about twenty ten-task jobs, a few
 * milliseconds of the event loop, so a burst of starts is committed in
 * several turns and requests are served between them.
 */
const MAX_GROUP_OPS = 256;

/** Errors that are the store's, not one batch's: every batch would meet them again, so none is retried alone. */
const STORE_WIDE: ReadonlySet<string> = new Set(['STORE_UNAVAILABLE', 'STORE_FULL']);

interface Queued {
  readonly ops: readonly WriteOp[];
  readonly resolve: (applied: boolean) => void;
  readonly reject: (err: unknown) => void;
}

export class GroupCommit {
  private queue: Queued[] = [];
  private scheduled = false;
  /** Shared batches being committed, and the wait for the next one while batches are queued. */
  private readonly inflight = new Set<Promise<void>>();
  private nextFlush: Promise<void> | null = null;
  private flushed: () => void = () => undefined;

  constructor(private readonly store: Store) {}

  /** As `Store.batch`: all of `ops` or none, false when a revision check failed; settles once committed. */
  batch(ops: readonly WriteOp[]): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ ops, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.nextFlush = new Promise<void>((done) => (this.flushed = done));
        setImmediate(this.flush);
      }
    });
  }

  /** Commits queued or under way (tests and clean shutdown wait for them before the store closes). */
  pending(): Array<Promise<unknown>> {
    return [...this.inflight, ...(this.nextFlush ? [this.nextFlush] : [])];
  }

  private readonly flush = (): void => {
    let size = 0;
    let taken = 0;
    // The first batch is taken whatever its size; the others while they fit.
    while (taken < this.queue.length && (taken === 0 || size + this.queue[taken]!.ops.length <= MAX_GROUP_OPS)) {
      size += this.queue[taken]!.ops.length;
      taken += 1;
    }
    const group = this.queue.slice(0, taken);
    this.queue = this.queue.slice(taken);
    const commit = this.commit(group);
    this.inflight.add(commit);
    void commit.finally(() => this.inflight.delete(commit));
    const flushed = this.flushed;
    this.scheduled = this.queue.length > 0;
    if (this.scheduled) {
      this.nextFlush = new Promise<void>((done) => (this.flushed = done));
      setImmediate(this.flush);
    } else this.nextFlush = null;
    flushed();
  };

  private async commit(group: readonly Queued[]): Promise<void> {
    if (group.length > 1) {
      let applied = false;
      try {
        applied = await this.store.batch(group.flatMap((q) => q.ops));
      } catch (err) {
        if (err instanceof AppError && STORE_WIDE.has(err.code)) {
          for (const q of group) q.reject(err);
          return;
        }
      }
      if (applied) {
        for (const q of group) q.resolve(true);
        return;
      }
    }
    for (const q of group) {
      try {
        q.resolve(await this.store.batch(q.ops));
      } catch (err) {
        q.reject(err);
      }
    }
  }
}
