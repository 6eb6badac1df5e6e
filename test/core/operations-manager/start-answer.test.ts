/**
 * What a start answers: the job as it was committed, without the engine's
 * fields and its output, in the bytes serialising that view gives (the
 * answer is made from the JSON the store was given, not serialised again).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shownJob } from '../../../core/src/jobs/document.ts';
import type { JobDoc } from '../../../core/src/jobs/document.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, manual, newVariable, workflow } from '../../helpers/engine.ts';

const headers = { authorization: '', 'content-type': 'application/json' };

/** The start's answer as text, as the client received it. */
async function startText(core: RunningCore, name: string, variables: Record<string, unknown>): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${core.url}/operations-manager/jobs/start`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${core.adminToken}` },
    body: JSON.stringify({ workflow: name, options: { description: 'ünïcode "quoted" \u2028', variables } }),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

test('a start answers, byte for byte, the shown view of the job as stored, whether it ended within the start or still runs', async () => {
  const core = await startCore(await openTestStore());
  try {
    await createWorkflow(core, workflow('quick', { a1b2: newVariable('made', { n: 1, s: 'é' }) }, [['workflow_start', 'a1b2'], ['a1b2', 'workflow_end']], { outputSchema: { type: 'object', properties: { made: {} } } }));
    await createWorkflow(core, workflow('waits', { c3d4: manual() }, [['workflow_start', 'c3d4'], ['c3d4', 'workflow_end']]));
    for (const [name, status] of [['quick', 'complete'], ['waits', 'running']] as const) {
      const answer = await startText(core, name, { host: 'core-rtr-01', deep: { list: [1, null, 'x'] } });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.type, 'application/json; charset=utf-8');
      const id = (JSON.parse(answer.text) as { data: { _id: string; status: string } }).data._id;
      const stored = (await core.store.collection('jobs').findById(id)) as JobDoc;
      assert.equal(stored.status, status);
      assert.equal(answer.text, JSON.stringify({ message: 'Successfully started the job', data: shownJob(stored), metadata: {} }));
    }
  } finally {
    await core.close();
  }
});
