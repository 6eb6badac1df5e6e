/**
 * Exact search totals, remembered until the data can have changed. Counting
 * tens of thousands of index entries is most of a large search's cost, and
 * clients page through one filter, or poll it, many times between writes.
 * A total is dropped on any write through this collection, and all are
 * dropped when `PRAGMA data_version` moves (another connection or process
 * committed), so an answer is never stale.
 */
import type { Database, Statement } from 'better-sqlite3';

export class CountCache {
  private readonly entries = new Map<string, number>();
  private readonly version: Statement | null;
  private seenVersion = -1;

  constructor(db: Database, private readonly capacity: number) {
    this.version = capacity > 0 ? db.prepare('PRAGMA data_version') : null;
  }

  get(sql: string, params: readonly unknown[], compute: () => number): number {
    if (!this.version) return compute();
    const version = (this.version.get() as { data_version: number }).data_version;
    if (version !== this.seenVersion) {
      this.entries.clear();
      this.seenVersion = version;
    }
    const key = `${sql}\u0000${JSON.stringify(params)}`;
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Refresh its place so the least recently used entry is the one evicted.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const n = compute();
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, n);
    return n;
  }

  /** Every write calls it: eleven times a ten-task job. V8's `Map#clear` makes a new table even for an empty map. */
  clear(): void {
    if (this.entries.size > 0) this.entries.clear();
  }
}
