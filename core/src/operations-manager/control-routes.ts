/**
 * Job and task control routes of the operations manager. Every action
 * answers the envelope with `data: null` and `metadata: {}` (docs/decisions.md D13), except start, which answers the new job.
 */
import Joi from 'joi';
import type { JobControl } from '../engine/control.ts';
import type { GroupChange, TaskControl } from '../engine/task-control.ts';
import type { FinishState } from '../engine/types.ts';
import { answer, compareReleases, joiBody, joiObjectId, joiParams, NULL } from '../../../kernel/index.ts';
import type { AnyRoute, ErrorDetail, HttpMethod } from '../../../kernel/index.ts';
import { JOB, MANUAL_CONTROLLER } from './answers.ts';
import { OM_READ_ROLES, OM_WRITE_ROLES, omRoute } from './route.ts';

const taskKey = () => Joi.string().pattern(/^([0-9a-f]{1,4}|workflow_start|workflow_end)$/).messages({ 'string.pattern.base': 'must be a task id of the workflow, such as a1b2' });
const uuid = () => Joi.string().guid().lowercase().messages({ 'string.guid': 'must be a task document id (a UUID)' });
const variables = () => Joi.object().unknown(true);

const jobIdParam = joiParams<{ id: string }>(Joi.object({ id: joiObjectId().required() }));
const jobIdParam2 = joiParams<{ jobId: string }>(Joi.object({ jobId: joiObjectId().required() }));
const jobTaskParams = joiParams<{ jobId: string; taskId: string }>(Joi.object({ jobId: joiObjectId().required(), taskId: taskKey().required() }));
const taskDocParam = joiParams<{ id: string }>(Joi.object({ id: uuid().required() }));

const done = { body: { message: 'Successfully completed the operation', data: null, metadata: {} } };
const DONE = answer(NULL);

function bulk(action: 'cancel' | 'pause' | 'resume', name: string, jobs: JobControl): AnyRoute {
  return omRoute({
    method: 'POST',
    path: `/operations-manager/jobs/${action}`,
    name,
    roles: OM_WRITE_ROLES,
    answer: DONE,
    description: `${action[0]!.toUpperCase()}${action.slice(1)} up to 100 jobs, all or none`,
    input: { body: joiBody<{ jobIds: string[] }>(Joi.object({ jobIds: Joi.array().items(joiObjectId()).min(1).max(100).required() })) },
    async handle({ body }, ctx) {
      await jobs.bulk(action, body.jobIds, ctx.caller!);
      return done;
    },
  });
}

interface StartBody {
  workflow: string;
  options: { description?: string; variables?: Record<string, unknown>; groups?: string[]; type?: string };
}
const startBody = Joi.object({
  workflow: Joi.string().min(1).max(256).required(),
  options: Joi.object({
    description: Joi.string().allow('').max(4096),
    variables: variables(),
    groups: Joi.array().items(joiObjectId()),
    type: Joi.string().max(64),
  }).default({}),
  // The real platform ignores variables given beside options; accept and ignore them.
  variables: Joi.any().strip(),
});

interface FinishBody {
  taskData?: { finish_state: FinishState; variables: Record<string, unknown> };
  finish_state?: FinishState;
  variables?: Record<string, unknown>;
}
const finishBody = Joi.alternatives().try(
  Joi.object({ taskData: Joi.object({ finish_state: Joi.string().valid('success', 'failure', 'error').required(), variables: variables().default({}) }).required() }),
  Joi.object({ finish_state: Joi.string().valid('success', 'failure', 'error').required(), variables: variables().default({}) }),
);

/** From this release on, a start variable of the wrong type is refused; before it, accepted with a warning (docs/lifecycle.md). */
const TYPES_ENFORCED_IN = '2021.2';

/** An RFC 9111 `Warning` value per mismatch: `299 - "variable port: must be string"`. */
function warnings(details: readonly ErrorDetail[]): string {
  // The text is a quoted-string: backslash and quote escaped, visible ASCII only (a header value).
  const quoted = (text: string): string => `"${text.replace(/[\\"]/g, '\\$&').replace(/[^\x20-\x7e]/g, '?')}"`;
  return details.map((d) => `299 - ${quoted(`variable ${d.parameter.replace(/^options\.variables\.?/, '') || '(all)'}: ${d.message}`)}`).join(', ');
}

