/**
 * Evaluates JSONata mappings in worker threads, so a hostile or careless
 * mapping cannot stall the core. JSONata's own guardrails (a time limit and a
 * depth limit, checked at every step of evaluation) stop endless loops and
 * runaway recursion with a clear message. They cannot stop a single built-in
 * call that never returns (a regular expression that backtracks forever), so
 * a worker still busy shortly after the time limit is terminated; its heap is
 * capped too. The core's event loop never runs user expressions.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface SandboxLimits {
  /** JSONata's evaluation time limit. */
  readonly timeoutMs: number;
  /** How long past the time limit a worker may stay busy before it is terminated. */
  readonly graceMs: number;
  /** JSONata's limit on nested evaluation (recursion, deep expressions). */
  readonly maxDepth: number;
  readonly memoryMb: number;
  /** Largest result, as JSON text, handed back to the core. */
  readonly maxOutputChars: number;
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

/** Plain JavaScript run with `eval`, so workers need no TypeScript loader. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const jsonata = require(workerData.jsonataPath);
const limits = workerData.limits;
const compiled = new Map();
parentPort.on('message', async (job) => {
  let reply;
  try {
    let expression = compiled.get(job.mapping);
    if (!expression) {
      expression = jsonata(job.mapping, { timeout: limits.timeoutMs, stack: limits.maxDepth });
      if (compiled.size >= 64) compiled.delete(compiled.keys().next().value);
      compiled.set(job.mapping, expression);
    }
    const result = await expression.evaluate(job.input);
    const json = result === undefined ? undefined : JSON.stringify(result);
    if (json !== undefined && json.length > limits.maxOutputChars) reply = { ok: false, code: null, message: 'too large', tooLarge: true };
    else reply = { ok: true, json: json === undefined ? null : json };
  } catch (err) {
    const code = err && typeof err.code === 'string' ? err.code : null;
    const message = err && typeof err.message === 'string' ? err.message : String(err);
    reply = { ok: false, code, message };
  }
  parentPort.postMessage(reply);
});
`;

const JSONATA_PATH = createRequire(import.meta.url).resolve('jsonata');

type Outcome = { reply: Reply } | { dead: MappingError };

/** One worker; runs one evaluation at a time. */
class Slot {
  private readonly worker: Worker;
  /** False once the worker has exited, whatever the reason. */
  alive = true;

  constructor(private readonly limits: SandboxLimits) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { jsonataPath: JSONATA_PATH, limits },
      // The parent's flags (a TypeScript loader, the test runner) are not wanted here.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
    });
    // An idle worker must not keep the process alive.
    this.worker.unref();
    // Without a listener an 'error' event would crash the core; a busy worker's run adds its own.
    this.worker.on('error', () => undefined);
    this.worker.once('exit', () => {
      this.alive = false;
    });
  }

  run(mapping: string, input: unknown): Promise<Outcome> {
    const { worker, limits } = this;
    return new Promise((resolve) => {
      const finish = (outcome: Outcome): void => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        worker.unref();
        resolve(outcome);
      };
      const onMessage = (reply: Reply): void => finish({ reply });
      const onError = (err: Error & { code?: string }): void => {
        finish({ dead: err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new MappingError('memory', `used more than ${limits.memoryMb} MB of memory`) : new MappingError('error', err.message) });
      };
      const onExit = (): void => finish({ dead: new MappingError('error', 'its evaluator stopped unexpectedly') });
      const timer = setTimeout(() => {
        void worker.terminate();
        finish({ dead: new MappingError('timeout', `ran longer than ${limits.timeoutMs} ms`) });
      }, limits.timeoutMs + limits.graceMs);
      worker.ref();
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      try {
        worker.postMessage({ mapping, input });
      } catch (err) {
        finish({ dead: new MappingError('error', err instanceof Error ? err.message : String(err)) });
      }
    });
  }

  terminate(): void {
    void this.worker.terminate();
  }
}

function failure(reply: Extract<Reply, { ok: false }>, limits: SandboxLimits): MappingError {
  if (reply.tooLarge) return new MappingError('too-large', `produced more than ${limits.maxOutputChars} characters of JSON`);
  if (reply.code === 'D1012') return new MappingError('timeout', `ran longer than ${limits.timeoutMs} ms`);
  if (reply.code === 'D1011') return new MappingError('depth', `nested deeper than ${limits.maxDepth} levels (runaway recursion?)`);
  if (reply.code === null) return new MappingError('error', reply.message);
  return new MappingError('error', `${reply.message} (${reply.code})`);
}

/** A small pool of workers, created on first use and replaced when one is terminated. */
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

  /** Terminates the idle workers (busy ones end when their evaluation does). */
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

  /** Gives the first waiting evaluation an idle worker, or a new one while the pool is not full. */
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
