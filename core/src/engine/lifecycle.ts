/**
 * The job and task state machine, as data. Every control action consults it
 * before changing anything, and docs/lifecycle.md is this table written out.
 */

export const JOB_STATUSES = ['running', 'paused', 'error', 'complete', 'canceled', 'incomplete'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TASK_STATUSES = ['incomplete', 'running', 'complete', 'error', 'canceled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export type JobAction =
  | 'cancel' | 'pause' | 'resume' | 'revert' | 'continue' | 'retry' | 'finish'
  | 'claim' | 'assign' | 'release' | 'watch' | 'unwatch' | 'groups';

/**
 * For each action, what it does in each job status: `apply` (the change
 * happens), `noop` (already in effect: success, nothing changes, docs/decisions.md D14), or a reason it is refused (400).
 */
type Rule = 'apply' | 'noop' | string;

const FINISHED = 'the job has finished';

export const JOB_RULES: Readonly<Record<JobAction, Readonly<Record<JobStatus, Rule>>>> = {
  cancel: { running: 'apply', paused: 'apply', error: 'apply', incomplete: 'apply', canceled: 'noop', complete: 'a complete job cannot be canceled' },
  pause: { running: 'apply', paused: 'noop', error: 'a job in error is not running; cancel, retry, continue or revert it', complete: FINISHED, canceled: FINISHED, incomplete: 'the job has not started' },
  resume: { paused: 'apply', running: 'noop', error: 'a job in error is resumed by retry, continue or revert', complete: FINISHED, canceled: FINISHED, incomplete: 'the job has not started' },
  revert: { error: 'apply', paused: 'apply', running: 'only a job in error or paused can be reverted', complete: FINISHED, canceled: FINISHED, incomplete: 'the job has not started' },
  continue: { error: 'apply', running: 'only a job in error can be continued', paused: 'resume a paused job instead', complete: FINISHED, canceled: FINISHED, incomplete: 'the job has not started' },
  retry: { error: 'apply', running: 'only a task of a job in error can be retried', paused: 'resume a paused job instead', complete: FINISHED, canceled: FINISHED, incomplete: 'the job has not started' },
  finish: { running: 'apply', paused: 'apply', error: 'the job is in error', complete: FINISHED, canceled: FINISHED, incomplete: 'the job has not started' },
  claim: { running: 'apply', paused: 'apply', error: 'the job is in error', complete: FINISHED, canceled: FINISHED, incomplete: 'the job has not started' },
  assign: { running: 'apply', paused: 'apply', error: 'the job is in error', complete: FINISHED, canceled: FINISHED, incomplete: 'the job has not started' },
  release: { running: 'apply', paused: 'apply', error: 'the job is in error', complete: FINISHED, canceled: FINISHED, incomplete: 'the job has not started' },
  watch: { running: 'apply', paused: 'apply', error: 'apply', complete: 'apply', canceled: 'apply', incomplete: 'apply' },
  unwatch: { running: 'apply', paused: 'apply', error: 'apply', complete: 'apply', canceled: 'apply', incomplete: 'apply' },
  groups: { running: 'apply', paused: 'apply', error: 'apply', complete: 'apply', canceled: 'apply', incomplete: 'apply' },
};

/** What each action does when it applies; the table in docs/lifecycle.md is written from this. */
export const ACTION_EFFECTS: Readonly<Record<JobAction, string>> = {
  cancel: 'job → canceled; running and waiting tasks → canceled; running handlers are aborted; child jobs the caller may see are canceled (hidden ones keep running, docs/auth.md)',
  pause: 'job → paused; tasks already running finish, but no new task starts',
  resume: 'job → running; tasks that became ready while paused start',
  revert: 'the errored `fromTask` → incomplete; the completed `toTask` runs again; job → running',
  continue: 'the errored task is skipped: it is marked complete with finish state success and its success transitions are followed; job → running',
  retry: 'the errored task runs again, with `variables` overriding its incoming values; job → running',
  finish: 'a running manual task → complete (or error) with `finish_state` and `variables` as its outgoing values; its transitions are followed',
  claim: 'a running manual task is owned by the caller (`metrics.owner`); claiming one owned by someone else is refused',
  assign: 'a running manual task is owned by `userId`',
  release: 'a running manual task has no owner again',
  watch: 'the caller is added to `watchers`',
  unwatch: 'the caller is removed from `watchers`',
  groups: '`groups` of the job and of its task documents change',
};

export function ruleFor(action: JobAction, status: string): Rule {
  const rules = JOB_RULES[action];
  return (rules as Record<string, Rule>)[status] ?? `unknown job status ${status}`;
}

/** A job in one of these does not change by itself: nothing of it runs, and whoever waits for its end is answered. */
const ENDED: ReadonlySet<string> = new Set<JobStatus>(['complete', 'canceled', 'error']);

export function hasEnded(status: JobStatus): boolean {
  return ENDED.has(status);
}

/** The lifecycle table as Markdown: docs/lifecycle.md carries exactly this, and a test checks it. */
export function lifecycleTable(): string {
  const cell = (rule: string): string => (rule === 'apply' ? 'yes' : rule === 'noop' ? 'yes (no change)' : `no: ${rule}`);
  const head = `| action | ${JOB_STATUSES.join(' | ')} | effect |`;
  const line = `|---|${JOB_STATUSES.map(() => '---').join('|')}|---|`;
  const rows = (Object.keys(JOB_RULES) as JobAction[]).map((action) => `| ${action} | ${JOB_STATUSES.map((s) => cell(JOB_RULES[action][s])).join(' | ')} | ${ACTION_EFFECTS[action]} |`);
  return [head, line, ...rows].join('\n');
}
