/**
 * A discovered gateway action as a workflow task: app = the adapter's name,
 * name = `script:<name>`, `playbook:<name>` or `module:<name>`, type
 * `automatic`. Incoming `args` (an object, the action's arguments) and, for
 * playbooks and modules, `hosts` and `groups` (inventory targets) go to the
 * gateway's execute call; the gateway's answer is outgoing `result`.
 *
 * The task ends `error` when the gateway cannot be reached or refuses the
 * call (error: the message), and when the action itself failed: a status
 * other than success or a non-zero return code (error: the gateway's answer,
 * which is also `result`, so an error transition can read stdout and stderr).
 */
import { errorOf, optionalObject } from '../engine/tasks/shared.ts';
import { TaskError } from '../engine/types.ts';
import type { TaskContext, TaskHandler, TaskReach } from '../engine/types.ts';
import type { ActionKind, DiscoveredAction } from './client.ts';
import { isPlainObject } from '../../../kernel/index.ts';
import { PROVENANCE as AG_MANAGER } from './routes.ts';

/** Runs an action on an adapter; rejects with a message when it cannot. */
export type ExecuteAction = (adapterId: string, kind: ActionKind, name: string, body: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

/**
 * The gateway manager has no route that runs an action; reading what an adapter offers is the least of its routes
 * (all admin-only), so running an action through a job needs at least what that needs over HTTP.
 */
export const AG_ACTION_REACH: TaskReach = { outside: true, needs: { provenance: AG_MANAGER, method: 'discoverModules' } };

export function taskName(action: Pick<DiscoveredAction, 'kind' | 'name'>): string {
  return `${action.kind}:${action.name}`;
}

/** Optional list of inventory names: missing, null or "" (an empty canvas field) leave it out. */
function optionalNames(incoming: Readonly<Record<string, unknown>>, name: string): string[] | undefined {
  const value = incoming[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new TaskError(`${name} must be an array of strings`);
  return value;
}

function requestBody(kind: ActionKind, ctx: TaskContext): Record<string, unknown> {
  const body: Record<string, unknown> = { args: optionalObject(ctx.incoming, 'args') };
  if (kind === 'script') return body;
  const hosts = optionalNames(ctx.incoming, 'hosts');
  const groups = optionalNames(ctx.incoming, 'groups');
  if (hosts) body['hosts'] = hosts;
  if (groups) body['groups'] = groups;
  return body;
}

/** IAG answers `status` in either case depending on the action kind; a return code settles scripts. */
function actionFailed(result: unknown): boolean {
  if (!isPlainObject(result)) return false;
  const status = result['status'];
  if (typeof status === 'string' && status.toLowerCase() !== 'success') return true;
  const code = result['return_code'];
  return typeof code === 'number' && code !== 0;
}

export function actionTask(adapterId: string, action: DiscoveredAction, execute: ExecuteAction): TaskHandler {
  return {
    name: taskName(action),
    app: adapterId,
    type: 'automatic',
    reach: AG_ACTION_REACH,
    incoming: action.kind === 'script' ? ['args'] : ['args', 'hosts', 'groups'],
    outgoing: ['result'],
    async run(ctx) {
      const body = requestBody(action.kind, ctx);
      let result: unknown;
      try {
        result = await execute(adapterId, action.kind, action.name, body, ctx.signal);
      } catch (err) {
        return { finishState: 'error', outgoing: {}, error: errorOf(err) };
      }
      if (actionFailed(result)) return { finishState: 'error', outgoing: { result }, error: result };
      return { finishState: 'success', outgoing: { result } };
    },
  };
}
