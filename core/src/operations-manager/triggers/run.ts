/**
 * Starting the workflow of an automation, for every kind of trigger. The
 * workflow is looked up by the automation's componentId each time, so a
 * renamed workflow still runs; componentName is only a fallback for
 * automations imported from an instance whose workflow ids differ.
 */
import type { Engine } from '../../engine/engine.ts';
import type { Initiator } from '../../engine/new-job.ts';
import { INTERNAL_JOB_FIELDS } from '../../engine/working.ts';
import type { JobDoc } from '../../engine/working.ts';
import { BadRequestError } from '../../../../kernel/index.ts';
import type { Doc, Store } from '../../../../kernel/index.ts';
import type { WorkflowLookup } from '../../workflows/lookup.ts';
import type { AutomationDoc } from '../automations/model.ts';
import type { TriggerDoc } from './model.ts';

export interface AutomationRunner {
  /** Starts the trigger's automation with these job variables; answers the job as clients see it. */
  run(trigger: TriggerDoc, variables: Record<string, unknown>, initiator: Initiator): Promise<Doc>;
}

export function shownJob(job: JobDoc): Doc {
  const shown: Doc = { ...job };
  for (const f of [...INTERNAL_JOB_FIELDS, 'output']) delete shown[f];
  return shown;
}

export function automationRunner(deps: { store: Store; engine: Engine; workflows: WorkflowLookup }): AutomationRunner {
  return {
    async run(trigger, variables, initiator) {
      const automation = (await deps.store.collection('om_automations').findById(trigger.actionId)) as AutomationDoc | null;
      if (!automation) throw new BadRequestError(`Trigger ${trigger._id} starts automation ${trigger.actionId}, which does not exist`);
      const workflow = (automation.componentId ? await deps.workflows.byId(automation.componentId) : null) ?? (automation.componentName ? await deps.workflows.byName(automation.componentName) : null);
      if (!workflow) throw new BadRequestError(`Automation ${automation.name} has no workflow to run${automation.componentId ? ` (workflow ${automation.componentId} does not exist)` : ''}`);
      const job = await deps.engine.startJob(workflow.name, { type: 'automation', variables }, initiator);
      return shownJob(job);
    },
  };
}
