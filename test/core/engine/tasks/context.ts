/**
 * Builds the TaskContext a handler sees, with services that record every
 * call so tests can assert what a handler asked the engine for.
 */
import assert from 'node:assert/strict';
import { TaskError } from '../../../../core/src/engine/types.ts';
import type { ChildJobRequest, ChildJobResult, TaskContext, TaskHandler, TaskOutcome, TaskServices } from '../../../../core/src/engine/types.ts';

export interface RecordingServices extends TaskServices {
  readonly childJobCalls: { requests: readonly ChildJobRequest[]; mode: 'parallel' | 'sequential' }[];
  readonly transformationCalls: { id: string; incoming: Record<string, unknown>; options: { extractOutput?: boolean } }[];
  readonly relayCalls: { kind: 'restAction' | 'restQuery'; adapterId: string; body: Record<string, unknown> }[];
}

export interface FakeBehaviour {
  /** The status each child ends with; `complete` unless told. */
  readonly childStatus?: (request: ChildJobRequest, index: number) => string;
  readonly transformation?: (id: string, incoming: Record<string, unknown>) => unknown;
  readonly relay?: (kind: string, adapterId: string, body: Record<string, unknown>) => unknown;
}

export function fakeServices(behaviour: FakeBehaviour = {}): RecordingServices {
  const services: RecordingServices = {
    childJobCalls: [],
    transformationCalls: [],
    relayCalls: [],
    async runChildJobs(requests, mode) {
      services.childJobCalls.push({ requests, mode });
      return requests.map((request, i): ChildJobResult => ({
        _id: `child${i}`,
        name: request.workflow,
        status: behaviour.childStatus?.(request, i) ?? 'complete',
        variables: request.variables,
        output: { echoed: request.variables },
        error: null,
      }));
    },
    async runTransformation(id, incoming, options) {
      services.transformationCalls.push({ id, incoming, options });
      if (behaviour.transformation === undefined) throw new Error('no transformation configured');
      return behaviour.transformation(id, incoming);
    },
    async relay(kind, adapterId, body) {
      services.relayCalls.push({ kind, adapterId, body });
      if (behaviour.relay === undefined) throw new Error('relay is not available');
      return behaviour.relay(kind, adapterId, body);
    },
  };
  return services;
}

export interface ContextInit {
  readonly incoming?: Record<string, unknown>;
  readonly jobVariables?: Record<string, unknown>;
  readonly taskOutputs?: Record<string, Record<string, unknown>>;
  readonly taskKey?: string;
  readonly signal?: AbortSignal;
  readonly services?: TaskServices;
}

export function makeContext(init: ContextInit = {}): TaskContext {
  const taskKey = init.taskKey ?? 'a1';
  return {
    jobId: '0123456789abcdef01234567',
    taskKey,
    task: { name: 'test' },
    incoming: init.incoming ?? {},
    jobVariables: init.jobVariables ?? {},
    taskOutputs: init.taskOutputs ?? {},
    signal: init.signal ?? new AbortController().signal,
    services: init.services ?? fakeServices(),
  };
}

/** Runs a handler the way the engine does: a synchronous throw becomes a rejection. */
export async function run(handler: TaskHandler, init: ContextInit = {}): Promise<TaskOutcome> {
  return handler.run(makeContext(init));
}

/** Asserts the handler refuses its input with a TaskError whose message matches. */
export async function assertTaskError(handler: TaskHandler, init: ContextInit, message: RegExp): Promise<void> {
  await assert.rejects(run(handler, init), (err: unknown) => {
    assert.ok(err instanceof TaskError, `expected a TaskError, got ${String(err)}`);
    assert.match(err.message, message);
    return true;
  });
}
