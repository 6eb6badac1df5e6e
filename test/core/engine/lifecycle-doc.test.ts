/** docs/lifecycle.md carries the lifecycle table exactly as the code has it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { lifecycleTable } from '../../../core/src/engine/lifecycle.ts';
import { loadConfig } from '../../../config/load.ts';

test('the lifecycle table in docs/lifecycle.md is the one the actions obey', () => {
  const doc = readFileSync('docs/lifecycle.md', 'utf8');
  assert.ok(doc.includes(lifecycleTable()), 'regenerate the table in docs/lifecycle.md from lifecycleTable()');
});

test('docs/lifecycle.md states the engine limits config/default.json ships', async () => {
  const doc = readFileSync('docs/lifecycle.md', 'utf8');
  const { workflowEngine } = await loadConfig({ env: {} });
  for (const key of ['maxTaskRunsPerJob', 'maxIterationsListed', 'maxChildJobDepth', 'maxJobsPerTree', 'maxJobBytes'] as const) {
    assert.ok(doc.includes(`\`workflowEngine.${key}\` (default ${workflowEngine[key]})`), `${key} (default ${workflowEngine[key]}) is not stated`);
  }
});
