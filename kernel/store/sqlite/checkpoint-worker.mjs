// The WAL checkpoint thread (checkpoint-thread.ts starts it): its own connection to the store's file checkpoints
// the WAL, so the connection that commits on the event loop does not (docs/archive.md, "How small the batches are").
// Plain JavaScript: it needs only better-sqlite3, and a worker does not inherit the parent's TypeScript loader
// (Node 20).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs, walFrames } = workerData;
// Frames in the WAL as the last checkpoint found them, for the store's connection to read without asking
// (SqliteStore.roomForBackgroundWrites): 0 once the WAL has been started again.
const published = new Int32Array(walFrames);
// Never waits for a lock (better-sqlite3 would wait 5 s): a checkpoint that finds one taken is tried at the next tick.
const db = new Database(file, { timeout: 0 });
const port = parentPort;
let checkpoints = 0;
let frames = 0;
let lastError = null;
let seen = { log: 0, checkpointed: 0 };

/** Pages in the WAL from which a WAL copied whole is also started again from its beginning. */
const RESTART_FROM = 256;

/** One checkpoint round; answers whether the WAL is now short, or copied whole and started again. */
function checkpoint() {
  try {
    // One row: busy (1 when a lock was taken), log (frames in the WAL), checkpointed (frames copied so far).
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    lastError = null;
    publish(row);
    if (!row || row.log <= 0) return true;
    count(row);
    const whole = row.busy === 0 && row.checkpointed >= row.log;
    // SQLite starts a WAL copied whole again only at a commit that begins while no checkpoint runs, which a
    // checkpointing thread seldom leaves room for: the WAL grew on. RESTART starts it again from here, and gives up at
    // once if a commit is under way.
    if (row.log < RESTART_FROM) return whole;
    if (!whole) return false;
    // RESTART copies what was committed since, and syncs it, while it holds the write lock: 20-30 ms for a single
    // commit's pages, which a commit on the event loop then waits for. A second PASSIVE that finds nothing new
    // (copying nothing, it syncs nothing) shows a pause between commits, and RESTART then takes well under 1 ms.
    const [again] = db.pragma('wal_checkpoint(PASSIVE)');
    if (!again) return false;
    count(again);
    publish(again);
    if (again.log !== row.log) return false;
    const [restart] = db.pragma('wal_checkpoint(RESTART)');
    if (!restart) return false;
    count(restart);
    if (restart.busy === 0) Atomics.store(published, 0, 0);
    return restart.busy === 0;
  } catch (err) {
    // A full disk or a locked file: tried again at the next tick, and told to whoever asks.
    lastError = err instanceof Error ? err.message : String(err);
    return true;
  }
}

function publish(row) {
  Atomics.store(published, 0, row && row.log > 0 ? row.log : 0);
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
