/**
 * The stores a contract test runs on: the embedded SQLite store always, and
 * MongoDB when MONGO_URL is set (each run in its own database). Without
 * MONGO_URL the MongoDB variant is reported as skipped, with the reason.
 */
import { randomBytes } from 'node:crypto';
import { SqliteStore } from '../../core/src/store/sqlite/store.ts';
import type { Store } from '../../core/src/store/types.ts';

export interface StoreFactory {
  readonly name: 'sqlite' | 'mongodb';
  /** Why this store does not run here, or null when it does. */
  readonly skip: string | null;
  open(): Promise<Store>;
}

export const MONGO_SKIP_REASON = 'MONGO_URL is not set: the MongoDB variant of this suite did not run';

export function storeFactories(): StoreFactory[] {
  const mongoUrl = process.env['MONGO_URL'];
  return [
    { name: 'sqlite', skip: null, open: async () => SqliteStore.open({ dataDir: ':memory:' }) },
    {
      name: 'mongodb',
      skip: mongoUrl ? null : MONGO_SKIP_REASON,
      open: async () => {
        const url = new URL(mongoUrl!);
        url.pathname = `/iap_test_${randomBytes(6).toString('hex')}`;
        const { MongoStore } = await import('../../core/src/store/mongo/store.ts');
        return MongoStore.connect(url.toString());
      },
    },
  ];
}
