/**
 * Evaluates JSONata mappings in child processes, so a hostile or careless
 * mapping cannot stall the core or take it down. JSONata's own guardrails (a
 * time limit and a depth limit, checked at every step of evaluation) stop
 * endless loops and runaway recursion with a clear message. They cannot stop
 * a single built-in call that never returns (a regular expression that
 * backtracks forever), so an evaluator still busy shortly after the time limit
 * is killed. Its heap is capped too: past the cap V8 aborts the whole process
 * it runs in, which is why evaluators are processes and not worker threads (a
 * worker's heap limit once aborted the core itself, RELIABILITY.md). The
 * core's event loop never runs user expressions.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface SandboxLimits {
  /** JSONata's evaluation time limit. */
  readonly timeoutMs: number;
  /** How long past the time limit an evaluator may stay busy before it is killed. */
  readonly graceMs: number;
  /** JSONata's limit on nested evaluation (recursion, deep expressions). */
  readonly maxDepth: number;
  /** An evaluator's heap (V8's old space), in MB. */
  readonly memoryMb: number;
  /** Largest result, as JSON text, handed back to the core. */
  readonly maxOutputChars: number;
  /** Evaluator processes at most, started as needed. */
  readonly workers: number;
}

export const DEFAULT_LIMITS: SandboxLimits = { timeoutMs: 1000, graceMs: 500, maxDepth: 1000, memoryMb: 128, maxOutputChars: 16 * 1024 * 1024, workers: 2 };

export type FailureKind = 'timeout' | 'depth' | 'memory' | 'too-large' | 'error';

export class MappingError extends Error {
  constructor(readonly kind: FailureKind, message: string) {
    super(message);
  }
}

type Reply = { ok: true; json: string | null } | { ok: false; code: string | null; message: string; tooLarge?: boolean };

const EVALUATOR = fileURLToPath(new URL('./evaluator.cjs', import.meta.url));
/** What an evaluator writes to stderr is kept (its end) only to name why it died. */
const STDERR_TAIL = 2048;

/**
 * An evaluator that runs out of heap aborts (SIGABRT), and an abort may
 * write a core file as large as the heap: the shell sets the core-file limit
 * to 0 and then becomes node, keeping the IPC channel's descriptor.
 */
function startEvaluator(limits: SandboxLimits): ChildProcess {
  // Without the `__proto__` accessor a mapping's `{"__proto__": ...}` is a key like any other (docs/security.md).
  const args = [`--max-old-space-size=${limits.memoryMb}`, '--disable-proto=delete', EVALUATOR, JSON.stringify({ timeoutMs: limits.timeoutMs, maxDepth: limits.maxDepth, maxOutputChars: limits.maxOutputChars })];
  const options = {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'] as Array<'ignore' | 'pipe' | 'ipc'>,
    // Structured clone: results and inputs cross as they are, with no JSON escaping on top.
    serialization: 'advanced' as const,
    // User code must see none of the core's settings (a database URL, a vault token), nor its NODE_OPTIONS.
    env: {},
  };
  if (process.platform === 'win32') return spawn(process.execPath, args, options);
  return spawn('/bin/sh', ['-c', 'ulimit -c 0; exec "$0" "$@"', process.execPath, ...args], options);
}

type Outcome = { reply: Reply } | { dead: MappingError };

/** One evaluator process; runs one evaluation at a time. */
class Slot {
  private readonly child: ChildProcess;
  /** False once the process has exited (or failed to start), whatever the reason. */
  alive = true;
  private stderr = '';

