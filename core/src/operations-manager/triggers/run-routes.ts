/**
 * Starting automations through their triggers: an endpoint trigger's route
 * (the POST body, checked against the trigger's JSON Schema, becomes the
 * job's variables) and a manual trigger's run (`formData` becomes them).
 * Both answer the new job in `data`. Unknown triggers are 404, disabled
 * ones 400.
 */
import Joi from 'joi';
import { answer, BadRequestError, checkData, joiBody, joiObjectId, joiParams, NotFoundError, summary, ValidationError } from '../../../../kernel/index.ts';
import type { AnyRoute, Validator } from '../../../../kernel/index.ts';
import { envelope } from '../automations/om-list.ts';
import { OM_WRITE_ROLES, omRoute } from '../route.ts';
import type { TriggerDoc } from './model.ts';
import type { AutomationRunner } from './run.ts';
import { initiatorOf } from '../../engine/new-job.ts';
import type { TriggerService } from './service.ts';
import { JOB } from '../answers.ts';

const STARTED = 'Successfully started the job';

function checkBody(trigger: TriggerDoc, body: unknown): void {
  const result = checkData(trigger.schema ?? {}, body, 'body', 'schema');
  if (result.ok) return;
  // Checked when the trigger was saved; one stored before those checks (or written to the store directly) may still break them.
  if ('unusable' in result) throw new BadRequestError(`The schema of trigger ${trigger.name} cannot be used; save the trigger again with it corrected: ${summary(result.unusable)}`, result.unusable);
  throw new ValidationError(`The body does not match the schema of trigger ${trigger.name}: ${summary(result.details, result.details.length)}`, result.details);
}

/** The endpoint body is whatever JSON the caller sends; only the trigger's schema judges it. */
const anyBody: Validator<unknown, unknown> = { validate: (raw) => raw };

function asVariables(body: unknown): Record<string, unknown> {
  if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new BadRequestError('The body must be a JSON object: its properties become the job variables');
}

export function triggerRunRoutes(service: TriggerService, runner: AutomationRunner): AnyRoute[] {
  return [
    omRoute({
      method: 'POST',
      path: '/operations-manager/triggers/endpoint/:routeName',
      name: 'runEndpointTriggerWithPost',
      roles: OM_WRITE_ROLES,
      description: "Start the automation of the enabled endpoint trigger of this route, with the body as job variables",
      answer: answer(JOB),
      input: { params: joiParams<{ routeName: string }>(Joi.object({ routeName: Joi.string().max(200).required() })), body: anyBody },
      async handle({ params, body }, ctx) {
        const [trigger] = await service.ofRoute(params.routeName);
        if (!trigger) throw new NotFoundError(`No endpoint trigger serves POST ${params.routeName}`);
        if (!trigger.enabled) throw new BadRequestError(`Endpoint trigger ${trigger.name} (${trigger._id}) is disabled`);
        checkBody(trigger, body);
        // The caller acts for themselves: posting to someone's endpoint lends none of their authority.
        const job = await runner.run(trigger, asVariables(body), initiatorOf(ctx.caller!));
        return envelope(STARTED, job);
      },
    }),
    omRoute({
      method: 'POST',
      path: '/operations-manager/triggers/manual/:id/run',
      name: 'runManualTrigger',
      roles: OM_WRITE_ROLES,
      description: 'Start the automation of a manual trigger, with formData as job variables',
      answer: answer(JOB),
      input: {
        params: joiParams<{ id: string }>(Joi.object({ id: joiObjectId().required() })),
        body: joiBody<{ formData: Record<string, unknown> }>(Joi.object({ formData: Joi.object().unknown(true).default({}) })),
      },
      async handle({ params, body }, ctx) {
        const trigger = await service.get(params.id);
        if (trigger.type !== 'manual') throw new BadRequestError(`Trigger ${trigger.name} (${trigger._id}) is a ${trigger.type} trigger, not a manual one`);
        if (!trigger.enabled) throw new BadRequestError(`Manual trigger ${trigger.name} (${trigger._id}) is disabled`);
        const job = await runner.run(trigger, body.formData, initiatorOf(ctx.caller!));
        return envelope(STARTED, job);
      },
    }),
  ];
}
