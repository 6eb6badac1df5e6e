/**
 * A polling scheduler over one collection, for documents in Agenda's shape:
 * `nextRunAt`, `repeatInterval`, `repeatTimezone`, `lockedAt`, `lastRunAt`,
 * `lastFinishedAt`, `failedAt`, `failReason`, `failCount`, `_rev`.
 *
 * Every poll reads the due documents (`nextRunAt` ≤ now, plus the caller's
 * `eligible` condition), and for each one whose lock is free or expired
 * writes `lockedAt` with a revision-checked swap (the repository's): of
 * several processes sharing the store, exactly one wins that write and runs
 * the document. After the
 * callback, the same process records the run, computes the next one and
 * clears the lock. A process that dies mid-run leaves the lock to expire
 * (`lockLifetimeMs`), after which another process runs the document again.
 *
 * Dates are written in the encoding the registry declares for `nextRunAt`
 * (ISO strings or epoch milliseconds). The collection's search registry
 * (its declaration's `docType`) must declare `nextRunAt` (and any field `eligible` names), because the SQLite
 * store can only query declared fields. Nothing runs until `start()`, and
 * the timer never keeps the process alive.
 */
import { and, ConflictError, NotFoundError, repository, StoreUnavailableError } from '../../../kernel/index.ts';
import type { CollectionDeclaration, Condition, DateEncoding, Doc, DocType, FieldDef, Keyed, Logger, Repository, Store } from '../../../kernel/index.ts';
import { nextRunAfter } from './schedule.ts';
import type { RepeatInterval } from './schedule.ts';

/**
 * A document the scheduler runs: read field by field, since the Agenda fields
 * are not every type's own. `run` and `next` are methods, so a scheduler of
 * triggers is a Scheduler to whoever only starts and stops it.
 */
export type ScheduledDoc = Doc & Keyed;

export interface SchedulerOptions<T extends ScheduledDoc> {
  readonly store: Store;
  /** The collection; its search registry must declare `nextRunAt` as a date field. */
  readonly collection: CollectionDeclaration<T>;
  /** What else a due document must satisfy (not disabled, enabled, ...). */
  readonly eligible?: Condition | null;
  /** Runs one claimed document. A throw is recorded as the run's failure; the schedule goes on. */
  run(doc: T): Promise<void>;
  /**
   * When the document runs next, after a run that started at `ranAt`
   * (epoch ms); null for never. Default: from `repeatInterval` and
   * `repeatTimezone` with `nextRunAfter`, null when there is no interval.
   */
  next?(doc: T, ranAt: number): number | null;
  readonly logger: Logger;
  readonly pollMs: number;
  /** A lock older than this is taken to belong to a dead process. Default 10 minutes, as Agenda. */
  readonly lockLifetimeMs?: number;
  /** Due documents read per poll. Default 50. */
  readonly batchSize?: number;
  readonly now?: () => number;
  /** Names this scheduler in logs. */
  readonly label?: string;
  /** Told of each finished run (the metrics). */
  readonly onRun?: RunObserver;
}

/** Told of each finished run of a scheduler, by its label. */
export type RunObserver = (scheduler: string, outcome: 'ok' | 'failed') => void;

const DEFAULT_LOCK_LIFETIME_MS = 10 * 60_000;
const DEFAULT_BATCH = 50;

/** The lock was taken over while the run went on: its record is the new holder's to write. */
class LockLost extends Error {}

/** Epoch ms of a stored date (ISO string, epoch number or Date), or null. */
export function dateMs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.length > 0) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.getTime();
  return null;
}

/** The default `next`: Agenda's fields, with missed runs collapsed into the one just made. */
export function nextFromRepeat(doc: Doc, ranAt: number): number | null {
  const repeat = doc['repeatInterval'];
  if (repeat === null || repeat === undefined || repeat === '') return null;
  if (typeof repeat !== 'string' && typeof repeat !== 'number') return null;
  const timezone = typeof doc['repeatTimezone'] === 'string' ? (doc['repeatTimezone'] as string) : null;
  const scheduled = dateMs(doc['nextRunAt']) ?? ranAt;
  return nextRunAfter(repeat as RepeatInterval, scheduled, ranAt, timezone)?.getTime() ?? null;
}

export class Scheduler<T extends ScheduledDoc = ScheduledDoc> {
  private timer: NodeJS.Timeout | null = null;
  private readonly polls = new Set<Promise<number>>();
  private started = false;
  private stopped = false;
  private readonly nextRunAt: FieldDef;
  private readonly encoding: DateEncoding;
  private readonly now: () => number;
  private readonly lockLifetimeMs: number;
  private readonly type: DocType | null;
  private readonly repo: Repository<T>;

  constructor(private readonly options: SchedulerOptions<T>) {
    this.type = options.collection.spec.docType;
    const field = this.type?.fields.get('nextRunAt');
    if (!field || field.type !== 'date' || !field.dateEncoding) throw new Error(`scheduler: the ${options.collection.name} registry must declare nextRunAt as a date field`);
    this.nextRunAt = field;
    this.repo = repository(options.store, options.collection);
    this.encoding = field.dateEncoding;
    this.now = options.now ?? Date.now;
    this.lockLifetimeMs = options.lockLifetimeMs ?? DEFAULT_LOCK_LIFETIME_MS;
  }

  get running(): boolean {
    return this.started;
  }

