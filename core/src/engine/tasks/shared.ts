/**
 * Checks and lookups the built-in task handlers share. Every check throws a
 * TaskError naming the incoming variable, because that message is what the
 * person reading the job's error entry sees.
 */
import { INSIDE_STORE, TaskError } from '../types.ts';
import type { TaskContext, TaskHandler } from '../types.ts';
import { isPlainObject, isPrototypeKey, setOwn } from '../../../../kernel/index.ts';

/** Property names that lead to prototypes, never to data; lookups through them find nothing (kernel/objects.ts). */
export { isPrototypeKey };

/** An own data property, or undefined; inherited members (`toString`, `__proto__`) are never data. */
export function ownValue(container: unknown, key: string): unknown {
  if (typeof container !== 'object' || container === null || isPrototypeKey(key)) return undefined;
  return Object.hasOwn(container, key) ? (container as Record<string, unknown>)[key] : undefined;
}

/**
 * Job variables, task outputs and child variables are stored as JSON, where
 * undefined cannot exist; turning it into null here keeps a key that is
 * present but empty from silently disappearing (the interface's rule).
 * A `__proto__` key (JSON.parse makes one) is kept as the data it is:
 * defined on the copy, never assigned, which would swap the copy's
 * prototype instead (docs/security.md).
 */
export function undefinedToNull(value: unknown): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(undefinedToNull);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, key, undefinedToNull(item));
    return out;
  }
  return value;
}

export function requireString(incoming: Readonly<Record<string, unknown>>, name: string): string {
  const value = incoming[name];
  if (typeof value !== 'string' || value.length === 0) throw new TaskError(`${name} must be a non-empty string`);
  return value;
}

export function requireObject(incoming: Readonly<Record<string, unknown>>, name: string): Record<string, unknown> {
  const value = incoming[name];
  if (!isPlainObject(value)) throw new TaskError(`${name} must be an object`);
  return value;
}

/** An optional object: missing, null or "" (what the canvas saves for an empty field) mean `{}`. */
export function optionalObject(incoming: Readonly<Record<string, unknown>>, name: string): Record<string, unknown> {
  const value = incoming[name];
  if (value === undefined || value === null || value === '') return {};
  if (!isPlainObject(value)) throw new TaskError(`${name} must be an object`);
  return value;
}

/** `label` names the value in the message when it sits deeper than the incoming variables. */
export function optionalBoolean(source: Readonly<Record<string, unknown>>, name: string, fallback: boolean, label = name): boolean {
  const value = source[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw new TaskError(`${label} must be true or false`);
  return value;
}

/**
 * A job variable name as push, pop, shift and newVariable take it: one plain
 * name, since a dotted path would be read as nested data by the store.
 */
export function requireVariableName(incoming: Readonly<Record<string, unknown>>, name: string): string {
  const value = requireString(incoming, name);
  if (value.includes('.') || value.startsWith('$') || isPrototypeKey(value)) {
    throw new TaskError(`${name} must be a plain variable name (no ".", no leading "$", not "${value}")`);
  }
  return value;
}

/**
 * Where an operand's value comes from, as merge, evaluation and childJob
 * write it: `job` (a job variable), `static` (the literal) or a task id (that
 * task's outgoing value). Missing values are null, never undefined.
 */
export function resolveReference(ctx: TaskContext, source: unknown, reference: unknown, where: string): unknown {
  if (typeof source !== 'string' || source.length === 0) throw new TaskError(`${where}.task must be "job", "static" or a task id`);
  if (source === 'static') return undefinedToNull(reference);
  if (typeof reference !== 'string' || reference.length === 0) {
    throw new TaskError(`${where} must name a variable when task is "${source}"`);
  }
  const container = source === 'job' ? ctx.jobVariables : ownValue(ctx.taskOutputs, source);
  return undefinedToNull(ownValue(container, reference));
}

/** The text an error outcome carries: an Error's message, or the value itself (adapters reject with objects). */
export function errorOf(reason: unknown): unknown {
  return reason instanceof Error ? reason.message : reason;
}

/**
 * A WorkFlowEngine task whose only effect is its outcome: it reaches nothing outside the store and is
 * pure, so the engine may run it inside the change that claims it. What is left to say is what it is.
 */
export function pureTask(def: Pick<TaskHandler, 'name' | 'type' | 'incoming' | 'outgoing' | 'run'>): TaskHandler {
  return { ...def, app: 'WorkFlowEngine', reach: INSIDE_STORE, pure: true };
}
