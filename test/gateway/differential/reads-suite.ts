/**
 * Differential test of every legacy read operation: random documents in the
 * real core's store, random legacy requests (MongoDB filters with the
 * operators legacy clients sent, sorts, skips, limits including 0 and above
 * the search's page, projections, Bearer and `?token=` credentials) sent to
 * the real gateway, and each answer compared, order included, with what
 * MongoDB answers on the same documents (mingo, oracle.ts). A request the
 * new interface cannot express exactly must be the legacy error (a plain
 * JSON string, status 500) naming what it cannot express, never another
 * answer. DIFF_SEED replays a run; DIFF_RUNS sets the cases per operation.
 *
 * The suite runs in two modes, each its own test file so the runner runs
 * them side by side: in front of our core (reads.test.ts), and over HTTPS in
 * front of the platform stand-in (reads-platform.test.ts), where it ends by
 * reading what reached the stand-in (test/helpers/in-front-of-platform.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { READS } from './read-operations.ts';
import type { ReadCase } from './read-operations.ts';
import { startWorld } from './world.ts';
import type { Credential, Mode, World } from './world.ts';
import { assertPlatformServed } from '../../helpers/in-front-of-platform.ts';

const SEED = Number(process.env['DIFF_SEED'] ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env['DIFF_RUNS'] ?? 40);

let world: World;

/** The part of an answer worth printing in a failure. */
function shown(value: unknown): string {
  return JSON.stringify(value)?.slice(0, 1500) ?? 'undefined';
}

async function check(c: ReadCase, credential: Credential): Promise<'answered' | 'refused'> {
  const res = await world.send(c.call, credential);
  const request = `${c.call.method} ${c.call.path} ${shown(c.call.body)} (${credential})`;
  if (c.refusals.length > 0) {
    assert.equal(res.status, 500, `${request}\nmust be refused naming one of ${c.refusals.join(', ')}; got ${res.status} ${shown(res.body)}`);
    assert.equal(typeof res.body, 'string', `${request}\nthe legacy error is a plain JSON string: ${shown(res.body)}`);
    const message = res.body as string;
    assert.ok(c.refusals.some((word) => message.includes(word)), `${request}\nthe refusal ${JSON.stringify(message)} names none of ${c.refusals.join(', ')}`);
    return 'refused';
  }
  assert.equal(res.status, 200, `${request}\n-> ${res.status} ${shown(res.body)}`);
  assert.deepStrictEqual(res.body, c.expected(), `${request}\nanswered ${shown(res.body)}\nMongoDB: ${shown(c.expected())}`);
  return 'answered';
}

export function readsSuite(mode: Mode): void {
  before(async () => {
    world = await startWorld(SEED, mode);
  });
  after(() => world?.close());

  test('the store holds the drawn documents and nothing else; the fields docs/search.md says sort do', async (t) => {
    for (const f of ['_id', 'name', 'status', 'metrics.start_time', 'last_updated']) assert.ok(world.sortable.jobs.includes(f) && world.sortable.tasks.includes(f), `${f} sorts`);
    t.diagnostic(`sortable: jobs ${world.sortable.jobs.join(', ')}; tasks ${world.sortable.tasks.join(', ')}`);
    const jobs = await world.core.request('/operations-manager/jobs?limit=0');
    const tasks = await world.core.request('/operations-manager/tasks?limit=0');
    assert.equal((jobs.body as { metadata: { total: number } }).metadata.total, world.jobs.length);
    assert.equal((tasks.body as { metadata: { total: number } }).metadata.total, world.tasks.length);
  });

  for (const [name, operation] of Object.entries(READS)) {
    test(`${name} answers what MongoDB answers, or the legacy error naming what cannot be expressed (seed ${SEED})`, async (t) => {
      const tally = { answered: 0, refused: 0 };
      await fc.assert(
        fc.asyncProperty(operation(world), fc.constantFrom(...world.credentials), async (c, credential) => {
          tally[await check(c, credential)] += 1;
        }),
        { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
      );
      t.diagnostic(`${RUNS} requests: ${tally.answered} answered as MongoDB did, ${tally.refused} refused by name`);
    });
  }

  if (mode === 'platform') {
    test('what reached the platform stand-in is what a real platform serves: its routes, documented filters, its credential forms, over TLS', (t) => {
      const made = world.sim!.requests;
      assertPlatformServed(t, made);
    });
  }
}
