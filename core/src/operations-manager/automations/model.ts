/**
 * The operations-manager automation (docs/decisions.md D24): a name, a
 * description and the workflow it runs, named both by `_id` (componentId)
 * and by name (componentName).
 */
import Joi from 'joi';
import { joiObjectId, ValidationError } from '../../../../kernel/index.ts';
import type { WorkflowLookup } from '../../workflows/lookup.ts';

export interface OmAutomation {
  _id: string;
  name: string;
  description: string;
  componentType: 'workflows';
  /** The workflow's `_id`; null for an automation that does not run anything yet. */
  componentId: string | null;
  componentName: string | null;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
  /** The automation-catalog automation it was migrated from. */
  migratedFrom?: string;
  _rev: number;
  [key: string]: unknown;
}

/** What a caller may set; the rest is derived or bookkeeping. */
export interface OmAutomationInput {
  name?: string;
  description?: string;
  componentType?: 'workflows';
  componentId?: string | null;
  componentName?: string | null;
}

const name = () => Joi.string().trim().min(1).max(200);
const fields = {
  description: Joi.string().allow('').max(10_000),
  componentType: Joi.string().valid('workflows'),
  componentId: Joi.string().max(200).allow(null),
  componentName: Joi.string().max(200).allow(null),
};

export const createSchema = Joi.object<OmAutomationInput>({ name: name().required(), ...fields });
/** An automation as exported: identity and bookkeeping (kept or ignored), and optionally its triggers. */
export const importSchema = Joi.object({
  name: name().required(),
  ...fields,
  _id: joiObjectId(),
  triggers: Joi.array().items(Joi.any()).max(1000),
  created: Joi.any(), createdBy: Joi.any(), lastUpdated: Joi.any(), lastUpdatedBy: Joi.any(), migratedFrom: Joi.any(),
});
export const patchSchema = Joi.object<OmAutomationInput>({ name: name(), ...fields }).min(1);

/**
 * The workflow an automation names: by id when given, else by name. When
 * both are given they must agree, so an automation never points at two
 * different workflows. Unknown workflows are refused.
 */
export async function resolveComponent(workflows: WorkflowLookup, input: OmAutomationInput, at = 'body'): Promise<{ componentId: string | null; componentName: string | null }> {
  const { componentId, componentName } = input;
  if (!componentId && !componentName) return { componentId: null, componentName: null };
  const found = componentId ? await workflows.byId(componentId) : await workflows.byName(componentName!);
  if (!found) {
    const parameter = componentId ? `${at}.componentId` : `${at}.componentName`;
    throw new ValidationError(`No workflow ${componentId ? `has the id ${componentId}` : `is named ${componentName}`}`, [{ parameter, message: 'names no workflow' }]);
  }
  if (componentId && componentName && found.name !== componentName) {
    throw new ValidationError(`Workflow ${componentId} is named ${found.name}, not ${componentName}`, [{ parameter: `${at}.componentName`, message: `does not match the workflow of componentId (${found.name})` }]);
  }
  return { componentId: found._id, componentName: found.name };
}
