/**
 * Where a job's time goes in the core, from a V8 CPU profile of the engine
 * bench's throughput run: each sample charged by the whole stack, the first
 * kind below that any frame on it belongs to winning. The engine runs inside
 * the start request, so the framework is on every stack and is charged only
 * what nothing more specific claims; the store's writes are told from its
 * reads by the batch on the stack.
 */
import type { Classify, Frame } from './profile-summary.ts';

const url = (pattern: RegExp) => (f: Frame): boolean => pattern.test(f.url);
const named = (pattern: RegExp, file: RegExp) => (f: Frame): boolean => pattern.test(f.functionName) && file.test(f.url);

const KINDS: ReadonlyArray<readonly [string, (f: Frame) => boolean]> = [
  ['store: commits (SQLite writes, the job with its task documents)', named(/^batch$/, /kernel\/store/)],
  ['store: reads (workflow, job, counts)', url(/kernel\/store|better-sqlite3/)],
  ['logging', url(/winston|logform|kernel\/logger/)],
  ['JSON Schema (start variables against the inputSchema)', url(/kernel\/json-schema|ajv/)],
  ['validation (joi: body, parameters, answer)', url(/joi\/|kernel\/http\/validate/)],
  ['task handlers (makeData, query, evaluation)', url(/core\/src\/engine\/tasks\//)],
  ['task documents built', named(/^taskDoc$/, /core\/src\/engine/)],
  ['new job and its copies (newJob, clones, size check)', (f) => /^(newJob|withinSize|normalizeJob|Working|structuredClone)$/.test(f.functionName) && /core\/src\/(engine|jobs)|^$/.test(f.url)],
  ['engine: state machine and runs (working.ts, runner.ts, commits.ts)', url(/core\/src\/engine|core\/src\/jobs/)],
  ['workflow lookup and start route', url(/core\/src\/workflows|core\/src\/operations-manager/)],
  ['authentication and authorization', url(/core\/src\/auth|kernel\/http\/caller|authorization/)],
  ['metrics', url(/metrics|prom-client/)],
  ['request body read and parsed', url(/bodyparser|co-body|raw-body|iconv|bourne/)],
  ['answer written (JSON.stringify, socket write)', (f) => f.functionName === 'respond' || f.functionName === 'handleResponse' || /_http_outgoing|node:net|stream_base/.test(f.url)],
  ['incoming HTTP parsing (node:http server)', url(/_http_server|_http_incoming|_http_common/)],
  ['framework (koa, router, middleware)', url(/koa|delegates|kernel\/http|core\/src\/http|core\/src\/app|on-finished|ee-first|type-is|mime/)],
];

export const byJobStage: Classify = (frames) => KINDS.find(([, matches]) => frames.some(matches))?.[0] ?? null;
