/**
 * Child jobs, as `childJob` asks for them. Each starts on a later turn of the
 * event loop, never deeper than `maxChildJobDepth`, and never past
 * `maxJobsPerTree` jobs under one root, so a workflow that starts itself
 * (once, or several times over) ends in error instead of holding the process.
 */
import type { Initiator, StartOptions } from './new-job.ts';
import { LimitError } from './types.ts';
import type { ChildJobRequest, ChildJobResult } from './types.ts';
import { limitMessage } from './limits.ts';
import { principalOfJob } from '../jobs/document.ts';
import type { JobDoc } from '../jobs/document.ts';

export interface ChildJobDeps {
  startJob(workflow: string, options: StartOptions, initiator: Initiator, parent: JobDoc): Promise<JobDoc>;
  whenEnded(jobId: string): Promise<JobDoc>;
  /** Counts `count` more jobs in the tree of `rootId`; rejects with a LimitError, counting none, past `maxJobsPerTree`. */
  reserve(rootId: string, count: number): Promise<void>;
  readonly maxChildJobDepth: number;
  stopped(): boolean;
  /** The engine's turn queue: resolves when it is this child's turn to start. */
  nextTurn(): Promise<void>;
}

export async function runChildJobs(deps: ChildJobDeps, parent: JobDoc, requests: readonly ChildJobRequest[], mode: 'parallel' | 'sequential', signal: AbortSignal): Promise<ChildJobResult[]> {
  // A root job is depth 0 with ancestors [itself]; its children are depth 1.
  if (parent.ancestors.length > deps.maxChildJobDepth) throw new LimitError(limitMessage('maxChildJobDepth', deps.maxChildJobDepth));
  if (requests.length > 0) await deps.reserve(parent.ancestors[0] ?? parent._id, requests.length);
  // A child acts for its parent's principal: the same authority, checked again by each of its tasks.
  const principal = principalOfJob(parent);
  const initiator = { id: principal.id, kind: principal.kind, username: String(parent.variables['initiator'] ?? 'Pronghorn') };
  const runOne = async (r: ChildJobRequest): Promise<ChildJobResult> => {
    await deps.nextTurn();
    // The parent may have been cancelled while this child waited its turn: then it never starts.
    if (signal.aborted || deps.stopped()) throw new Error('childJob was aborted before its children started');
    const child = await deps.startJob(r.workflow, { variables: r.variables, ...(r.description ? { description: r.description } : {}) }, initiator, parent);
    const ended = await deps.whenEnded(child._id);
    return { _id: ended._id, name: ended.name, status: ended.status, variables: ended.variables, output: ended.output ?? null, error: ended.error.length > 0 ? ended.error : null };
  };
  if (mode === 'parallel') return Promise.all(requests.map(runOne));
  const results: ChildJobResult[] = [];
  for (const r of requests) results.push(await runOne(r));
  return results;
}
