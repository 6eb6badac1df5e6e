/** How the embedded store's failures reach callers. */
import { StoreFullError, StoreUnavailableError } from '../../errors.ts';

/**
 * SQLite's own errors as the error family's: a write that found no room
 * (ENOSPC) is STORE_FULL; the file still locked by another process after the
 * busy timeout is STORE_UNAVAILABLE (a 503 worth retrying); anything else
 * unchanged.
 */
export function storeError(err: unknown): unknown {
  const code = String((err as { code?: unknown }).code ?? '');
  if (code === 'SQLITE_FULL') return new StoreFullError(err);
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED') return new StoreUnavailableError('The store is busy with another process; try again', err);
  return err;
}
