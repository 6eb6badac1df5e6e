/**
 * Child jobs, as `childJob` asks for them: each starts on a later turn of the
 * event loop, and never deeper than `maxChildJobDepth`, so a workflow that
 * starts itself ends in error instead of holding the process.
 */
import type { Initiator, StartOptions } from './new-job.ts';
import { nextTurn } from './stored.ts';
import { LimitError } from './types.ts';
import type { ChildJobRequest, ChildJobResult } from './types.ts';
import { limitMessage } from './limits.ts';
import type { JobDoc } from './working.ts';

export interface ChildJobDeps {
  startJob(workflow: string, options: StartOptions, initiator: Initiator, parent: JobDoc): Promise<JobDoc>;
  whenEnded(jobId: string): Promise<JobDoc>;
  readonly maxChildJobDepth: number;
  stopped(): boolean;
}

export async function runChildJobs(deps: ChildJobDeps, parent: JobDoc, requests: readonly ChildJobRequest[], mode: 'parallel' | 'sequential'): Promise<ChildJobResult[]> {
  // A root job is depth 0 with ancestors [itself]; its children are depth 1.
  if (parent.ancestors.length > deps.maxChildJobDepth) throw new LimitError(limitMessage('maxChildJobDepth', deps.maxChildJobDepth));
  const initiator = { id: parent.metrics.user, username: String(parent.variables['initiator'] ?? 'Pronghorn') };
  const runOne = async (r: ChildJobRequest): Promise<ChildJobResult> => {
    await nextTurn();
    if (deps.stopped()) throw new Error('the core is stopping');
    const child = await deps.startJob(r.workflow, { variables: r.variables, ...(r.description ? { description: r.description } : {}) }, initiator, parent);
    const ended = await deps.whenEnded(child._id);
    return { _id: ended._id, name: ended.name, status: ended.status, variables: ended.variables, output: ended.output ?? null, error: ended.error.length > 0 ? ended.error : null };
  };
  if (mode === 'parallel') return Promise.all(requests.map(runOne));
  const results: ChildJobResult[] = [];
  for (const r of requests) results.push(await runOne(r));
  return results;
}
