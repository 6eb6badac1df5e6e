/**
 * `merge`: builds one object from at least two entries
 * `{key, value: {task, variable}}`, each value read from a job variable
 * (`task: "job"`), taken literally (`task: "static"`) or read from an earlier
 * task's outgoing variable (`task: <task id>`). Outgoing `merged_object`.
 *
 * A value that cannot be found is null, so the key still appears. A later
 * entry with the same key wins. Bad input throws a TaskError; the engine turns
 * it into an `error` outcome with that message.
 */
import { TaskError } from '../types.ts';
import type { TaskHandler } from '../types.ts';
import { pureTask, resolveReference } from './shared.ts';
import { isPlainObject } from '../../../../kernel/index.ts';

export const merge: TaskHandler = pureTask({
  name: 'merge',
  type: 'automatic',
  incoming: ['data_to_merge'],
  outgoing: ['merged_object'],
  run(ctx) {
    const entries = ctx.incoming['data_to_merge'];
    if (!Array.isArray(entries) || entries.length < 2) throw new TaskError('data_to_merge must be an array of at least 2 entries');
    const merged: Record<string, unknown> = {};
    entries.forEach((entry: unknown, i) => {
      const where = `data_to_merge[${i}]`;
      if (!isPlainObject(entry)) throw new TaskError(`${where} must be an object {key, value}`);
      const key = entry['key'];
      if (typeof key !== 'string' || key.length === 0) throw new TaskError(`${where}.key must be a non-empty string`);
      // Assigning `__proto__` would replace the result's prototype rather than add a key.
      if (key === '__proto__') throw new TaskError(`${where}.key must not be "__proto__"`);
      const value = entry['value'];
      if (!isPlainObject(value)) throw new TaskError(`${where}.value must be an object {task, variable}`);
      merged[key] = resolveReference(ctx, value['task'], value['variable'], `${where}.value`);
    });
    return { finishState: 'success', outgoing: { merged_object: merged } };
  },
});
