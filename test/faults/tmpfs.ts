/**
 * A core whose DATA_DIR is a small tmpfs, mounted in a mount namespace of its
 * own (`unshare -m`), so the mount goes away with the process whatever
 * happens to the test. The test reaches the files through
 * `/proc/<pid>/root`, which shows the process's own mounts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnListening } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';

/** Found from here: inside the namespace nsenter starts in `/`. */
const BETTER_SQLITE = createRequire(import.meta.url).resolve('better-sqlite3');

/** Why a tmpfs cannot be mounted here, or null when it can. */
export function tmpfsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'a tmpfs can only be mounted as root, and this test runs as another user';
  const dir = mkdtempSync(join(tmpdir(), 'iap-faults-probe-'));
  try {
    const probe = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs -o size=1m tmpfs '${dir}'`], { encoding: 'utf8', timeout: 5000 });
    if (probe.error) return `unshare could not be run (${probe.error.message})`;
    if (probe.status !== 0) return `mounting a tmpfs in a new mount namespace was refused: ${probe.stderr.trim() || `exit ${probe.status}`}`;
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface CoreOnTmpfs extends CoreProcess {
  /** DATA_DIR as the test reaches it with plain file calls: through the core's mount namespace. */
  readonly dataDir: string;
  /** DATA_DIR as the core names it. */
  readonly ownDir: string;
}

/**
 * Runs one SQL statement on a file of the core's DATA_DIR from inside its
 * mount namespace (SQLite resolves `/proc/<pid>/root` to `/`, so it cannot
 * be opened from outside). Answers the rows, or what `run` reports.
 */
export function sqlInside(core: CoreOnTmpfs, file: string, sql: string, params: unknown[] = []): unknown {
  const script = [
    'const Database = require(process.argv[3]);',
    'const db = new Database(process.argv[1]);',
    'const [sql, params] = JSON.parse(process.argv[2]);',
    'const s = db.prepare(sql);',
    'const result = s.reader ? s.all(...params) : s.run(...params);',
    'db.close();',
    'process.stdout.write(JSON.stringify(result));',
  ].join('\n');
  const run = spawnSync('nsenter', ['--target', String(core.child.pid), '--mount', process.execPath, '-e', script, join(core.ownDir, file), JSON.stringify([sql, params]), BETTER_SQLITE], { encoding: 'utf8', timeout: 10_000 });
  if (run.status !== 0) throw new Error(`${sql}: ${run.stderr || run.error?.message || `exit ${run.status}`}`);
  return JSON.parse(run.stdout);
}

/** Starts the core on a tmpfs of `size` (such as `24m`) mounted on a fresh directory. */
export async function spawnCoreOnTmpfs(size: string, env: Record<string, string>): Promise<CoreOnTmpfs> {
  const dir = mkdtempSync(join(tmpdir(), 'iap-faults-full-'));
  const script = `mount -t tmpfs -o size=${size} tmpfs "$DATA_DIR" && exec "${process.execPath}" --import tsx core/src/main.ts`;
  // The mount goes with the namespace when the core exits; the empty directory under it is left.
  const core = await spawnListening('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script], { CORE_PORT: '0', ...env, DATA_DIR: dir }, () => rmSync(dir, { recursive: true, force: true }));
  return { ...core, dataDir: `/proc/${core.child.pid}/root${dir}`, ownDir: dir };
}

/** Starts the gateway in the core's mount namespace, with the same DATA_DIR, as `npm start` lays them out. */
export function spawnGatewayBeside(core: CoreOnTmpfs, env: Record<string, string>): Promise<CoreProcess> {
  const args = ['--target', String(core.child.pid), '--mount', `--wd=${process.cwd()}`, process.execPath, '--import', 'tsx', 'gateway/src/main.ts'];
  return spawnListening('nsenter', args, { PORT: '0', CORE_URL: core.url, ...env, DATA_DIR: core.ownDir }, () => undefined);
}

