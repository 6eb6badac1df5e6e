/**
 * The second wall of issue 26: every service runs with Node's
 * `--disable-proto=delete`, however it is started (`npm start`, whose
 * supervisor starts both services, `npm run start:core` and
 * `npm run start:gateway`). Each is started here with the command line its
 * package.json script gives, the flag is read from the running process's own
 * `/proc/<pid>/cmdline`, the same launcher runs a probe showing that
 * `__proto__` is gone from `Object.prototype`, and the service answers a call
 * (nothing it loads needs the accessor).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { SERVICE_NODE_FLAGS } from '../../scripts/supervise.ts';
import { ADMIN_PASSWORD, tempDir } from '../faults/support.ts';
import { storeEnv } from '../helpers/stores.ts';
import { eventually } from '../helpers/wait.ts';
import { freePort } from '../helpers/free-port.ts';

const FLAG = '--disable-proto=delete';
const data = tempDir('disable-proto');
after(() => data.remove());

const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The arguments a process was started with, as the kernel keeps them. */
function cmdline(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
}

/** Every process under `pid` (its children, theirs, ...). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name sits in parentheses and may hold spaces: the fields after it are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const [child, parent] of parentOf) if (parent === p) out.push(child), walk(child);
  };
  walk(pid);
  return out;
}

/** Adds the service's own output to a wait that ran out, so a failed start says why. */
async function orLog<T>(wait: Promise<T>, log: () => string): Promise<T> {
  try {
    return await wait;
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}: ${log()}`);
  }
}

/** The node process under `root` that runs `script`, once it is there. */
function serviceProcess(root: ChildProcess, script: string, log: () => string): Promise<number> {
  const running = (): number | undefined => [root.pid!, ...descendants(root.pid!)].find((pid) => {
    try {
      return cmdline(pid).includes(script);
    } catch {
      return false;
    }
  });
  return orLog(eventually(running, { timeoutMs: 40_000, everyMs: 100, what: `a process running ${script}` }), log);
}

async function answers(url: string, log: () => string): Promise<void> {
  const ok = async (): Promise<boolean> => {
    try {
      return (await fetch(url)).status === 200;
    } catch {
      // Not listening yet.
      return false;
    }
  };
  await orLog(eventually(ok, { timeoutMs: 40_000, everyMs: 100, what: `${url} answering 200` }), log);
}

/** Runs a package.json script as npm would (sh -c, node_modules/.bin on PATH), without npm's own process in between. */
function runScript(name: string, args: string[], env: Record<string, string>): { child: ChildProcess; log: () => string; stop: () => Promise<void> } {
  const child = spawn('sh', ['-c', `${scripts[name]!} "$@"`, name, ...args], {
    env: { ...process.env, PATH: `${process.cwd()}/node_modules/.bin:${process.env['PATH'] ?? ''}`, MONGO_URL: '', LOG_LEVEL: 'warn', ADMIN_PASSWORD, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    log: () => out,
    async stop() {
      // The process group this test made: the shell, and the services under it.
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

/** What `Object.prototype.__proto__` is in a process started with these node flags. */
function probe(flags: readonly string[]): string {
  return execFileSync(process.execPath, [...flags, '--import', 'tsx', '-e', 'console.log(JSON.stringify([typeof Object.getOwnPropertyDescriptor(Object.prototype, "__proto__"), ({}).__proto__ === undefined]))'], { encoding: 'utf8' }).trim();
}

/** The node flags of a process: what comes before `--import tsx <script>`. */
function nodeFlags(args: readonly string[]): string[] {
  return args.slice(1, args.indexOf('--import'));
}

test('each start script and the supervisor name the flag, and a process with those flags has no __proto__ accessor', () => {
  assert.deepEqual(SERVICE_NODE_FLAGS, [FLAG]);
  for (const name of ['start', 'start:core', 'start:gateway']) assert.match(scripts[name]!, /^node --disable-proto=delete --import tsx \S+$/, name);
  assert.equal(probe(SERVICE_NODE_FLAGS), '["undefined",true]');
  // The probe can tell: without the flag the accessor is there.
  assert.equal(probe([]), '["object",false]');
});

test('npm run start:core and npm run start:gateway run their service with --disable-proto=delete', { timeout: 120_000 }, async () => {
  const [corePort, gatewayPort] = [await freePort(), await freePort()];
  const core = runScript('start:core', [], { ...storeEnv(data.path), CORE_PORT: String(corePort), CORE_HOST: '127.0.0.1' });
  const gateway = runScript('start:gateway', [], { PORT: String(gatewayPort), CORE_URL: `http://127.0.0.1:${corePort}`, ...storeEnv(data.path) });
  try {
    for (const [service, script, url] of [[core, 'core/src/main.ts', `http://127.0.0.1:${corePort}/health/live`], [gateway, 'gateway/src/main.ts', `http://127.0.0.1:${gatewayPort}/gateway/health/live`]] as const) {
      const pid = await serviceProcess(service.child, script, service.log);
      const args = cmdline(pid);
      assert.ok(nodeFlags(args).includes(FLAG), `${script} runs as ${args.join(' ')}`);
      assert.equal(probe(nodeFlags(args)), '["undefined",true]');
      await answers(url, service.log);
    }
    // A rewritten legacy call goes gateway -> core, both under the flag.
    const login = await fetch(`http://127.0.0.1:${gatewayPort}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password: ADMIN_PASSWORD } }) });
    assert.equal(login.status, 200, await login.clone().text());
    const token = (await login.json()) as string;
    const legacy = await fetch(`http://127.0.0.1:${gatewayPort}/workflow_engine/jobs/find`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query: {}, options: { limit: 1, fields: { name: 1 } } }) });
    assert.equal(legacy.status, 200, await legacy.clone().text());
  } finally {
    await gateway.stop();
    await core.stop();
  }
});

test('npm start runs itself and both supervised services with --disable-proto=delete', { timeout: 120_000 }, async () => {
  const [corePort, gatewayPort] = [await freePort(), await freePort()];
  const start = runScript('start', ['--demo-jobs', '0'], { ...storeEnv(`${data.path}/all`), CORE_PORT: String(corePort), PORT: String(gatewayPort), CORE_URL: `http://127.0.0.1:${corePort}` });
  try {
    const root = await serviceProcess(start.child, 'scripts/start.ts', start.log);
    assert.ok(nodeFlags(cmdline(root)).includes(FLAG), cmdline(root).join(' '));
    for (const script of ['core/src/main.ts', 'gateway/src/main.ts']) {
      const args = cmdline(await serviceProcess(start.child, script, start.log));
      assert.ok(nodeFlags(args).includes(FLAG), `${script} runs as ${args.join(' ')}`);
    }
    await answers(`http://127.0.0.1:${gatewayPort}/gateway/health/live`, start.log);
    await answers(`http://127.0.0.1:${corePort}/health/live`, start.log);
  } finally {
    await start.stop();
  }
});
