/**
 * `transformation`: runs the transformation `tr_id` with `variableMap` as its
 * incoming values and `options` (`{extractOutput}`), through
 * `ctx.services.runTransformation`. Outgoing `output`: its result.
 *
 * A missing or failing transformation is a finish state of the task, not a
 * bad input: it ends `error` with the service's message (or its error value
 * when that is not an Error), so a workflow's error transition can take it.
 * Bad input throws a TaskError; the engine turns it into an `error` outcome.
 */
import { RUN_TRANSFORMATION } from '../permissions.ts';
import type { TaskHandler } from '../types.ts';
import { errorOf, optionalBoolean, optionalObject, requireString } from './shared.ts';

export const transformation: TaskHandler = {
  name: 'transformation',
  app: 'WorkFlowEngine',
  type: 'automatic',
  reach: { outside: true, needs: RUN_TRANSFORMATION },
  incoming: ['tr_id', 'variableMap', 'options'],
  outgoing: ['output'],
  async run(ctx) {
    const id = requireString(ctx.incoming, 'tr_id');
    const variableMap = optionalObject(ctx.incoming, 'variableMap');
    const rawOptions = optionalObject(ctx.incoming, 'options');
    const extractOutput = rawOptions['extractOutput'];
    const options = extractOutput === undefined ? {} : { extractOutput: optionalBoolean(rawOptions, 'extractOutput', false, 'options.extractOutput') };
    try {
      const output = await ctx.services.runTransformation(id, variableMap, options);
      return { finishState: 'success', outgoing: { output } };
    } catch (err) {
      return { finishState: 'error', outgoing: {}, error: errorOf(err) };
    }
  },
};
