/**
 * Ids of task iterations (task documents): UUIDs whose leading bits are the
 * time they were made (version 7, RFC 9562), still the UUID text the
 * platform's task routes take. Random (version 4) ids put every new task
 * document at a random place in each index of the tasks collection, so each
 * insert dirtied pages of its own; ids that grow with time put the task
 * documents written together side by side (BENCHMARKS.md, "Where a job's time
 * goes"). Within one millisecond a counter keeps them growing in this process.
 */
import { randomFillSync } from 'node:crypto';

/** The 12-bit counter after the time (RFC 9562, method 1); past it, the next millisecond is borrowed. */
const COUNTER_LIMIT = 0xfff;

let lastMs = 0;
let counter = 0;

/**
 * Random bytes drawn 8 at a time from a pool filled and turned into hex in
 * one call each: a call per id cost more than the rest of the id.
 */
const POOL_IDS = 256;
const pool = Buffer.alloc(8 * POOL_IDS);
let poolHex = '';
let drawn = POOL_IDS;

/** The random part's 16 hex digits, the variant (10xx) in the top bits. */
function randomHex(): number {
  if (drawn === POOL_IDS) {
    randomFillSync(pool);
    for (let at = 0; at < pool.length; at += 8) pool[at] = (pool[at]! & 0x3f) | 0x80;
    poolHex = pool.toString('hex');
    drawn = 0;
  }
  drawn += 1;
  return 16 * (drawn - 1);
}

/** The id's time part for the last millisecond used, made once per millisecond. */
let timeAt = -1;
let timeText = '';

export function newIterationId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (counter < COUNTER_LIMIT) {
    counter += 1;
  } else {
    lastMs += 1;
    counter = 0;
  }
  if (lastMs !== timeAt) {
    const time = lastMs.toString(16).padStart(12, '0');
    timeAt = lastMs;
    timeText = `${time.slice(0, 8)}-${time.slice(8, 12)}-7`;
  }
  const at = randomHex();
  return `${timeText}${counter.toString(16).padStart(3, '0')}-${poolHex.slice(at, at + 4)}-${poolHex.slice(at + 4, at + 16)}`;
}
