/** What other modules use: the routes, and the lookup and checks the engine needs. */
export { studioWorkflowRoutes } from './routes.ts';
export { createWorkflowLookup } from './lookup.ts';
export type { WorkflowLookup } from './lookup.ts';
export { validateWorkflow } from './validate.ts';
