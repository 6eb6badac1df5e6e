/**
 * The request mix of the load run: what each connection sends, in order, and
 * what counts as the expected answer. Every connection repeats one sequence;
 * control actions act on the job the same connection started earlier in the
 * sequence (its id is taken from the start's answer), so every id is real
 * and every action is allowed in the job's status at that moment
 * (docs/lifecycle.md). A sequence whose start failed begins again.
 */
import { isPlainObject } from '../../kernel/index.ts';

export type Target = 'core' | 'gateway';

/** What one connection remembers between the requests of its sequence. */
export interface SequenceContext {
  jobId?: string;
  /** The running manual task's document id (its first iteration). */
  taskDoc?: string;
  secondJobId?: string;
}

export interface Step {
  readonly kind: string;
  readonly method: 'GET' | 'POST';
  /** The path, or null when an id it needs is missing. */
  readonly path: (ctx: SequenceContext) => string | null;
  readonly body?: (ctx: SequenceContext, n: number) => unknown;
  /** Checks a 2xx answer and keeps what later steps need; answers why it is wrong, or null. */
  readonly check?: (body: unknown, ctx: SequenceContext) => string | null;
}

export const WORKFLOW = 'load-approval';
export const MANUAL_TASK = 'a1';

/** A workflow that waits on one manual task, so a started job stays running until someone acts on it. */
export function approvalWorkflow(): Record<string, unknown> {
  return {
    name: WORKFLOW,
    description: 'one approval by a person (load run)',
    tasks: {
      workflow_start: { name: 'workflow_start', groups: [] },
      workflow_end: { name: 'workflow_end', groups: [] },
      [MANUAL_TASK]: { name: 'ViewData', app: 'WorkFlowEngine', type: 'manual', summary: 'Approve', variables: { incoming: {}, outgoing: { approved: '$var.job.approved' } } },
    },
    transitions: {
      workflow_start: { [MANUAL_TASK]: { type: 'standard', state: 'success' } },
      [MANUAL_TASK]: { workflow_end: { type: 'standard', state: 'success' } },
      workflow_end: {},
    },
  };
}

/** Keeps the started job's id and its manual task's document id; `data` is where the job sits in the answer. */
function keepStarted(into: 'jobId' | 'secondJobId', unwrap: boolean) {
  return (body: unknown, ctx: SequenceContext): string | null => {
    const job = unwrap ? (isPlainObject(body) ? body['data'] : undefined) : body;
    if (!isPlainObject(job) || typeof job['_id'] !== 'string') return 'the answer holds no started job';
    if (job['status'] !== 'running') return `the started job is ${String(job['status'])}, not running`;
    ctx[into] = job['_id'];
    if (into === 'jobId') {
      const task = isPlainObject(job['tasks']) ? job['tasks'][MANUAL_TASK] : undefined;
      const first = isPlainObject(task) && Array.isArray(task['iterations']) ? task['iterations'][0] : undefined;
      if (typeof first !== 'string') return 'the started job has no running manual task';
      ctx.taskDoc = first;
    }
    return null;
  };
}

/** A job answer (legacy shape: the job itself) in the status the action should have left it in. */
function jobIn(status: string, unwrap: boolean) {
  return (body: unknown): string | null => {
    const job = unwrap ? (isPlainObject(body) ? body['data'] : undefined) : body;
    if (!isPlainObject(job)) return 'the answer holds no job';
    return job['status'] === status ? null : `the job is ${String(job['status'])}, not ${status}`;
  };
}

/** A search answer: the envelope with a data list (or the legacy results wrapper). */
function list(field: 'data' | 'results') {
  return (body: unknown): string | null => (isPlainObject(body) && Array.isArray(body[field]) ? null : `the answer has no ${field} list`);
}

const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));
const withId = (build: (id: string) => string, key: keyof SequenceContext = 'jobId') => (ctx: SequenceContext): string | null => (ctx[key] ? build(ctx[key]!) : null);
const om = '/operations-manager';

/** Searches in several shapes: filter and sort, text, `q` with `or`, counting only, tasks with their jobs. */
const searches = {
  statusSorted: { kind: 'search: status, sorted, projected', method: 'GET', path: () => `${om}/jobs?equals[status]=running&sort=metrics.start_time&order=-1&limit=25&include=name,status,metrics.start_time`, check: list('data') },
  text: { kind: 'search: text on description', method: 'GET', path: () => `${om}/jobs?contains[description]=${encodeURIComponent('"core-rtr" -nyc')}&limit=10&include=name,description`, check: list('data') },
  orCount: { kind: 'search: q with or, count only', method: 'GET', path: () => `${om}/jobs?q=${q({ or: [{ equals: { status: 'error' } }, { equals: { status: 'paused' } }] })}&limit=0`, check: list('data') },
  manualTasks: { kind: 'search: manual tasks with their jobs', method: 'GET', path: () => `${om}/tasks?equals[type]=manual&equals[status]=running&dereference=job&include=name,job.name&limit=10`, check: list('data') },
  byName: { kind: 'search: name and time range, page 3', method: 'GET', path: () => `${om}/jobs?equals[name]=Port%20Turn-Up&gte[metrics.start_time]=${Date.now() - 180 * 86_400_000}&skip=40&limit=20&exclude=variables`, check: list('data') },
} satisfies Record<string, Step>;

