/**
 * Whose search the search thread runs next. One queue in arrival order let
 * one caller who sent many long searches make every other caller wait behind
 * all of them, and fill the bound so that theirs were refused. Here each
 * caller has a lane of their own, and the lanes take turns: a caller's next
 * search waits at most one search from each other caller who is waiting.
 * Each caller may hold a share of the bound (queued and at the thread), so
 * the rest of it stays open to the others. A few callers together could
 * still fill the bound; past it a caller who holds nothing is still taken,
 * one search, up to twice the bound, so filling it shuts out nobody who is
 * not already waiting (four accounts used to be enough, now it takes as many
 * accounts more as the bound).
 */

/** Why a search was not taken: the bound for everyone, or the caller's own share of it. */
export type Refusal = { readonly reason: 'full'; readonly held: number } | { readonly reason: 'share'; readonly held: number };

export class SearchTurns<T> {
  /** Waiting lanes, in the order they are next served: a lane goes to the back once served. */
  private readonly lanes = new Map<string, T[]>();
  /** Searches each caller has queued or at the thread. */
  private readonly heldBy = new Map<string, number>();
  private heldAll = 0;
  private queued = 0;

  constructor(
    private readonly maxHeld: number,
    private readonly maxHeldPerCaller: number,
  ) {}

  /** Searches queued or at the thread, of every caller. */
  get held(): number {
    return this.heldAll;
  }

  get waiting(): number {
    return this.queued;
  }

  /** Queues `item` in `caller`'s lane, or says why not. */
  push(caller: string, item: T): Refusal | null {
    const mine = this.heldBy.get(caller) ?? 0;
    if (mine >= this.maxHeldPerCaller) return { reason: 'share', held: mine };
    if (this.heldAll >= this.maxHeld && (mine > 0 || this.heldAll >= 2 * this.maxHeld)) return { reason: 'full', held: this.heldAll };
    this.heldBy.set(caller, mine + 1);
    this.heldAll += 1;
    this.queued += 1;
    const lane = this.lanes.get(caller);
    if (lane) lane.push(item);
    else this.lanes.set(caller, [item]);
    return null;
  }

  /** The first search of the lane whose turn it is; that lane then goes to the back. */
  next(): T | undefined {
    const first = this.lanes.entries().next();
    if (first.done === true) return undefined;
    const [caller, lane] = first.value;
    const item = lane.shift()!;
    this.lanes.delete(caller);
    if (lane.length > 0) this.lanes.set(caller, lane);
    this.queued -= 1;
    return item;
  }

  /** A search of `caller`'s taken by `next` was answered: it no longer counts against the bounds. */
  release(caller: string): void {
    const mine = this.heldBy.get(caller) ?? 0;
    if (mine <= 1) this.heldBy.delete(caller);
    else this.heldBy.set(caller, mine - 1);
    this.heldAll = Math.max(0, this.heldAll - 1);
  }

  /** Every queued search, emptied out (the thread died); nothing is held after. */
  clear(): T[] {
    const all = [...this.lanes.values()].flat();
    this.lanes.clear();
    this.heldBy.clear();
    this.heldAll = 0;
    this.queued = 0;
    return all;
  }
}
