/**
 * Once audit records were archived, the migration audit report says where
 * the store's history begins, in every format; before that it says nothing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { archiveDir } from '../../../kernel/archive/files.ts';
import { readManifest } from '../../../kernel/archive/files.ts';
import { runArchive, seedStore } from '../../core/archive/support.ts';
import { tempDir } from '../../faults/support.ts';

function audit(args: string[], dataDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/audit.ts', '--data-dir', dataDir, ...args], { env: { ...process.env, MONGO_URL: '', PLATFORM_RELEASE: '2022.1' }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

test('the audit report names the day its history begins once records were archived, in text, HTML, CSV and JSON', { timeout: 120_000 }, async () => {
  const data = tempDir('archive-history');
  try {
    await seedStore(data.path, { jobs: 1, tasksPerJob: 0, audit: 40 });
    const before = await audit(['--format', 'json'], data.path);
    assert.equal((JSON.parse(before) as { historyBegins: unknown }).historyBegins, null);
    assert.doesNotMatch(await audit([], data.path), /history begins/);

    const started = Date.now();
    const run = await runArchive(['--older-than', '30d', '--only', 'audit'], { DATA_DIR: data.path });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /audit: archived 20 audit/);
    assert.ok(Object.keys((await readManifest(archiveDir(data.path), 'audit')).files).length > 0);
    // The cutoff lies between the run's start and now, 30 days back.
    const day = new Date(started - 30 * 86_400_000).toISOString().slice(0, 10);

    const json = JSON.parse(await audit(['--format', 'json'], data.path)) as { historyBegins: string };
    assert.equal(json.historyBegins.slice(0, 10), day);
    const line = `history begins ${day}: earlier records were archived`;
    assert.ok((await audit([], data.path)).includes(line));
    assert.ok((await audit(['--format', 'html'], data.path)).includes(line));
    const csv = (await audit(['--format', 'csv'], data.path)).split('\r\n');
    assert.ok(csv[0]!.endsWith(',history_begins'));
    assert.ok(csv.slice(1, -1).length > 0 && csv.slice(1, -1).every((row) => row.endsWith(`,${day}`)), csv.join('\n'));
  } finally {
    data.remove();
  }
});
