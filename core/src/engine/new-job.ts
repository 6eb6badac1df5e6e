/**
 * A new job document from a workflow and the start options, with the start
 * variables checked against the workflow's inputSchema.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { ValidationError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import { newObjectId } from '../store/ids.ts';
import { END, START } from './types.ts';
import type { WorkflowDoc } from './types.ts';
import type { JobDoc, TaskEntry } from './working.ts';

export interface StartOptions {
  readonly description?: string;
  readonly variables?: Record<string, unknown>;
  readonly groups?: string[];
  readonly type?: string;
}

export interface Initiator {
  readonly id: string;
  readonly username: string;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();

/**
 * The platform's rule: a value passed as undefined is processed as null
 * (also from a parent job to a child). Other values keep their type.
 */
export function normalizeVariables(variables: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(variables)) out[name] = value === undefined ? null : value;
  return out;
}

/** A variable whose type does not match the workflow's inputSchema is refused, naming the variable. */
export function checkVariables(workflow: WorkflowDoc, variables: Record<string, unknown>, undefinedNames: ReadonlySet<string>): void {
  const schema = workflow.inputSchema;
  if (!schema || typeof schema !== 'object' || Object.keys(schema).length === 0) return;
  const key = `${workflow._id}:${String(workflow['last_updated'] ?? '')}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, validate);
  }
  // Values that arrived undefined became null by the platform's rule; their type is not held against them.
  const checked = Object.fromEntries(Object.entries(variables).filter(([name]) => !undefinedNames.has(name)));
  if (validate(checked)) return;
  const details: ErrorDetail[] = (validate.errors ?? []).map((e) => {
    const name = e.instancePath.split('/')[1] ?? (e.params as { missingProperty?: string }).missingProperty ?? '';
    return { parameter: `options.variables${name ? `.${name}` : ''}`, message: e.message ?? 'is not valid' };
  });
  throw new ValidationError(`Job variables do not match the workflow's inputSchema: ${details.map((d) => `${d.parameter} ${d.message}`).join('; ')}`, details);
}

export function newJob(workflow: WorkflowDoc, options: StartOptions, initiator: Initiator, parent: JobDoc | null, now: number): JobDoc {
  const _id = newObjectId(now);
  const iso = new Date(now).toISOString();
  const tasks: Record<string, TaskEntry> = {};
  for (const [key, task] of Object.entries(workflow.tasks)) {
    tasks[key] = { ...structuredClone(task), status: 'incomplete', iterations: [], metrics: {} };
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
    transitions: structuredClone(workflow.transitions),
    status: 'running',
    variables: { ...normalizeVariables(options.variables ?? {}), _id, initiator: initiator.username },
    watchers: [],
    groups: options.groups ?? parent?.groups ?? [...(workflow.groups ?? [])],
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
  };
}
