/**
 * Records legacy calls for the migration audit. Records are buffered and
 * written in batches off the request path; `close()` writes what is left, so
 * a clean stop loses nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../core/src/logger.ts';
import type { Store } from '../../../core/src/store/types.ts';

export type Outcome = 'rewritten' | 'refused' | 'failed';

export interface AuditRecord {
  readonly time: number;
  readonly operation: string;
  readonly entry: string;
  readonly source: string;
  readonly client: { readonly account: string | null; readonly clientId: string | null; readonly address: string; readonly userAgent: string };
  readonly outcome: Outcome;
  readonly status: number;
  readonly latencyMs: number;
  readonly deprecated: string;
  readonly removed: string;
  readonly replacement: string | null;
}

export class AuditRecorder {
  private buffer: Array<AuditRecord & { _id: string }> = [];
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly store: Store, private readonly logger: Logger, flushEveryMs = 500, private readonly batchSize = 500) {
    this.timer = setInterval(() => void this.flush(), flushEveryMs);
    this.timer.unref();
  }

  record(record: AuditRecord): void {
    this.buffer.push({ _id: randomUUID(), ...record });
    if (this.buffer.length >= this.batchSize) void this.flush();
  }

  /** Writes what is buffered; flushes never overlap, so records keep their order. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      while (this.buffer.length > 0) {
        const batch = this.buffer.splice(0, this.batchSize);
        try {
          await this.store.collection('audit').insertMany(batch as unknown as Array<Record<string, unknown>>);
        } catch (err) {
          this.buffer.unshift(...batch);
          this.logger.error('audit records not written; kept for the next attempt', { records: batch.length, error: String(err) });
          return;
        }
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
