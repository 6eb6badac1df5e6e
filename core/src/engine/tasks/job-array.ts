/**
 * What push, pop and shift share: reading a job variable that must hold an
 * array. A missing or null variable reads as an empty array, because a
 * workflow commonly pushes onto a list it has not created yet.
 */
import { TaskError } from '../types.ts';
import type { TaskContext } from '../types.ts';
import { ownValue, requireVariableName } from './shared.ts';

export interface JobArray {
  readonly name: string;
  readonly items: readonly unknown[];
}

export function readJobArray(ctx: TaskContext): JobArray {
  const name = requireVariableName(ctx.incoming, 'job_variable');
  const value = ownValue(ctx.jobVariables, name);
  if (value === undefined || value === null) return { name, items: [] };
  if (!Array.isArray(value)) throw new TaskError(`job variable "${name}" (job_variable) must hold an array, not ${typeof value}`);
  return { name, items: value };
}