  constructor(private readonly limits: SandboxLimits) {
    this.child = startEvaluator(limits);
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
    });
    // Without a listener an 'error' (a failed spawn, a send to a dead process) would crash the core.
    this.child.on('error', () => {
      this.alive = false;
    });
    this.child.once('exit', () => {
      this.alive = false;
    });
    this.idle();
  }

  run(mapping: string, input: unknown): Promise<Outcome> {
    const { child, limits } = this;
    return new Promise((resolve) => {
      const finish = (outcome: Outcome): void => {
        clearTimeout(timer);
        child.off('message', onMessage).off('error', onError).off('exit', onExit);
        this.idle();
        resolve(outcome);
      };
      const onMessage = (reply: Reply): void => finish({ reply });
      const onError = (err: Error): void => finish({ dead: new MappingError('error', `its evaluator failed: ${err.message}`) });
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => finish({ dead: this.death(code, signal) });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        finish({ dead: new MappingError('timeout', `ran longer than ${limits.timeoutMs} ms`) });
      }, limits.timeoutMs + limits.graceMs);
      this.busy();
      child.on('message', onMessage).on('error', onError).on('exit', onExit);
      if (!this.alive || !child.connected) return finish({ dead: new MappingError('error', 'its evaluator stopped unexpectedly') });
      child.send({ mapping, input }, (err) => {
        if (err) finish({ dead: new MappingError('error', `its evaluator could not be reached: ${err.message}`) });
      });
    });
  }

  terminate(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  /** V8 aborts a process out of heap, after writing why to stderr. */
  private death(code: number | null, signal: NodeJS.Signals | null): MappingError {
    if (signal === 'SIGABRT' || code === 134 || this.stderr.includes('heap out of memory')) {
      return new MappingError('memory', `used more than ${this.limits.memoryMb} MB of memory`);
    }
    return new MappingError('error', `its evaluator stopped unexpectedly (${signal ?? `exit ${code}`})`);
  }

  /** An idle evaluator must not keep the core's process alive. */
  private idle(): void {
    this.child.unref();
    this.child.channel?.unref();
    // A child's stdio pipes are sockets.
    (this.child.stderr as Socket | null)?.unref();
  }

  private busy(): void {
    this.child.ref();
    this.child.channel?.ref();
  }
}

function failure(reply: Extract<Reply, { ok: false }>, limits: SandboxLimits): MappingError {
  if (reply.tooLarge) return new MappingError('too-large', `produced more than ${limits.maxOutputChars} characters of JSON`);
  if (reply.code === 'D1012') return new MappingError('timeout', `ran longer than ${limits.timeoutMs} ms`);
  if (reply.code === 'D1011') return new MappingError('depth', `nested deeper than ${limits.maxDepth} levels (runaway recursion?)`);
  if (reply.code === null) return new MappingError('error', reply.message);
  return new MappingError('error', `${reply.message} (${reply.code})`);
}

/** A small pool of evaluator processes, started on first use and replaced when one dies or is killed. */
export class MappingSandbox {
  private readonly idle: Slot[] = [];
  private readonly waiting: Array<{ resolve: (slot: Slot) => void; reject: (err: unknown) => void }> = [];
  private size = 0;

  constructor(private readonly limits: SandboxLimits = DEFAULT_LIMITS) {}

  /** The mapping's result (JSON values only; undefined when it selects nothing); rejects with a MappingError. */
  async evaluate(mapping: string, input: Record<string, unknown>): Promise<unknown> {
    const slot = await this.acquire();
    const outcome = await slot.run(mapping, input);
    if ('dead' in outcome) {
      slot.terminate();
      this.size -= 1;
      this.handOn();
      throw outcome.dead;
    }
    this.idle.push(slot);
    this.handOn();
    const { reply } = outcome;
    if (!reply.ok) throw failure(reply, this.limits);
    return reply.json === null ? undefined : JSON.parse(reply.json);
  }

  /** Stops the idle evaluators (busy ones end when their evaluation does). */
  close(): void {
    for (const slot of this.idle.splice(0)) {
      slot.terminate();
      this.size -= 1;
    }
  }

  private acquire(): Promise<Slot> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.handOn();
    });
  }

  /** Gives the first waiting evaluation an idle evaluator, or a new one while the pool is not full. */
  private handOn(): void {
    while (this.waiting.length > 0 && (this.idle.length > 0 || this.size < this.limits.workers)) {
      const idle = this.idle.pop();
      if (idle && !idle.alive) {
        this.size -= 1;
        continue;
      }
      const next = this.waiting.shift()!;
      if (idle) {
        next.resolve(idle);
        continue;
      }
      try {
        const fresh = new Slot(this.limits);
        this.size += 1;
        next.resolve(fresh);
      } catch (err) {
        next.reject(err);
      }
    }
  }
}
