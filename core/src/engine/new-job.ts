/**
 * A new job document from a workflow and the start options, with the start
 * variables checked against the workflow's inputSchema.
 */
import { BadRequestError, checkData, newObjectId, setOwn, summary, ValidationError } from '../../../kernel/index.ts';
import type { ErrorDetail } from '../../../kernel/index.ts';
import { END, START } from './types.ts';
import type { StudioWorkflow } from './types.ts';
import type { JobDoc, TaskEntry } from '../jobs/document.ts';
import { withFields } from '../jobs/copy.ts';
import type { Caller } from '../auth/caller.ts';
import type { PrincipalKind } from '../auth/principal.ts';

export interface StartOptions {
  readonly description?: string;
  readonly variables?: Record<string, unknown>;
  readonly groups?: string[];
  readonly type?: string;
  /**
   * When given, variables that do not match the workflow's inputSchema are
   * reported here and the job starts anyway (releases before 2021.2, see
   * docs/lifecycle.md); otherwise they are refused.
   */
  readonly onTypeMismatch?: (details: readonly ErrorDetail[]) => void;
}

/**
 * Who a job acts for (its principal, docs/auth.md): `id` is an account's id,
 * or a service account's when `kind` says so. Every task that reaches outside
 * the store checks, when it runs, that this principal may do what it does.
 */
export interface Initiator {
  readonly id: string;
  readonly username: string;
  readonly kind?: PrincipalKind;
}

/** The initiator for a caller: the caller acts for itself. */
export function initiatorOf(caller: Caller): Initiator {
  return { id: caller.id, username: caller.username, kind: caller.principal };
}

/**
 * The platform's rule: a value passed as undefined is processed as null
 * (also from a parent job to a child). Other values keep their type.
 */
export function normalizeVariables(variables: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Defined, not assigned: a variable named `__proto__` is the caller's data, kept as such (docs/security.md).
  for (const [name, value] of Object.entries(variables)) setOwn(out, name, value === undefined ? null : value);
  return out;
}

/**
 * A variable whose type does not match the workflow's inputSchema is refused,
 * naming the variable. A schema saved before patterns and limits were
 * checked, and that breaks them, is refused here naming its place.
 */
export function checkVariables(workflow: StudioWorkflow, variables: Record<string, unknown>, undefinedNames: ReadonlySet<string>, onTypeMismatch?: StartOptions['onTypeMismatch']): void {
  const schema = workflow.inputSchema;
  if (!schema || typeof schema !== 'object' || Object.keys(schema).length === 0) return;
  // Values that arrived undefined became null by the platform's rule; their type is not held against them.
  const checked = Object.fromEntries(Object.entries(variables).filter(([name]) => !undefinedNames.has(name)));
  const result = checkData(schema, checked, 'options.variables', 'inputSchema');
  if (result.ok) return;
  if ('unusable' in result) throw new BadRequestError(`The inputSchema of workflow ${workflow.name} cannot be used; save the workflow again with it corrected: ${summary(result.unusable)}`, result.unusable);
  if (onTypeMismatch) return onTypeMismatch(result.details);
  throw new ValidationError(`Job variables do not match the workflow's inputSchema: ${summary(result.details, result.details.length)}`, result.details);
}

/**
 * The job a start stores, before its first change. Its own parts are new (the
 * task entries, their iterations and metrics, the variables, the lists), and
 * the first change is made on them in place (commits.ts `insert`); it shares
 * with `workflow` only what the engine reads and never changes (the
 * transitions, each task's definition, the values given).
 */
export function newJob(workflow: StudioWorkflow, options: StartOptions, initiator: Initiator, parent: JobDoc | null, now: number, _id = newObjectId(now)): JobDoc {
  const iso = new Date(now).toISOString();
  const tasks: Record<string, TaskEntry> = {};
  // Shallow: the engine changes an entry's status, iterations and metrics, each replaced or new here.
  for (const [key, task] of Object.entries(workflow.tasks)) {
    tasks[key] = withFields(task, { status: 'incomplete' as const, iterations: [] as string[], metrics: {} });
  }
  const start = tasks[START];
  if (start) {
    start.status = 'complete';
    start.metrics = { start_time: now, user: initiator.id, finish_state: 'success' };
  }
  if (!tasks[END]) throw new Error(`workflow ${workflow.name} has no ${END}`);
  const properties = (workflow.outputSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return {
    _id,
    name: workflow.name,
    description: options.description ?? String(workflow.description ?? ''),
    type: options.type ?? 'automation',
    tasks,
    transitions: workflow.transitions,
    status: 'running',
    variables: withFields(normalizeVariables(options.variables ?? {}), { _id, initiator: initiator.username }),
    watchers: [],
    groups: [...(options.groups ?? parent?.groups ?? workflow.groups ?? [])],
    ancestors: parent ? [...parent.ancestors, _id] : [_id],
    metrics: { start_time: now, user: initiator.id, progress: 0 },
    created: iso,
    created_by: initiator.id,
    last_updated: iso,
    last_updated_by: initiator.id,
    error: [],
    output: null,
    _rev: 0,
    _runs: {},
    _waiting: [],
    _outputs: {},
    _outputKeys: properties ? Object.keys(properties) : null,
    _taskRuns: 0,
    _principal: { kind: initiator.kind ?? 'account', id: initiator.id },
  };
}
