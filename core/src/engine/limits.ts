/**
 * The bounds every job stays within, from config `workflowEngine`
 * (docs/lifecycle.md, "Limits"). A job that reaches one goes to `error` with
 * a message naming the setting; the process goes on.
 */

export interface JobLimits {
  /** Task runs one job may start in its life, loops and retries included. */
  readonly maxTaskRunsPerJob: number;
  /** Iteration ids listed per task in `tasks[key].iterations`; older ones are only counted. */
  readonly maxIterationsListed: number;
  /** Deepest child job, a root job being depth 0. */
  readonly maxChildJobDepth: number;
  /** Jobs a root job and its descendants may number, the root included. */
  readonly maxJobsPerTree: number;
  /** Largest a job's document may be, in bytes of JSON. */
  readonly maxJobBytes: number;
}

/** Names the config key, so the person reading the job's error knows what bounds it. */
export function limitMessage(key: keyof JobLimits, value: number): string {
  return `job exceeded workflowEngine.${key} (${value})`;
}
