/**
 * Work waiting for its turn, oldest first. One item is let go per turn of the
 * event loop, so however many jobs loop or fan out at once (thousands of
 * children started together), pending I/O (requests) is served between any
 * two of them. One queue per engine, made by the app: two engines in one
 * process (a test's second core) each keep their own order.
 */
export class TurnQueue {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves when it is this work's turn: after the event loop has had a turn, and after all work that asked before it. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.release);
      }
    });
  }

  /** Work waiting now, its turn not yet come. */
  get length(): number {
    return this.waiting.length;
  }

  private readonly release = (): void => {
    this.waiting.shift()?.();
    this.scheduled = this.waiting.length > 0;
    if (this.scheduled) setImmediate(this.release);
  };
}
