/**
 * MongoDB's failures as the error family's, so callers treat both stores the
 * same (docs/errors.md): a duplicate key is a DuplicateKeyError (409 where a
 * service turns it into a conflict), a server that cannot be reached or
 * cannot take writes right now (failover, shutdown, a write concern not met)
 * is STORE_UNAVAILABLE (503, worth retrying), a server out of disk space is
 * STORE_FULL (507), and a document over the BSON limit is DOCUMENT_TOO_LARGE
 * (413). Anything else is passed on unchanged and becomes a 500.
 * Pure: classifies by class, code and error label, never by talking to a server.
 */
import { MongoError, MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError, MongoWriteConcernError } from 'mongodb';
import { DocumentTooLargeError, StoreFullError, StoreUnavailableError } from '../../errors.ts';
import { DuplicateKeyError } from '../types.ts';
import { BSON_LIMIT } from '../limits.ts';

export const DUPLICATE_KEY_CODES: ReadonlySet<number> = new Set([11000, 11001, 12582]);

/**
 * Codes of a server that is stepping down, shutting down, recovering, not
 * (or no longer) primary, or unreachable from the one we talk to; and of an
 * operation the server gave up on in time. All pass once a primary is back.
 * From the server's error_codes.yml, as the driver's SDAM and retry rules use them.
 */
export const UNAVAILABLE_CODES: ReadonlySet<number> = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired: a read that gave up after MAX_TIME_MS
  64, // WriteConcernFailed / WriteConcernTimeout
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** OutOfDiskSpace: the server refuses writes while its disk is below its free-space threshold. */
export const FULL_CODES: ReadonlySet<number> = new Set([14031]);

/** BSONObjectTooLarge, and the older "object to insert too large". */
export const TOO_LARGE_CODES: ReadonlySet<number> = new Set([10334, 10329, 17419]);

/** Labels the server and driver put on errors that a retry can clear. */
const RETRY_LABELS = ['TransientTransactionError', 'RetryableWriteError', 'UnknownTransactionCommitResult'] as const;

/** `E11000 duplicate key error collection: iap.jobs index: _id_ dup key: ...` names the index. */
export function duplicateKeyName(message: string): '_id' | 'unique key' {
  return /\bindex: _id_ /.test(message) ? '_id' : 'unique key';
}

function codeOf(err: unknown): number | null {
  const code = (err as { code?: unknown } | null)?.code;
  const n = typeof code === 'number' ? code : typeof code === 'string' && /^\d+$/.test(code) ? Number(code) : NaN;
  return Number.isFinite(n) ? n : null;
}

/** The first write error of a bulk write (insertMany), or of a write concern error's result. */
function firstWriteError(err: unknown): { code: number | null; message: string } | null {
  const list = (err as { writeErrors?: unknown } | null)?.writeErrors;
  const first = Array.isArray(list) ? list[0] : list && typeof list === 'object' ? Object.values(list)[0] : undefined;
  if (!first || typeof first !== 'object') return null;
  const f = first as { code?: unknown; errmsg?: unknown; message?: unknown };
  return { code: codeOf(f), message: String(f.errmsg ?? f.message ?? '') };
}

/** Any error of this store as the error family's; `collection` names where it happened. */
export function mongoStoreError(err: unknown, collection: string): unknown {
  if (!(err instanceof MongoError)) return err;
  const written = firstWriteError(err);
  const code = written?.code ?? codeOf(err);
  const message = written?.message || err.message;
  if (code !== null && DUPLICATE_KEY_CODES.has(code)) return new DuplicateKeyError(collection, duplicateKeyName(message));
  if (code !== null && TOO_LARGE_CODES.has(code)) return new DocumentTooLargeError(collection, BSON_LIMIT + 1, BSON_LIMIT);
  if (code !== null && FULL_CODES.has(code)) return new StoreFullError(err);
  if (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoWriteConcernError ||
    (code !== null && UNAVAILABLE_CODES.has(code)) ||
    RETRY_LABELS.some((label) => err.hasErrorLabel(label))
  ) {
    return new StoreUnavailableError('The MongoDB store cannot serve this right now (no primary, or not reachable); try again', err);
  }
  return err;
}