const start = (into: 'jobId' | 'secondJobId', who: string): Step => ({
  kind: 'start job',
  method: 'POST',
  path: () => `${om}/jobs/start`,
  body: (_ctx, n) => ({ workflow: WORKFLOW, options: { description: `load run: ${who} ${n}`, variables: {} } }),
  check: keepStarted(into, true),
});
const bulk = (action: 'pause' | 'resume' | 'cancel', key: 'jobId' | 'secondJobId' = 'jobId'): Step => ({
  kind: `${action} job`,
  method: 'POST',
  path: withId(() => `${om}/jobs/${action}`, key),
  body: (ctx) => ({ jobIds: [ctx[key]] }),
});

/** Connections to the core: the new interface only. */
export const coreSequence: readonly Step[] = [
  searches.statusSorted,
  start('jobId', 'core'),
  bulk('pause'),
  searches.text,
  bulk('resume'),
  { kind: 'claim manual task', method: 'POST', path: withId((doc) => `${om}/tasks/${doc}/claim`, 'taskDoc') },
  { kind: 'read job by id', method: 'GET', path: withId((id) => `${om}/jobs/${id}`), check: jobIn('running', true) },
  { kind: 'finish manual task', method: 'POST', path: withId((id) => `${om}/jobs/${id}/tasks/${MANUAL_TASK}/finish`), body: () => ({ finish_state: 'success', variables: { approved: true } }) },
  searches.manualTasks,
  start('secondJobId', 'core'),
  searches.orCount,
  bulk('cancel', 'secondJobId'),
  searches.byName,
];

const legacy = (operation: string, step: Omit<Step, 'kind'>): Step => ({ kind: `legacy ${operation}`, ...step });
const legacyStart = (into: 'jobId' | 'secondJobId'): Step =>
  legacy('startJobWithOptions', {
    method: 'POST',
    path: () => `/workflow_engine/startJobWithOptions/${WORKFLOW}`,
    body: (_ctx, n) => ({ options: { description: `load run: legacy ${n}`, variables: {} } }),
    check: keepStarted(into, false),
  });
const legacyAction = (operation: 'pauseJob' | 'resumeJob' | 'cancelJob', status: string, key: 'jobId' | 'secondJobId' = 'jobId'): Step =>
  legacy(operation, { method: 'POST', path: withId(() => `/workflow_engine/${operation}`, key), body: (ctx) => ({ job_id: ctx[key] }), check: jobIn(status, false) });

/** Connections to the gateway: legacy workflow-engine and platform-core calls, with new calls passed through. */
export const gatewaySequence: readonly Step[] = [
  legacyStart('jobId'),
  legacy('getJob', { method: 'GET', path: withId((id) => `/workflow_engine/getJob/${id}`), check: jobIn('running', false) }),
  legacyAction('pauseJob', 'paused'),
  { ...searches.statusSorted, kind: 'pass-through search' },
  legacyAction('resumeJob', 'running'),
  legacy('getJobList', { method: 'POST', path: () => '/workflow_engine/getJobList/active', body: () => ({ options: { filter: { name: 'Port Turn-Up' }, page: { skip: 0, limit: 10 }, sort: { field: 'metrics.start_time', direction: -1 }, fields: { name: 1, status: 1, 'metrics.start_time': 1 } } }), check: list('results') }),
  legacy('finishManualTask', {
    method: 'POST',
    path: withId(() => '/workflow_engine/finishManualTask'),
    body: (ctx) => ({ job_id: ctx.jobId, task_id: MANUAL_TASK, task_data: { finish_state: 'success', variables: { incoming: {}, outgoing: { approved: true }, error: null } } }),
    check: jobIn('complete', false),
  }),
  legacy('tasks/search', { method: 'POST', path: () => '/workflow_engine/tasks/search', body: () => ({ filter: { type: 'manual', status: 'running' }, options: { limit: 10 } }), check: list('results') }),
  legacy('GET /accounts (platform-core)', { method: 'GET', path: () => '/accounts?limit=10', check: list('results') }),
  legacyStart('secondJobId'),
  legacy('queryJobs', { method: 'POST', path: () => '/workflow_engine/queryJobs', body: (ctx) => ({ query: { _id: ctx.secondJobId, status: 'running' } }), check: (body) => (Array.isArray(body) && body.length === 1 ? null : 'queryJobs did not find the running job') }),
  legacyAction('cancelJob', 'canceled', 'secondJobId'),
];

export const sequences: Readonly<Record<Target, readonly Step[]>> = { core: coreSequence, gateway: gatewaySequence };
