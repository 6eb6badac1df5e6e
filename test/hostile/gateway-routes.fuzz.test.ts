/**
 * Hostile input through the gateway: every core route passed through
 * (`/nso_manager/*` as the alias of `/orchestrator_manager/*` too), the
 * gateway's own routes, and every legacy operation of the mapping table
 * (`gateway.entries`). Pass-through answers are the core's (a 4xx in the
 * route's shape); legacy operations answer the legacy way (docs/gateway.md):
 * a plain JSON string that names the problem, status 500, or 401, 403, 404,
 * 405, 410, 413. Neither process logs an internal failure, both still serve,
 * and the core's store holds exactly what it held.
 *
 * Pass-through requests get the same guarantee as the core suite (oracle.ts).
 * A legacy call cannot change the store because of who makes it: a reader
 * (whose roles allow only GET routes, so the core refuses every write the
 * rewrite makes with 403 before reading it), a stranger (no valid
 * credentials: every call 401), or an administrator whose body cannot be
 * read (it must be refused before any call to the core).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Entry } from '../../gateway/src/mapping/types.ts';
import { legacyMatcher } from '../../gateway/src/legacy/match.ts';
import { compareReleases } from '../../gateway/src/releases.ts';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.ts';
import { queryPairs } from './arbitraries.ts';
import { coreAnswerProblems, errorShapeProblems, internalFailures, legacyAnswerProblems, shapeOfPath } from './answers.ts';
import { judge } from './oracle.ts';
import { credential, guard, legacyRequest, queryString, routeRequest } from './requests.ts';
import type { LegacyMode } from './requests.ts';
import { describe, send } from './wire.ts';
import type { Answer, HostileRequest } from './wire.ts';
import { startWorld } from './world.ts';
import type { World } from './world.ts';

const SEED = Number(process.env['HOSTILE_SEED'] ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env['HOSTILE_RUNS'] ?? 1500);

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world?.close());

function gatewayFailures(from: number): string[] {
  return world.gatewayLogs.slice(from).filter((l) => /"level":"error"|pass-through failed/.test(l));
}

/** Checks a pass-through answer against the core's table; `req` is as sent (already guarded), `sentAs` its path on the wire. */
function assertPassedThrough(req: HostileRequest, answer: Answer, logsFrom: { core: number; gateway: number }, sentAs: string): void {
  const verdict = judge(world.table, req);
  const problems = coreAnswerProblems(answer, verdict.route?.shape ?? shapeOfPath(req.pathname), { mayRead: verdict.kind === 'read' || req.method === 'OPTIONS', head: false });
  problems.push(...internalFailures(world.core.logs, logsFrom.core).map((l) => `core logged: ${l.slice(0, 400)}`));
  problems.push(...gatewayFailures(logsFrom.gateway).map((l) => `gateway logged: ${l.slice(0, 400)}`));
  assert.deepEqual(problems, [], `${describe(req)} (sent as ${sentAs})\n  -> ${answer.status} ${answer.text.slice(0, 300)}`);
}