export function controlRoutes(jobs: JobControl, tasks: TaskControl, release: string): AnyRoute[] {
  const lenient = compareReleases(release, TYPES_ENFORCED_IN) < 0;
  const groups = (method: HttpMethod, path: string, name: string, body: Joi.Schema | null, change: (p: { id?: string; jobId?: string; groupId?: string }, b: Record<string, unknown>) => GroupChange): AnyRoute =>
    // Two paths with their own params: the types are stated here rather than inferred from either.
    omRoute<{ id?: string; jobId?: string; groupId?: string }, Record<string, never>, Record<string, unknown>>({
      method,
      path,
      name,
      roles: OM_WRITE_ROLES,
      answer: DONE,
      description: `Change a job's groups (${name})`,
      input: {
        params: path.includes(':groupId') ? joiParams(Joi.object({ jobId: joiObjectId().required(), groupId: joiObjectId().required() })) : jobIdParam,
        ...(body ? { body: joiBody(body) } : {}),
      },
      async handle({ params, body: b }, ctx) {
        await tasks.changeGroups((params.id ?? params.jobId)!, change(params, b ?? {}), ctx.caller!);
        return done;
      },
    });

  return [
    omRoute({
      method: 'POST',
      path: '/operations-manager/jobs/start',
      name: 'startJob',
      roles: OM_WRITE_ROLES,
      answer: answer(JOB),
      description: 'Start a job from a workflow, by its name',
      input: { body: joiBody<StartBody>(startBody) },
      async handle({ body }, ctx) {
        let mismatches: readonly ErrorDetail[] = [];
        const options = lenient ? { ...body.options, onTypeMismatch: (details: readonly ErrorDetail[]) => (mismatches = details) } : body.options;
        const { job, json } = await jobs.start(body.workflow, options, ctx.caller!);
        if (mismatches.length > 0) {
          ctx.koa.set('Warning', warnings(mismatches));
          ctx.logger.warn('job started with variables that do not match the inputSchema', { jobId: job._id, workflow: body.workflow, release, mismatches: mismatches.map((d) => `${d.parameter} ${d.message}`) });
        }
        // The job's JSON as it was committed, not serialised again: the bytes `{ data: shownJob(job) }` would give.
        return { json: `{"message":"Successfully started the job","data":${json.shown},"metadata":{}}` };
      },
    }),
    bulk('cancel', 'cancelJobs', jobs),
    bulk('pause', 'pauseJobs', jobs),
    bulk('resume', 'resumeJobs', jobs),
    omRoute({
      method: 'POST',
      path: '/operations-manager/jobs/:id/revert',
      name: 'revertJob',
      roles: OM_WRITE_ROLES,
      answer: DONE,
      description: 'Revert a job from an errored task to a completed one',
      input: { params: jobIdParam, body: joiBody<{ fromTask: string; toTask: string }>(Joi.object({ fromTask: taskKey().required(), toTask: taskKey().required() })) },
      async handle({ params, body }, ctx) {
        await jobs.revert(params.id, body.fromTask, body.toTask, ctx.caller!);
        return done;
      },
    }),
    omRoute({
      method: 'POST',
      path: '/operations-manager/jobs/:id/continue',
      name: 'continueJobFrom',
      roles: OM_WRITE_ROLES,
      answer: DONE,
      description: 'Continue a job in error past one of its errored tasks, named as {fromTask} (the platform\'s form) or {taskId} (the interface\'s)',
      // One name or the other: with both, which task was meant would be a guess.
      input: { params: jobIdParam, body: joiBody<{ taskId?: string; fromTask?: string }>(Joi.object({ taskId: taskKey(), fromTask: taskKey() }).xor('taskId', 'fromTask')) },
      async handle({ params, body }, ctx) {
        await jobs.continueFrom(params.id, (body.taskId ?? body.fromTask)!, ctx.caller!);
        return done;
      },
    }),
    omRoute({
      method: 'POST',
      path: '/operations-manager/tasks/:id/continue',
      name: 'continueTask',
      roles: OM_WRITE_ROLES,
      answer: DONE,
      description: 'Continue a job in error past the errored task with this task document id',
      input: { params: taskDocParam },
      async handle({ params }, ctx) {
        await tasks.continueTask(params.id, ctx.caller!);
        return done;
      },
    }),
    omRoute({
      method: 'POST',
      path: '/operations-manager/jobs/:jobId/tasks/:taskId/retry',
      name: 'retryTask',
      roles: OM_WRITE_ROLES,
      answer: DONE,
      description: 'Run an errored task again, optionally with changed incoming variables',
      input: { params: jobTaskParams, body: joiBody<{ variables: Record<string, unknown> }>(Joi.object({ variables: variables().default({}) })) },
      async handle({ params, body }, ctx) {
        await jobs.retry(params.jobId, params.taskId, body.variables, ctx.caller!);
        return done;
      },
    }),
    omRoute({
      method: 'POST',
      path: '/operations-manager/jobs/:jobId/tasks/:taskId/finish',
      name: 'finishManualTask',
      roles: OM_WRITE_ROLES,
      answer: DONE,
      description: 'Finish a manual task with a finish state and its outgoing variables',
      input: { params: jobTaskParams, body: joiBody<FinishBody>(finishBody) },
      async handle({ params, body }, ctx) {
        const data = body.taskData ?? { finish_state: body.finish_state!, variables: body.variables ?? {} };
        await tasks.finish(params.jobId, params.taskId, data.finish_state, data.variables, ctx.caller!);
        return done;
      },
    }),
    ...(['claim', 'release'] as const).map((action) =>
      omRoute({
        method: 'POST',
        path: `/operations-manager/tasks/:id/${action}`,
        name: `${action}Task`,
        roles: OM_WRITE_ROLES,
        answer: DONE,
        description: action === 'claim' ? 'Claim a manual task for the caller' : 'Release a claimed manual task',
        input: { params: taskDocParam },
        async handle({ params }, ctx) {
          await tasks.setOwner(params.id, action, ctx.caller!);
          return done;
        },
      }),
    ),
    omRoute({
      method: 'POST',
      path: '/operations-manager/tasks/:id/assign',
      name: 'assignTask',
      roles: OM_WRITE_ROLES,
      answer: DONE,
      description: 'Assign a manual task to a user',
      input: { params: taskDocParam, body: joiBody<{ userId: string }>(Joi.object({ userId: joiObjectId().required() })) },
      async handle({ params, body }, ctx) {
        await tasks.setOwner(params.id, 'assign', ctx.caller!, body.userId);
        return done;
      },
    }),
    ...(['watch', 'unwatch'] as const).map((action) =>
      omRoute({
        method: 'POST',
        path: `/operations-manager/jobs/:jobId/${action}`,
        name: `${action}Job`,
        roles: OM_WRITE_ROLES,
        answer: DONE,
        description: action === 'watch' ? 'Watch a job' : 'Stop watching a job',
        input: { params: jobIdParam2 },
        async handle({ params }, ctx) {
          await jobs.watch(params.jobId, action === 'watch', ctx.caller!);
          return done;
        },
      }),
    ),
    groups('POST', '/operations-manager/jobs/:id/groups', 'addJobGroup', Joi.object({ groupId: joiObjectId(), group: joiObjectId() }).xor('groupId', 'group'), (_p, b) => ({ op: 'add', groupId: String(b['groupId'] ?? b['group']) })),
    groups('PUT', '/operations-manager/jobs/:id/groups', 'replaceJobGroups', Joi.object({ groups: Joi.array().items(joiObjectId()).max(1000).required() }), (_p, b) => ({ op: 'replace', groups: b['groups'] as string[] })),
    groups('DELETE', '/operations-manager/jobs/:id/groups', 'deleteJobGroups', null, () => ({ op: 'clear' })),
    groups('DELETE', '/operations-manager/jobs/:jobId/groups/:groupId', 'deleteJobGroup', null, (p) => ({ op: 'remove', groupId: p.groupId! })),
    omRoute({
      method: 'GET',
      path: '/operations-manager/jobs/:jobId/tasks/:taskId/manual-controller',
      name: 'getManualTaskController',
      roles: OM_READ_ROLES,
      answer: answer(MANUAL_CONTROLLER),
      description: 'What a manual task shows and collects',
      input: { params: jobTaskParams },
      async handle({ params }, ctx) {
        return { body: { message: 'Successfully retrieved item', data: await tasks.manualController(params.jobId, params.taskId, ctx.caller!), metadata: {} } };
      },
    }),
  ];
}
