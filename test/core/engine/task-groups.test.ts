/**
 * A job's groups change while another writer (another request, another
 * core) commits a change of the same job and its task documents. The groups
 * change must not write back task documents it read before that commit: the
 * other writer's task status has to survive, and the tasks still get the
 * new groups.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc, DocCollection, Store } from '../../../kernel/store/types.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, manual, newVariable, post, runningTask, startJob, workflow } from '../../helpers/engine.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { makeGroup } from '../../helpers/users.ts';

/**
 * Runs `sneak` once, at the job read of the change itself (the request first
 * reads the job once to check the caller may see it): as if another process
 * committed just then, after anything the change read beforehand.
 */
let sneak: (() => Promise<void>) | null = null;
let readsBeforeSneak = 0;

function withSneak(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'collection') return Reflect.get(target, prop, receiver) as unknown;
      return (name: Parameters<Store['collection']>[0]) => {
        const real = target.collection(name);
        if (name !== 'jobs') return real;
        return new Proxy(real, {
          get(c, p) {
            const value = Reflect.get(c, p, c) as unknown;
            if (p !== 'findById' || typeof value !== 'function') return typeof value === 'function' ? value.bind(c) : value;
            return async (id: string) => {
              if (sneak && readsBeforeSneak-- === 0) {
                const run = sneak;
                sneak = null;
                await run();
              }
              return (c as DocCollection).findById(id);
            };
          },
        });
      };
    },
  });
}

let core: RunningCore;
let store: Store;
before(async () => {
  store = await openTestStore();
  core = await startCore(withSneak(store));
  await createWorkflow(core, workflow('approve', { a1b2: newVariable('port', 1), c3d4: manual({}) }, [['workflow_start', 'a1b2'], ['a1b2', 'c3d4'], ['c3d4', 'workflow_end']]));
});
after(() => core.close());

test('a groups change keeps a task status another writer committed meanwhile, and the tasks get the groups', async () => {
  const group = await makeGroup(core, 'late-group');
  const id = await startJob(core, 'approve');
  const taskId = await runningTask(core, id, 'c3d4');
  readsBeforeSneak = 1;
  sneak = async () => {
    // Another writer's commit: the job moves to a new revision and the task document with it.
    const jobs = store.collection('jobs');
    const current = (await jobs.findById(id))!;
    const rev = current['_rev'] as number;
    const task = (await store.collection('tasks').findById(taskId))!;
    const ok = await store.batch([
      { op: 'replaceIfRev', collection: 'jobs', doc: { ...current, _rev: rev + 1 }, expectedRev: rev },
      { op: 'replace', collection: 'tasks', doc: { ...task, summary: 'written by the other writer' } as Doc },
    ]);
    assert.equal(ok, true);
  };
  assert.equal((await post(core, `/jobs/${id}/groups`, { groupId: group })).status, 200);
  assert.equal(sneak, null, 'the other writer ran');
  const task = (await store.collection('tasks').findById(taskId))!;
  assert.equal(task['summary'], 'written by the other writer', 'the groups change wrote back a task document it had read before');
  assert.deepEqual(task['groups'], [group]);
});
