/**
 * Starting the workflow of an automation, for every kind of trigger. The
 * workflow is looked up by the automation's componentId each time, so a
 * renamed workflow still runs; componentName is only a fallback for
 * automations imported from an instance whose workflow ids differ.
 *
 * Whose authority the job uses (docs/auth.md): a person running a manual or
 * endpoint trigger acts for themselves; a schedule acts for whoever last
 * changed what it will run (the trigger, its automation, or the workflow),
 * and only while that principal may run a trigger by hand.
 */
import type { Engine } from '../../engine/engine.ts';
import type { Authority } from '../../engine/authority.ts';
import type { Initiator } from '../../engine/new-job.ts';
import type { StudioWorkflow } from '../../engine/types.ts';
import { shownJob } from '../../jobs/document.ts';
import { principalNamed } from '../../auth/principal.ts';
import type { NamedPrincipal } from '../../auth/principal.ts';
import { BadRequestError, repository } from '../../../../kernel/index.ts';
import type { Doc, Store } from '../../../../kernel/index.ts';
import type { WorkflowLookup } from '../../workflows/lookup.ts';
import type { OmAutomation } from '../automations/model.ts';
import { OM_AUTOMATIONS } from '../../store/collections.ts';
import { OM } from '../route.ts';
import type { TriggerDoc } from './model.ts';

export interface AutomationRunner {
  /** Starts the trigger's automation with these job variables, acting for `initiator` (the caller); answers the job as clients see it. */
  run(trigger: TriggerDoc, variables: Record<string, unknown>, initiator: Initiator): Promise<Doc>;
  /** A schedule's run: acting for the last editor of what it runs; throws, starting nothing, when that principal may not. */
  runScheduled(trigger: TriggerDoc): Promise<Doc>;
}

export interface RunnerDeps {
  readonly store: Store;
  readonly engine: Engine;
  readonly workflows: WorkflowLookup;
  readonly authority: Authority;
}

/** What running a trigger by hand needs over HTTP; a schedule's principal needs the same. */
const RUN_TRIGGER = { provenance: OM, method: 'runManualTrigger' };

/** One change to what a schedule runs: when, and by whom (an account id, or a workflow's username). */
interface Edit {
  readonly at: number;
  readonly by: unknown;
}

/** The latest edit; on equal times the later in the list (the one nearer what runs) wins. */
function lastEdit(edits: readonly Edit[]): Edit | null {
  let last: Edit | null = null;
  for (const e of edits) if (typeof e.by === 'string' && Number.isFinite(e.at) && (!last || e.at >= last.at)) last = e;
  return last;
}

export function automationRunner(deps: RunnerDeps): AutomationRunner {
  const automations = repository(deps.store, OM_AUTOMATIONS);

  async function target(trigger: TriggerDoc): Promise<{ automation: OmAutomation; workflow: StudioWorkflow }> {
    const automation = await automations.find(trigger.actionId);
    if (!automation) throw new BadRequestError(`Trigger ${trigger._id} starts automation ${trigger.actionId}, which does not exist`);
    const workflow = (automation.componentId ? await deps.workflows.byId(automation.componentId) : null) ?? (automation.componentName ? await deps.workflows.byName(automation.componentName) : null);
    if (!workflow) throw new BadRequestError(`Automation ${automation.name} has no workflow to run${automation.componentId ? ` (workflow ${automation.componentId} does not exist)` : ''}`);
    return { automation, workflow };
  }

  async function scheduledPrincipal(trigger: TriggerDoc, automation: OmAutomation, workflow: StudioWorkflow): Promise<NamedPrincipal> {
    const edit = lastEdit([
      { at: Date.parse(trigger.lastUpdated), by: trigger.lastUpdatedBy },
      { at: Date.parse(automation.lastUpdated), by: automation.lastUpdatedBy },
      { at: Date.parse(String(workflow['last_updated'])), by: workflow['last_updated_by'] },
    ]);
    const principal = edit ? await principalNamed(deps.store, edit.by as string) : null;
    if (!principal) throw new Error(`Schedule trigger ${trigger.name} (${trigger._id}) acts for ${edit ? String(edit.by) : 'nobody'}, who no longer exists; nothing was started`);
    return principal;
  }

  return {
    async run(trigger, variables, initiator) {
      const { workflow } = await target(trigger);
      return shownJob(await deps.engine.startJob(workflow.name, { type: 'automation', variables }, initiator));
    },
    async runScheduled(trigger) {
      const { automation, workflow } = await target(trigger);
      const principal = await scheduledPrincipal(trigger, automation, workflow);
      const refused = await deps.authority.refusal(principal, RUN_TRIGGER);
      if (refused !== null) throw new Error(`Schedule trigger ${trigger.name} (${trigger._id}) started nothing: ${refused}`);
      return shownJob(await deps.engine.startJob(workflow.name, { type: 'automation', variables: {} }, principal));
    },
  };
}
