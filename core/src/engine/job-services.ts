/**
 * What a job's tasks may call beyond their outcome (child jobs, the
 * transformations module, the orchestrator relay), each guarded by the
 * permission the same call needs over HTTP, checked against the job's
 * principal when it is called (docs/auth.md). A task's declared reach is
 * checked before it runs; a service checks its own again whatever task calls
 * it, so a childJob that transforms its items needs the transformation's role
 * as well as the start role its reach names.
 */
import type { Authority, Permission } from './authority.ts';
import { runChildJobs } from './children.ts';
import type { ChildJobDeps } from './children.ts';
import { relayPermission, RUN_TRANSFORMATION, START_JOB } from './permissions.ts';
import { principalOfJob } from '../jobs/document.ts';
import type { JobDoc } from '../jobs/document.ts';
import { TaskError } from './types.ts';
import type { TaskServices } from './types.ts';

export interface JobServiceDeps {
  readonly authority: Authority;
  readonly children: ChildJobDeps;
  readonly services?: Partial<Pick<TaskServices, 'runTransformation' | 'relay'>>;
}

/** Rejects with a TaskError naming the missing role when the job's principal may not do this now. */
export async function authorize(authority: Authority, job: JobDoc, needs: Permission): Promise<void> {
  const refused = await authority.refusal(principalOfJob(job), needs);
  if (refused !== null) throw new TaskError(refused);
}

export function jobServices(deps: JobServiceDeps, parent: JobDoc, signal: AbortSignal): TaskServices {
  const unavailable = (what: string) => () => Promise.reject(new Error(`${what} is not available in this core`));
  const runTransformation = deps.services?.runTransformation ?? unavailable('The transformations module');
  const relay = deps.services?.relay ?? unavailable('The orchestrator relay');
  return {
    runChildJobs: async (requests, mode) => {
      await authorize(deps.authority, parent, START_JOB);
      return runChildJobs(deps.children, parent, requests, mode, signal);
    },
    runTransformation: async (id, incoming, options) => {
      await authorize(deps.authority, parent, RUN_TRANSFORMATION);
      return runTransformation(id, incoming, options);
    },
    relay: async (kind, adapterId, body) => {
      await authorize(deps.authority, parent, relayPermission(kind));
      return relay(kind, adapterId, body);
    },
  };
}