test(`every core route answers hostile input through the gateway as it does directly (seed ${SEED})`, async () => {
  // A core route may share a legacy family's prefix (the platform's GET /workflow_engine/jobs/metrics) but never be
  // taken by a legacy operation: then every request the property sends to it is passed through.
  const legacy = legacyMatcher(world.gateway.gateway.entries);
  const shadowed = world.core.core.routes.filter((r) => legacy(r.method, r.path.replace(/:\w+/g, 'x')) !== null).map((r) => `${r.method} ${r.path}`);
  assert.deepEqual(shadowed, [], 'no core route is taken by a legacy operation');
  await fc.assert(
    fc.asyncProperty(routeRequest(world.core.core.routes, world.known, world.knownIds), fc.boolean(), async (generated, alias) => {
      const { req } = guard(world.table, generated);
      const viaAlias = alias && req.pathname.startsWith('/orchestrator_manager/');
      const sent = viaAlias ? { ...req, pathname: `/nso_manager/${req.pathname.slice('/orchestrator_manager/'.length)}` } : req;
      const from = { core: world.core.logs.length, gateway: world.gatewayLogs.length };
      const answer = await send(world.gateway.url, sent, world.tokens);
      assertPassedThrough(req, answer, from, sent.pathname);
    }),
    { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
  );
  await assertUnharmed();
});

test(`the gateway's own routes answer hostile input with a 4xx in the plain shape (seed ${SEED})`, async () => {
  const own = fc.record({
    path: fc.constantFrom('/gateway/audit/report', '/gateway/health/live', '/gateway/audit/report/', '/gateway/audit', '/gateway'),
    method: fc.constantFrom('GET', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'TRACE'),
    query: queryPairs,
    credential,
  });
  await fc.assert(
    fc.asyncProperty(own, async ({ path, method, query, credential: c }) => {
      const req: HostileRequest = { method, pathname: path, query: queryString(query), body: { kind: 'none' }, credential: c };
      const from = { core: world.core.logs.length, gateway: world.gatewayLogs.length };
      const answer = await send(world.gateway.url, req, world.tokens);
      // The report is a read (of the gateway's audit store); its liveness always answers.
      const mayRead = method === 'GET' && (path === '/gateway/audit/report' || path === '/gateway/health/live');
      const problems = answer.status < 400 && mayRead ? [] : answer.status >= 400 ? errorShapeProblems(answer, 'plain', false) : [`status ${answer.status}`];
      problems.push(...gatewayFailures(from.gateway), ...internalFailures(world.core.logs, from.core));
      assert.deepEqual(problems, [], `${describe(req)}\n  -> ${answer.status} ${answer.text.slice(0, 300)}`);
    }),
    { seed: SEED, numRuns: Math.ceil(RUNS / 6), includeErrorInReport: true },
  );
  await assertUnharmed();
});

function removedAt(entry: Entry): boolean {
  return compareReleases(world.core.config.platform.release, entry.removed) >= 0;
}

test(`every legacy operation answers hostile input the legacy way and changes nothing (seed ${SEED})`, async (t) => {
  const modes = new Map<LegacyMode, number>();
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(legacyRequest(world.gateway.gateway.entries, world.known, world.knownIds), async ({ entry, mode, req }) => {
      modes.set(mode, (modes.get(mode) ?? 0) + 1);
      const from = { core: world.core.logs.length, gateway: world.gatewayLogs.length };
      const answer = await send(world.gateway.url, req, world.tokens);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.headers['deprecation'] === undefined) {
        // The path did not match the legacy route (an empty or `..` segment): the core answered it.
        assertPassedThrough(req, answer, from, req.pathname);
        return;
      }
      const problems = legacyAnswerProblems(answer, { maySucceed: mode === 'reader' });
      if (removedAt(entry) && answer.status !== 410 && answer.status !== 413) problems.push(`${entry.id} is removed at this release but answered ${answer.status}`);
      problems.push(...internalFailures(world.core.logs, from.core).map((l) => `core logged: ${l.slice(0, 400)}`));
      problems.push(...gatewayFailures(from.gateway).map((l) => `gateway logged: ${l.slice(0, 400)}`));
      assert.deepEqual(problems, [], `${entry.id} as ${mode}: ${describe(req)}\n  -> ${answer.status} ${answer.text.slice(0, 300)}`);
    }),
    { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
  );
  t.diagnostic(`${RUNS} legacy calls of ${world.gateway.gateway.entries.length} operations: ${JSON.stringify(Object.fromEntries(modes))}; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  await assertUnharmed();
});

async function assertUnharmed(): Promise<void> {
  assert.equal((await world.core.request('/health/live', { token: null })).status, 200, 'the core still serves');
  assert.equal((await send(world.gateway.url, { method: 'GET', pathname: '/gateway/health/live', query: '', body: { kind: 'none' }, credential: { kind: 'none' } }, world.tokens)).status, 200, 'the gateway still serves');
  assert.deepEqual(diffSnapshots(world.snapshot, await snapshotStore(world.store)), [], 'the store is exactly as it was');
}
