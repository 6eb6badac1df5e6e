/**
 * The core's module contract (core/src/module.ts): the app folds over one list
 * of modules; `bootstrap` and `start` run in list order, `stop` in reverse
 * and past a module that fails to stop; `core.start()` starts the background
 * work main.ts used to start by name, and `core.stop()` stops it all.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { moduleLifecycle, routesModule } from '../../core/src/module.ts';
import type { CoreModule } from '../../core/src/module.ts';
import { createLogger } from '../../kernel/logger.ts';
import { openTestStore } from '../helpers/stores.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { BASE, send } from './automation-catalog/helpers.ts';

function recording(name: string, log: string[], failStop = false): CoreModule {
  return {
    name,
    routes: [],
    bootstrap: async (options) => {
      options.announce?.(`${name} bootstrapped`);
      log.push(`bootstrap ${name}`);
    },
    start: () => void log.push(`start ${name}`),
    stop: async () => {
      log.push(`stop ${name}`);
      if (failStop) throw new Error(`${name} would not stop`);
    },
  };
}

test('bootstrap and start run in list order, stop in reverse, and a module without them is passed over', async () => {
  const log: string[] = [];
  const announced: string[] = [];
  const lifecycle = moduleLifecycle([recording('a', log), routesModule('routes only', []), recording('b', log)], createLogger({ level: 'error', service: 'test', silent: true }));
  await lifecycle.bootstrap({ announce: (t) => announced.push(t) });
  await lifecycle.start();
  await lifecycle.stop();
  assert.deepEqual(log, ['bootstrap a', 'bootstrap b', 'start a', 'start b', 'stop b', 'stop a']);
  assert.deepEqual(announced, ['a bootstrapped', 'b bootstrapped']);
});

test('a module that fails to stop is logged by name, and the modules before it still stop', async () => {
  const log: string[] = [];
  const lines: string[] = [];
  const logger = createLogger({ level: 'error', service: 'test', stream: new (await import('node:stream')).Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString()), done()) }) });
  await moduleLifecycle([recording('first', log), recording('stubborn', log, true)], logger).stop();
  assert.deepEqual(log, ['stop stubborn', 'stop first']);
  assert.match(lines.join(''), /module did not stop cleanly.*stubborn/);
});

let core: RunningCore;
before(async () => {
  core = await startCore(await openTestStore(), { METRICS_ENABLED: 'true' });
});
after(async () => {
  await core.core.stop();
  await core.core.engine.idle();
  await core.close();
});

test("the core's routes are its modules' routes in list order, and every module has a name of its own", () => {
  const { modules, routes } = core.core;
  assert.deepEqual(routes, modules.flatMap((m) => m.routes));
  assert.equal(new Set(modules.map((m) => m.name)).size, modules.length);
  assert.ok(modules.every((m) => m.name.length > 0));
});

test('a scheduled run is counted by the metrics the scheduler was built with', async () => {
  const imported = await send(core, 'POST', `${BASE}/import`, { name: 'Counted run', data: { workflow: 'never-created' }, nextRunAt: new Date(Date.now() - 1000).toISOString() });
  assert.equal(imported.status, 200);
  assert.equal(await core.core.automationScheduler.tick(), 1);
  const text = await core.core.metrics!.registry.metrics();
  assert.match(text, /iap_scheduler_runs_total\{scheduler="automation catalog",outcome="failed"\} 1/);
});

test('nothing runs in the background until core.start(); core.stop() stops it all', async () => {
  const { automationScheduler, triggerScheduler } = core.core;
  assert.deepEqual([automationScheduler.running, triggerScheduler.running], [false, false], 'built stopped');
  await core.core.start();
  assert.deepEqual([automationScheduler.running, triggerScheduler.running], [true, true]);
  await core.core.stop();
  assert.deepEqual([automationScheduler.running, triggerScheduler.running], [false, false]);
});