  /** Starts polling: a first poll at once, then every `pollMs`. Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * Stops polling and waits for polls in progress to finish their current
   * run; after it, `tick()` runs nothing until `start()` again.
   */
  async stop(): Promise<void> {
    this.started = false;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.polls]);
  }

  private schedule(delay: number): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.tick()
        .catch((err: unknown) => {
          this.options.logger.warn('scheduler poll failed', { scheduler: this.label, error: err instanceof Error ? err.message : String(err) });
          return 0;
        })
        // A full batch may mean more are due: look again at once.
        .then((ran) => this.schedule(ran >= this.batchSize ? 0 : this.options.pollMs));
    }, delay);
    this.timer.unref();
  }

  private get label(): string {
    return this.options.label ?? this.options.collection.name;
  }

  private get batchSize(): number {
    return this.options.batchSize ?? DEFAULT_BATCH;
  }

  private write(ms: number): string | number {
    return this.encoding === 'isoString' ? new Date(ms).toISOString() : ms;
  }

  /**
   * One poll: claims and runs every due document it can, one after the
   * other. Answers how many this process ran. Tests call it directly.
   */
  tick(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    const poll = this.poll();
    this.polls.add(poll);
    const forget = (): void => void this.polls.delete(poll);
    poll.then(forget, forget);
    return poll;
  }

  private async poll(): Promise<number> {
    const now = this.now();
    const due: Condition = { kind: 'compare', op: 'lte', field: this.nextRunAt, value: this.write(now) };
    const id = this.type?.fields.get('_id');
    const page = await this.repo.search({
      where: and([due, ...(this.options.eligible ? [this.options.eligible] : [])]),
      sort: [{ field: this.nextRunAt, direction: 1 }, ...(id ? [{ field: id, direction: 1 as const }] : [])],
      skip: 0,
      limit: this.batchSize,
    });
    let ran = 0;
    for (const doc of page.docs) {
      // A stop() during a batch ends it after the current run.
      if (this.stopped) break;
      const claimed = await this.claim(doc);
      if (!claimed) continue;
      await this.runClaimed(claimed);
      ran += 1;
    }
    return ran;
  }

  /** Writes our lock if it is free or expired; null when another process holds it or got there first. */
  private async claim(doc: T): Promise<T | null> {
    const now = this.now();
    const lockedAt = dateMs(doc['lockedAt']);
    if (lockedAt !== null && lockedAt > now - this.lockLifetimeMs) return null;
    return this.repo.swap(doc, { ...doc, lockedAt: this.write(now) });
  }

  private async runClaimed(claimed: T): Promise<void> {
    const startedAt = this.now();
    let failure: string | null = null;
    try {
      await this.options.run(claimed);
    } catch (err) {
      if (err instanceof StoreUnavailableError) {
        // Nothing was started (a store write is all or nothing): the run is owed, not failed. Recording it
        // would lose a one-time schedule for good; the next poll, here or in another process, runs it.
        this.options.logger.warn('scheduled run put off: the store was busy', { scheduler: this.label, id: claimed['_id'] });
        await this.release(claimed);
        return;
      }
      failure = err instanceof Error ? err.message : String(err);
      this.options.logger.warn('scheduled run failed', { scheduler: this.label, id: claimed['_id'], error: failure });
    }
    this.options.onRun?.(this.label, failure === null ? 'ok' : 'failed');
    await this.finish(claimed, startedAt, failure);
  }

  /** Gives the lock back untouched otherwise, unless it was lost meanwhile. */
  private async release(claimed: T): Promise<void> {
    try {
      await this.repo.swap(claimed, { ...claimed, lockedAt: null });
    } catch {
      // The lock then expires on its own and the run is taken up after lockLifetimeMs.
    }
  }

  private computeNext(doc: T, startedAt: number): number | null {
    try {
      return (this.options.next ?? nextFromRepeat)(doc, startedAt);
    } catch (err) {
      // A schedule that cannot be computed stops rather than firing on every poll.
      this.options.logger.warn('next run not computable; schedule stopped', { scheduler: this.label, id: doc['_id'], error: err instanceof Error ? err.message : String(err) });
      return null;
    }
  }

  /** Records the run and releases the lock, unless the lock was lost (expired and taken over). */
  private async finish(claimed: T, startedAt: number, failure: string | null): Promise<void> {
    const id = claimed._id;
    try {
      await this.repo.update(id, (fresh) => {
        if (fresh['lockedAt'] !== claimed['lockedAt']) throw new LockLost();
        // A schedule changed during the run keeps the new nextRunAt; otherwise compute it.
        const rescheduled = fresh['nextRunAt'] !== claimed['nextRunAt'];
        const next = rescheduled ? null : this.computeNext(fresh, startedAt);
        const updated: T = {
          ...fresh,
          lockedAt: null,
          lastRunAt: this.write(startedAt),
          lastFinishedAt: this.write(this.now()),
          nextRunAt: rescheduled ? fresh['nextRunAt'] : next === null ? null : this.write(next),
        };
        if (failure === null) return updated;
        return { ...updated, failedAt: this.write(this.now()), failReason: failure, failCount: (typeof fresh['failCount'] === 'number' ? fresh['failCount'] : 0) + 1 };
      });
    } catch (err) {
      if (err instanceof NotFoundError) return; // deleted while running
      if (err instanceof LockLost) this.options.logger.warn('scheduled run finished after its lock was taken over', { scheduler: this.label, id });
      else if (err instanceof ConflictError) this.options.logger.warn('scheduled run not recorded: the document kept changing; its lock will expire', { scheduler: this.label, id });
      else throw err;
    }
  }
}
