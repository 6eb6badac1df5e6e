/**
 * Hostile input against every route of the core, enumerated from the
 * route table (`core.routes`), sent straight to the core: malformed JSON,
 * wrong types, missing and extra fields, deep nesting, Unicode and control
 * characters in paths and parameters, operator injection, prototype keys,
 * regex-looking strings, bad and missing credentials. Every answer is a 4xx
 * in the route's own error shape with a stable `X-Error-Code` (a GET the
 * validators accept may also succeed), nothing is logged as an internal
 * failure, the core still serves, and the store holds exactly what it held.
 *
 * No request can legitimately change the store: before sending, the route's
 * own validators are run in-process on the same input (oracle.ts); a request
 * they would let through to a handler that is not a GET gets credentials
 * that stand for no one. HOSTILE_SEED reproduces a run (fast-check prints the
 * seed and the shrunk counterexample of a failure).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.ts';
import { coreAnswerProblems, internalFailures, shapeOfPath } from './answers.ts';
import { guard, routeRequest } from './requests.ts';
import { describe, send } from './wire.ts';
import { startWorld } from './world.ts';
import type { World } from './world.ts';

const SEED = Number(process.env['HOSTILE_SEED'] ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env['HOSTILE_RUNS'] ?? 2500);

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world?.close());

test(`every core route answers hostile input with a 4xx in its own shape and changes nothing (seed ${SEED})`, async (t) => {
  const tally = { rejected: 0, read: 0, defectAdded: 0 };
  const statuses = new Map<number, number>();
  const refusedAt = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(routeRequest(world.core.core.routes, world.known, world.knownIds), async (generated) => {
      const { req, verdict, defectAdded } = guard(world.table, generated);
      if (defectAdded) tally.defectAdded++;
      if (verdict.kind === 'read') tally.read++;
      else tally.rejected++;
      if (verdict.kind === 'rejected') {
        const stage = /^(params|query|body):/.exec(verdict.reason)?.[1] ?? verdict.reason;
        refusedAt.set(stage, (refusedAt.get(stage) ?? 0) + 1);
      }
      const logsFrom = world.core.logs.length;
      const answer = await send(world.core.url, req, world.tokens);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const shape = verdict.route?.shape ?? shapeOfPath(req.pathname);
      // OPTIONS is answered by the router itself (200 with Allow); no handler runs.
      const problems = coreAnswerProblems(answer, shape, { mayRead: verdict.kind === 'read' || req.method === 'OPTIONS', head: req.method === 'HEAD' });
      problems.push(...internalFailures(world.core.logs, logsFrom).map((l) => `logged: ${l.slice(0, 500)}`));
      assert.deepEqual(problems, [], `${describe(req)}\n  -> ${answer.status} ${answer.text.slice(0, 300)}`);
    }),
    { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
  );
  t.diagnostic(`${RUNS} requests: ${tally.rejected} certain to be refused (${tally.defectAdded} given a defect), ${tally.read} reads; statuses ${JSON.stringify(Object.fromEntries(statuses))}; refused at ${JSON.stringify(Object.fromEntries(refusedAt))}`);
  assert.equal((await world.core.request('/health/live', { token: null })).status, 200, 'the core still serves');
  assert.deepEqual(diffSnapshots(world.snapshot, await snapshotStore(world.store)), [], 'the store is exactly as it was');
});
