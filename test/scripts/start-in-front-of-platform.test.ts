/**
 * `npm start` (scripts/start.ts) as an operator in front of a real platform
 * would try it (docs/real-platform.md, "Trying it"): the platform stand-in
 * over HTTPS in front of the core that `npm start` starts on CORE_PORT, and
 * `npm start`'s gateway told `CORE_URL=https://…` (the stand-in),
 * `CORE_CA_FILE` (its CA), `PLATFORM_RELEASE=2023.1` and
 * `GATEWAY_SERVE_UNTIL=2024.1`. A legacy getJob answers with Deprecation,
 * Sunset (2024.1's date) and Link, the audit report names the caller, and
 * everything the gateway sent reached the stand-in as a platform serves it.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD, tempDir, timed } from '../faults/support.ts';
import { eventually } from '../helpers/wait.ts';
import { storeEnv } from '../helpers/stores.ts';
import { freePort } from '../helpers/free-port.ts';
import { request } from '../helpers/core.ts';
import { workflow } from '../helpers/engine.ts';
import { PLATFORM_SERVING, platformMissing, recordingProblems } from '../helpers/in-front-of-platform.ts';
import { startPlatformSim } from '../../tools/platform-sim/server.ts';
import { CALENDAR_FILE } from '../../gateway/src/app.ts';
import { loadCalendar } from '../../kernel/releases.ts';

const data = tempDir('npm-start-platform');
after(() => data.remove());

/** The caller a migration audit must name: an account, and the user agent of its script. */
const AGENT = 'nightly-job-report/1.4';

describe('npm start in front of the platform stand-in', { skip: platformMissing ?? false }, () => {
  test('a legacy getJob through npm start\'s gateway answers with Deprecation, Sunset and Link, and the audit report names the caller', { timeout: 120_000 }, async (t) => {
    const [corePort, gatewayPort] = [await freePort(), await freePort()];
    // The stand-in only reaches the core per request, so it can start first and write its CA for the gateway.
    const sim = await startPlatformSim({ coreUrl: `http://127.0.0.1:${corePort}` });
    const caFile = join(data.path, 'platform-sim-ca.pem');
    writeFileSync(caFile, sim.ca);
    const env = {
      ...process.env, MONGO_URL: '', ...storeEnv(join(data.path, 'data')), ADMIN_PASSWORD, LOG_LEVEL: 'warn',
      CORE_PORT: String(corePort), PORT: String(gatewayPort),
      CORE_URL: sim.url, CORE_CA_FILE: caFile, ...PLATFORM_SERVING,
    };
    const start = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--demo-jobs', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    start.stdout.on('data', (c: Buffer) => (out += c.toString()));
    start.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => start.once('exit', (code) => resolve(code)));
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    try {
      await eventually(async () => (await timed(`${gateway}/gateway/health/live`, { timeoutMs: 2000 })).status === 200 && (await timed(`http://127.0.0.1:${corePort}/health/live`, { timeoutMs: 2000 })).status === 200, { timeoutMs: 40_000, everyMs: 100 }).catch(() => {
        throw new Error(`npm start's services did not come up: ${out}`);
      });
      // The platform's login, through the gateway and the stand-in: the token comes back as bare text.
      const login = await fetch(`${gateway}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password: ADMIN_PASSWORD } }) });
      assert.equal(login.status, 200, await login.clone().text());
      const token = (await login.text()).replace(/^"|"$/g, '');
      const as = (method: string, path: string, body?: unknown): Promise<Awaited<ReturnType<typeof request>>> =>
        request(`${gateway}${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`, { method, headers: { 'content-type': 'application/json', 'user-agent': AGENT }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

      const wf = workflow('Trying It', {}, [['workflow_start', 'workflow_end']]);
      const created = await as('POST', '/automation-studio/automations', { automation: wf });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const started = await as('POST', '/operations-manager/jobs/start', { workflow: 'Trying It', options: { description: 'npm start in front of a platform' } });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const id = String(((started.body as { data: { _id: string } }).data)._id);

      const legacy = await as('GET', `/workflow_engine/getJob/${id}`);
      assert.equal(legacy.status, 200, JSON.stringify(legacy.body));
      assert.equal((legacy.body as { _id: string })._id, id);
      assert.match(legacy.headers.get('deprecation') ?? '', /^@\d+$/, 'Deprecation');
      assert.equal(legacy.headers.get('sunset'), loadCalendar(CALENDAR_FILE).dateOf(PLATFORM_SERVING.GATEWAY_SERVE_UNTIL).toUTCString(), 'Sunset at the gateway\'s own end, 2024.1');
      assert.match(legacy.headers.get('link') ?? '', /rel="successor-version"/, 'Link');
      t.diagnostic(`getJob: Deprecation ${legacy.headers.get('deprecation')}; Sunset ${legacy.headers.get('sunset')}; Link ${legacy.headers.get('link')}`);

      // The audit is written behind the answer: the report names the call once it is stored.
      type Row = { client: string; clientKind: string; userAgents: string[]; operation: string; calls: number };
      let row: Row | undefined;
      await eventually(async () => {
        const report = await as('GET', '/gateway/audit/report');
        assert.equal(report.status, 200, JSON.stringify(report.body));
        row = (report.body as { rows: Row[] }).rows.find((r) => r.operation === 'getJob');
        return row !== undefined;
      }, { timeoutMs: 15_000, everyMs: 200 });
      assert.equal(row!.client, 'admin');
      assert.equal(row!.clientKind, 'account');
      assert.deepEqual(row!.userAgents, [AGENT]);
      t.diagnostic(`audit report row: ${JSON.stringify(row)}`);

      assert.deepEqual(recordingProblems(sim.requests), [], 'what reached the stand-in');
      assert.ok(sim.requests.every((r) => r.credentials === 'query' || r.url === '/login'), 'the query token went upstream as one');
    } finally {
      start.kill('SIGTERM');
      const code = await exited;
      await sim.close();
      assert.equal(code, 0, out);
    }
  });
});
