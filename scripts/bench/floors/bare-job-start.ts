/**
 * The floor of `POST /operations-manager/jobs/start` for a workflow that goes
 * from its start straight to its end: the core's session lookup, the
 * workflow read by name from the same store file, one job document written,
 * and an answer of the same shape and size. The job is built from
 * JOB_TEMPLATE (a job the core started from that workflow, given by the
 * bench) with a fresh id and times; no engine, events, metrics or logging.
 */
import { createWorkflowLookup } from '../../../core/src/workflows/lookup.ts';
import { newObjectId } from '../../../kernel/index.ts';
import type { Doc } from '../../../kernel/index.ts';
import { openCoreStore } from './store.ts';
import { liveSession, readBody, refuse, sendJson, serveFloor } from './serve.ts';

const { store } = await openCoreStore();
const jobs = store.collection('jobs');
const workflows = createWorkflowLookup(store);
const template = JSON.parse(process.env['JOB_TEMPLATE']!) as Doc;

serveFloor('bare job start', (req, res) => {
  void (async () => {
    if (!(await liveSession(store, req))) return refuse(res, 401);
    const { workflow } = JSON.parse(await readBody(req)) as { workflow: string };
    if ((await workflows.byName(workflow)) === null) return refuse(res, 404);
    const now = new Date().toISOString();
    const _id = newObjectId();
    const job: Doc = { ...template, _id, variables: { ...(template['variables'] as object), _id }, ancestors: [_id], created: now, last_updated: now };
    await jobs.insertOne(job);
    sendJson(res, 200, JSON.stringify({ message: 'Successfully started the job', data: job, metadata: {} }));
  })().catch(() => refuse(res, 500));
});
