/**
 * The built-in tasks the engine runs itself. Adding one is one file in this
 * folder exporting a TaskHandler and one line in the list below.
 */
import type { TaskHandler } from '../types.ts';
import { childJob } from './child-job.ts';
import { delay } from './delay.ts';
import { evaluation } from './evaluation.ts';
import { forEach } from './for-each.ts';
import { makeData } from './make-data.ts';
import { merge } from './merge.ts';
import { newVariable } from './new-variable.ts';
import { pop } from './pop.ts';
import { push } from './push.ts';
import { query } from './query.ts';
import { orchestratorManagerRestAction, restAction } from './rest-action.ts';
import { orchestratorManagerRestQuery, restQuery } from './rest-query.ts';
import { shift } from './shift.ts';
import { transformation } from './transformation.ts';

export const builtInTasks: readonly TaskHandler[] = [
  newVariable,
  query,
  merge,
  evaluation,
  makeData,
  delay,
  childJob,
  forEach,
  push,
  pop,
  shift,
  transformation,
  restAction,
  restQuery,
  // The same relay tasks under the relay's own application name, which some exported workflows use.
  orchestratorManagerRestAction,
  orchestratorManagerRestQuery,
];

const byKey: ReadonlyMap<string, TaskHandler> = new Map(builtInTasks.map((task) => [`${task.app}\u0000${task.name}`, task]));

/** The handler for a workflow task's `app` and `name`, or undefined when it is not built in. */
export function findTask(app: string, name: string): TaskHandler | undefined {
  return byKey.get(`${app}\u0000${name}`);
}
