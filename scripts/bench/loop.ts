/**
 * A job that loops (two automatic tasks leading into each other) in a real
 * core process: how fast it runs, what the core's liveness costs meanwhile
 * against the same core idle, its memory, and how long a cancel takes.
 */
import { memoryOf } from './child.ts';
import { summarize } from './stats.ts';
import type { Summary } from './stats.ts';

export interface LoopResult {
  readonly seconds: number;
  readonly runsPerSecond: number;
  readonly idle: Summary;
  readonly looping: Summary;
  readonly rssBeforeMb: number;
  readonly rssPeakMb: number;
  readonly cancelMs: number;
  readonly runsAfterCancel: number;
}

const LOOP = {
  name: 'bench-loop',
  description: 'two automatic tasks leading into each other',
  tasks: {
    workflow_start: { name: 'workflow_start', groups: [] },
    workflow_end: { name: 'workflow_end', groups: [] },
    a1: { name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { name: 'x', value: 1 }, outgoing: { value: null } } },
    a2: { name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { name: 'y', value: 2 }, outgoing: { value: null } } },
  },
  transitions: {
    workflow_start: { a1: { type: 'standard', state: 'success' } },
    a1: { a2: { type: 'standard', state: 'success' }, workflow_end: { type: 'standard', state: 'error' } },
    a2: { a1: { type: 'standard', state: 'success' } },
    workflow_end: {},
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `/health/live` every 20 ms while `going()` holds: how long each answer took. `each` runs after every answer. */
export async function probeWhile(baseUrl: string, going: () => boolean, each: () => void = () => undefined): Promise<number[]> {
  const samples: number[] = [];
  while (going()) {
    const started = performance.now();
    await fetch(`${baseUrl}/health/live`).then((r) => r.arrayBuffer());
    samples.push(performance.now() - started);
    each();
    await sleep(20);
  }
  return samples;
}

function probeLiveness(baseUrl: string, seconds: number, pid: number, peak: { mb: number }): Promise<number[]> {
  const until = Date.now() + seconds * 1000;
  return probeWhile(baseUrl, () => Date.now() < until, () => (peak.mb = Math.max(peak.mb, memoryOf(pid).rssMb)));
}

/** The core must allow the loop more task runs than it makes in `seconds` (ENGINE_MAX_TASK_RUNS_PER_JOB). */
export async function runLoopBench(baseUrl: string, token: string, pid: number, seconds: number): Promise<LoopResult> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown) => fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as unknown }));
  const runsOf = async (id: string): Promise<number> => {
    const res = await fetch(`${baseUrl}/operations-manager/tasks?equals[job._id]=${id}&limit=0`, { headers });
    return ((await res.json()) as { metadata: { total: number } }).metadata.total;
  };
  const saved = await post('/automation-studio/automations', { automation: LOOP });
  if (saved.status !== 200) throw new Error(`saving the loop workflow failed: ${JSON.stringify(saved.body)}`);
  const peak = { mb: 0 };
  const idle = await probeLiveness(baseUrl, 2, pid, peak);
  const rssBeforeMb = memoryOf(pid).rssMb;
  peak.mb = rssBeforeMb;
  const started = await post('/operations-manager/jobs/start', { workflow: LOOP.name });
  const id = (started.body as { data: { _id: string } }).data._id;
  const from = performance.now();
  const looping = await probeLiveness(baseUrl, seconds, pid, peak);
  const runs = await runsOf(id);
  const elapsed = (performance.now() - from) / 1000;
  const cancelFrom = performance.now();
  await post('/operations-manager/jobs/cancel', { jobIds: [id] });
  const cancelMs = performance.now() - cancelFrom;
  const atCancel = await runsOf(id);
  await sleep(500);
  return { seconds: elapsed, runsPerSecond: runs / elapsed, idle: summarize(idle), looping: summarize(looping), rssBeforeMb, rssPeakMb: peak.mb, cancelMs, runsAfterCancel: (await runsOf(id)) - atCancel };
}
