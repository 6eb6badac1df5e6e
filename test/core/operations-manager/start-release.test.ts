/**
 * The start's type check follows `platform.release`: before 2021.2 a
 * variable that does not match the workflow's inputSchema is accepted with a
 * `Warning` header and a log line, on the new start and through the
 * gateway's legacy startJobWithOptions; from 2021.2 it is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, manual, workflow } from '../../helpers/engine.ts';
import { startGateway } from '../../helpers/gateway.ts';

const inputSchema = { type: 'object', properties: { port: { type: 'string' }, count: { type: 'integer' } } };
const json = { 'content-type': 'application/json' };

async function coreAt(release: string): Promise<RunningCore> {
  const core = await startCore(await openTestStore(), { PLATFORM_RELEASE: release });
  await createWorkflow(core, workflow('typed', { c3d4: manual() }, [['workflow_start', 'c3d4'], ['c3d4', 'workflow_end']], { inputSchema }));
  return core;
}

const start = (core: RunningCore, variables: Record<string, unknown>) =>
  core.request('/operations-manager/jobs/start', { method: 'POST', headers: json, body: JSON.stringify({ workflow: 'typed', options: { variables } }) });

test('before 2021.2 a mistyped variable starts the job with a Warning header and a log line, directly and through the legacy start', async () => {
  const core = await coreAt('2021.1');
  const gw = await startGateway(core.url, { PLATFORM_RELEASE: '2021.1' });
  try {
    const res = await start(core, { port: 7, count: 'two' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.get('warning'), '299 - "variable port: must be string", 299 - "variable count: must be integer"');
    assert.deepEqual((res.body as { data: { variables: Record<string, unknown> } }).data.variables['port'], 7);
    assert.ok(core.logs.some((l) => l.includes('job started with variables that do not match the inputSchema') && l.includes('options.variables.port must be string')));
    const typed = await start(core, { port: 'Gi0/1', count: 2 });
    assert.equal(typed.status, 200);
    assert.equal(typed.headers.get('warning'), null, 'no warning when the variables match');

    const legacy = await request(`${gw.url}/workflow_engine/startJobWithOptions/typed`, { method: 'POST', headers: { ...json, authorization: `Bearer ${core.adminToken}` }, body: JSON.stringify({ options: { variables: { port: 7 } } }) });
    assert.equal(legacy.status, 200, JSON.stringify(legacy.body));
    assert.equal(legacy.headers.get('warning'), '299 - "variable port: must be string"');
  } finally {
    await gw.close();
    await core.close();
  }
});

test('from 2021.2 (and at the default 2022.1) a mistyped variable is refused and no warning is sent', async () => {
  for (const release of ['2021.2', '2022.1']) {
    const core = await coreAt(release);
    try {
      const res = await start(core, { port: 7 });
      assert.equal(res.status, 400, `${release}: ${JSON.stringify(res.body)}`);
      assert.equal(res.headers.get('warning'), null);
      assert.match(JSON.stringify(res.body), /options\.variables\.port/);
    } finally {
      await core.close();
    }
  }
});
