// The WAL checkpoint thread (checkpoint-thread.ts starts it): its own connection to the store's file checkpoints
// the WAL, so the connection that commits on the event loop does not (docs/archive.md, "How small the batches are").
// Plain JavaScript: it needs only better-sqlite3, and a worker does not inherit the parent's TypeScript loader
// (Node 20).
import { parentPort, workerData } from 'node:worker_threads';
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';

const { file, intervalMs, crowdedBytes } = workerData;
// Never waits for a lock (better-sqlite3 would wait 5 s): a checkpoint that finds one taken is tried at the next tick.
const db = new Database(file, { timeout: 0 });
const port = parentPort;
let checkpoints = 0;
let frames = 0;
let lastError = null;
let seen = { log: 0, checkpointed: 0 };

/** Pages in the WAL from which a WAL copied whole is also started again from its beginning. */
const RESTART_FROM = 256;

/**
 * Whether the WAL file is long enough for background writers to wait (SqliteStore.roomForBackgroundWrites reads its
 * size the same way): the WAL is then started again with TRUNCATE, which also cuts the file at once, where RESTART
 * would leave it as long until a commit they will not make. `stat` opens nothing: opening and closing the file here
 * would drop this process's locks on it.
 */
function crowded() {
  return (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) >= crowdedBytes;
}

/** One checkpoint round; answers whether the WAL is now short, or copied whole and started again. */
function checkpoint() {
  try {
    // One row: busy (1 when a lock was taken), log (frames in the WAL), checkpointed (frames copied so far).
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    lastError = null;
    if (!row) return true;
    const long = crowded();
    if (row.log <= 0) return long ? startAgain('TRUNCATE') : true;
    count(row);
    const whole = row.busy === 0 && row.checkpointed >= row.log;
    // SQLite starts a WAL copied whole again only at a commit that begins while no checkpoint runs, which a
    // checkpointing thread seldom leaves room for: the WAL grew on. RESTART starts it again from here, and gives up at
    // once if a commit is under way.
    if (row.log < RESTART_FROM && !long) return whole;
    if (!whole) return false;
    // RESTART copies what was committed since, and syncs it, while it holds the write lock: 20-30 ms for a single
    // commit's pages, which a commit on the event loop then waits for. A second PASSIVE that finds nothing new
    // (copying nothing, it syncs nothing) shows a pause between commits, and RESTART then takes well under 1 ms.
    const [again] = db.pragma('wal_checkpoint(PASSIVE)');
    if (!again) return false;
    count(again);
    if (again.log !== row.log) return false;
    return startAgain(long ? 'TRUNCATE' : 'RESTART');
  } catch (err) {
    // A full disk or a locked file: tried again at the next tick, and told to whoever asks.
    lastError = err instanceof Error ? err.message : String(err);
    return true;
  }
}

/** Starts a WAL copied whole again from its beginning; false when a reader or a commit is still on it. */
function startAgain(mode) {
  const [row] = db.pragma(`wal_checkpoint(${mode})`);
  if (!row) return false;
  count(row);
  return row.busy === 0;
}

/** Adds what a checkpoint copied to the figures (an estimate: the WAL was started again when it is now shorter). */
function count(row) {
  if (row.log < 0) return;
  const copied = row.checkpointed - (row.log < seen.log ? 0 : seen.checkpointed);
  seen = row;
  if (copied > 0) {
    checkpoints += 1;
    frames += copied;
  }
}

// Commits made during a checkpoint are not copied by it, so until the WAL is copied whole and started again the
// thread tries again a millisecond later, to catch up in the first pause between commits; then it rests `intervalMs`. Should
// it never catch up (a steady stream of commits), the store's own connection checkpoints once the WAL is past
// its limit (store.ts).
let timer = setTimeout(function tick() {
  timer = setTimeout(tick, checkpoint() ? intervalMs : 1);
}, intervalMs);

port.on('message', (request) => {
  if (request.close) {
    clearTimeout(timer);
    checkpoint();
    db.close();
    port.postMessage({ id: request.id, checkpoints, frames, lastError });
    port.close();
    return;
  }
  // Asked for its figures (tests, benches): a checkpoint now, then what it has done so far.
  checkpoint();
  port.postMessage({ id: request.id, checkpoints, frames, lastError });
});
