/**
 * The engine's commit layer. A job's document is the only truth about it and
 * is changed only through `mutate`: serialized per job in this process, and
 * committed with a revision check so another process's change is never
 * overwritten. What runs inside a change (pure tasks) and what follows a
 * commit (handlers of the runs it claimed) is the task runner's, reached
 * through the two hooks it is given.
 */
import { ConflictError, repository } from '../../../kernel/index.ts';
import type { Store } from '../../../kernel/index.ts';
import type { EngineObserver } from '../metrics/core-metrics.ts';
import { jobJson, normalizeJob } from '../jobs/document.ts';
import type { JobDoc, JobJson } from '../jobs/document.ts';
import { GroupCommit } from './group-commit.ts';
import { hasEnded } from './lifecycle.ts';
import { limitMessage } from './limits.ts';
import type { JobLimits } from './limits.ts';
import { Working } from './working.ts';
import { JOBS } from '../store/collections.ts';

/** A change lost to another process's commit is redone from what that one wrote, this many times at most. */
const ATTEMPTS = 5;

export interface CommitDeps {
  readonly store: Store;
  readonly now: () => number;
  readonly limits: JobLimits;
  /** Runs inside every change before it is committed: the pure tasks it claimed. */
  readonly inChange: (w: Working) => void;
  /** Runs after every commit: what the change claimed or closed is the runner's to act on. */
  readonly committed: (w: Working) => void;
  readonly observer?: EngineObserver;
}

export class JobCommits {
  /** Per job, the tail of its changes in this process. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly waiters = new Map<string, Array<(job: JobDoc) => void>>();
  /** Every change and start is written through it: concurrent jobs share one commit (group-commit.ts). */
  private readonly group: GroupCommit;

  constructor(private readonly deps: CommitDeps) {
    this.group = new GroupCommit(deps.store);
  }

  /** Runs `fn` after every earlier change of this job in this process has finished. */
  private lock<T>(jobId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(jobId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.then(() => undefined, () => undefined);
    this.chains.set(jobId, tail);
    void tail.then(() => {
      if (this.chains.get(jobId) === tail) this.chains.delete(jobId);
    });
    return next;
  }

  /**
   * Applies a change to a job; `fn` may throw an AppError to refuse it,
   * leaving the job untouched. `prepare` reads what the change needs inside
   * the job's lock, so nothing it reads can be changed by this process meanwhile.
   */
  mutate<T, P = undefined>(jobId: string, actor: string, fn: (w: Working, prepared: P) => T, prepare?: () => Promise<P>): Promise<{ job: JobDoc; result: T }> {
    return this.lock(jobId, async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
        const prepared = (prepare ? await prepare() : undefined) as P;
        const found = await repository(this.deps.store, JOBS).get(jobId);
        const stored = normalizeJob(found);
        let w = new Working(stored, this.deps.now, actor, this.deps.limits);
        const result = fn(w, prepared);
        this.deps.inChange(w);
        if (!w.changed) return { job: stored, result };
        const expected = typeof found._rev === 'number' ? found._rev : null;
        const sized = this.withinSize(w, () => stored, actor, (expected ?? 0) + 1);
        w = sized.w;
        const ok = await this.group.batch([{ op: 'replaceIfRev', collection: 'jobs', doc: w.job, expectedRev: expected, json: sized.json.stored }, ...w.writes]);
        if (!ok) continue; // another process changed it first: redo from what it wrote
        if (!hasEnded(stored.status) && hasEnded(w.job.status)) this.deps.observer?.jobFinished(w.job.status);
        this.afterCommit(w);
        return { job: w.job, result };
      }
      throw new ConflictError(`Job ${jobId} kept changing under this request; try again`);
    });
  }

  /**
   * Stores a new job after its first change (`first`, made by the one who
   * starts it); answers it with its JSON as stored and as shown. `fresh`
   * makes the new job: the change is made on it in place, since nothing else
   * holds it, and a copy of a ten-task job cost a start about 15 us; it is
   * made again only for the job as it was, when the change is too large.
   */
  async insert(fresh: () => JobDoc, actor: string, first: (w: Working) => void): Promise<{ job: JobDoc; json: JobJson }> {
    let w = new Working(fresh(), this.deps.now, actor, this.deps.limits, 'in place');
    first(w);
    this.deps.inChange(w);
    const sized = this.withinSize(w, fresh, actor, 0);
    w = sized.w;
    await this.group.batch([{ op: 'insert', collection: 'jobs', doc: w.job, json: sized.json.stored }, ...w.writes]);
    this.deps.observer?.jobStarted();
    // A workflow of pure tasks only can end inside the change that starts it.
    if (hasEnded(w.job.status)) this.deps.observer?.jobFinished(w.job.status);
    this.afterCommit(w);
    return { job: w.job, json: sized.json };
  }

  /**
   * Seals the change at revision `rev` and serialises it once, for the size
   * check and the store alike. A change that would make the job's document
   * larger than maxJobBytes is dropped whole; in its place the job as it was
   * goes to error. Checked on every commit, so no loop can grow a job past it
   * by more than one slice.
   */
  private withinSize(w: Working, base: () => JobDoc, actor: string, rev: number): { w: Working; json: JobJson } {
    const { maxJobBytes } = this.deps.limits;
    w.seal();
    w.job._rev = rev;
    const json = jobJson(w.job);
    // UTF-8 takes at most 3 bytes per UTF-16 unit, so most jobs are shown within the bound without counting bytes.
    if (json.stored.length * 3 <= maxJobBytes || Buffer.byteLength(json.stored) <= maxJobBytes) return { w, json };
    const over = new Working(base(), this.deps.now, actor, this.deps.limits);
    // The error names a task the dropped change was running, when the job as it was has none in flight.
    over.abandon(limitMessage('maxJobBytes', maxJobBytes), Object.values(w.job._runs)[0]?.key);
    over.seal();
    over.job._rev = rev;
    return { w: over, json: jobJson(over.job) };
  }

  private afterCommit(w: Working): void {
    if (hasEnded(w.job.status)) {
      const waiting = this.waiters.get(w.job._id) ?? [];
      this.waiters.delete(w.job._id);
      for (const resolve of waiting) resolve(w.job);
    }
    this.deps.committed(w);
  }

  /** Resolves when the job is complete, canceled or in error. */
  async whenEnded(jobId: string): Promise<JobDoc> {
    let resolver: (job: JobDoc) => void = () => undefined;
    const settled = new Promise<JobDoc>((resolve) => {
      resolver = resolve;
      this.waiters.set(jobId, [...(this.waiters.get(jobId) ?? []), resolve]);
    });
    const now = (await this.deps.store.collection('jobs').findById(jobId)) as JobDoc | null;
    if (now && hasEnded(now.status)) {
      // Ended before anyone waited (a child of quick tasks ends within its start): drop the waiter, or it stays forever.
      const left = (this.waiters.get(jobId) ?? []).filter((r) => r !== resolver);
      if (left.length > 0) this.waiters.set(jobId, left);
      else this.waiters.delete(jobId);
      return now;
    }
    return settled;
  }

  /** Changes queued or running in this process, and commits not yet made. */
  pending(): Array<Promise<unknown>> {
    return [...this.chains.values(), ...this.group.pending()];
  }
}
