/**
 * A service order: the service's form checks the data, then the service's
 * workflow starts with that data as its job variables, exactly as given.
 */
import type { Caller } from '../auth/caller.ts';
import type { Engine } from '../engine/engine.ts';
import { shownJob } from '../jobs/document.ts';
import { initiatorOf } from '../engine/new-job.ts';
import { BadRequestError, NotFoundError, ValidationError } from '../../../kernel/index.ts';
import type { Doc } from '../../../kernel/index.ts';
import type { WorkflowLookup } from '../workflows/lookup.ts';
import type { ServiceCatalog, ServiceDoc } from './catalog.ts';
import { checkFormData } from './form-schema.ts';
import type { FormDoc } from './form-schema.ts';
import type { OrderBody } from './schemas.ts';

export interface OrderDeps {
  readonly catalog: ServiceCatalog;
  readonly workflows: WorkflowLookup;
  readonly engine: Pick<Engine, 'startJob'>;
}

async function formOf(catalog: ServiceCatalog, service: ServiceDoc): Promise<FormDoc> {
  try {
    return await catalog.form(service.formId);
  } catch (err) {
    // The order names the service, not the form: its missing form is the service's fault, not an unknown id.
    if (err instanceof NotFoundError) throw new BadRequestError(`Service ${service.name} cannot be ordered: its form ${service.formId} no longer exists`);
    throw err;
  }
}

/** Starts the job of an order and answers it as the operations manager shows jobs. */
export async function invokeServiceOrder(deps: OrderDeps, body: OrderBody, caller: Caller): Promise<Doc> {
  const id = body.serviceId ?? body.service_id;
  const service = id !== undefined ? await deps.catalog.service(id, caller) : await deps.catalog.serviceNamed(body.name!, caller);
  checkFormData(await formOf(deps.catalog, service), body.formData);
  // Checked here so the message names the service; the engine would only name the workflow.
  if (!(await deps.workflows.byName(service.workflow))) {
    throw new ValidationError(`Service ${service.name} cannot be ordered: no workflow is named ${service.workflow}`, [{ parameter: 'workflow', message: `no workflow is named ${service.workflow}` }]);
  }
  const options = { variables: body.formData, ...(body.description !== undefined ? { description: body.description } : {}) };
  // The order acts for the caller who placed it; whoever wrote the service lends it no authority.
  return shownJob(await deps.engine.startJob(service.workflow, options, initiatorOf(caller)));
}
