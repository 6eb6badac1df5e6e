/**
 * What push, pop and shift share: reading a job variable that must hold an
 * array. A missing or null variable reads as an empty array, because a
 * workflow commonly pushes onto a list it has not created yet.
 */
import { TaskError } from '../types.ts';
import type { TaskContext, TaskHandler } from '../types.ts';
import { ownValue, pureTask, requireVariableName } from './shared.ts';

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

/** `pop` and `shift` (pop.ts, shift.ts say what they answer): the same task but for the end they take. */
export function takeTask(name: 'pop' | 'shift'): TaskHandler {
  return pureTask({
    name,
    type: 'operation',
    incoming: ['job_variable'],
    outgoing: ['item'],
    run(ctx) {
      const { name: variable, items } = readJobArray(ctx);
      if (items.length === 0) return { finishState: 'success', outgoing: { item: null } };
      const [item, rest] = name === 'pop' ? [items[items.length - 1], items.slice(0, -1)] : [items[0], items.slice(1)];
      return { finishState: 'success', outgoing: { item: item ?? null }, setJobVariables: { [variable]: rest } };
    },
  });
}
