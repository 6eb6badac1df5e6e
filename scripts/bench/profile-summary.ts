/**
 * Where a profiled process spent its time while it served requests: a V8 CPU
 * profile (`--cpu-prof`) read back and each sample charged to the innermost
 * frame of a known kind (the store, authentication, validation, the
 * framework, ...). Idle time and module loading are left out; the shares are
 * of the rest. Samples are taken on a clock, so a write to a socket counts
 * while the kernel does it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

export interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export type Frame = ProfileNode['callFrame'];

/** Anywhere on the stack: a client request's writes run in node:http's outgoing code, which answers share. */
const UPSTREAM = (f: Frame): boolean => /http-exchange\.ts|_http_client|_http_agent/.test(f.url);

/** Otherwise the innermost match wins; the first kind listed wins at one frame. */
const KINDS: ReadonlyArray<readonly [string, (f: Frame) => boolean]> = [
  ['store (SQLite reads and writes)', (f) => /kernel\/store|better-sqlite3/.test(f.url)],
  ['search parsing and paging', (f) => /kernel\/search|search-service|search-routes/.test(f.url)],
  ['workflow engine', (f) => /core\/src\/engine|core\/src\/workflows/.test(f.url)],
  ['request body read and parsed', (f) => /bodyparser|co-body|raw-body|iconv|bourne/.test(f.url)],
  ['validation (joi, answer checks)', (f) => /joi\/|ajv|kernel\/http\/validate|kernel\/json-schema|relay\/schemas|relay\/path/.test(f.url)],
  ['authentication and authorization', (f) => /core\/src\/auth|kernel\/http\/caller|authorization/.test(f.url)],
  ['metrics', (f) => /metrics|prom-client/.test(f.url)],
  ['logging', (f) => /winston|logform|kernel\/logger/.test(f.url)],
  ['relay code', (f) => /core\/src\/relay|core\/src\/adapters/.test(f.url)],
  ['answer written (JSON.stringify, socket write)', (f) => f.functionName === 'respond' || f.functionName === 'handleResponse' || /_http_outgoing/.test(f.url)],
  ['incoming HTTP parsing (node:http server)', (f) => /_http_server|_http_incoming|_http_common/.test(f.url)],
  ['framework (koa, router, middleware)', (f) => /koa|delegates|kernel\/http|core\/src\/http|core\/src\/app|on-finished|ee-first|type-is|mime/.test(f.url)],
];

const STARTUP = (f: Frame): boolean => /internal\/modules|tsx\/dist|translators|cjs-module-lexer|bootstrap/.test(f.url) || f.functionName === 'evaluate';

export interface Share {
  readonly kind: string;
  readonly share: number;
}

/** Charges one sample: its frames, innermost first, to a kind (null: not one of its kinds, so "other"). */
export type Classify = (frames: readonly Frame[]) => string | null;

/** The request paths' kinds: the innermost frame of a known kind wins. */
const byInnermost: Classify = (frames) => {
  if (frames.some(UPSTREAM)) return 'upstream calls (node:http client)';
  for (const f of frames) {
    const kind = KINDS.find(([, matches]) => matches(f))?.[0];
    if (kind !== undefined) return kind;
  }
  return null;
};

export function profileShares(profile: Profile, classify: Classify = byInnermost): Share[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totals = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const leaf = byId.get(id)!.callFrame;
    if (leaf.functionName === '(idle)') return;
    const frames: Frame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) frames.push(byId.get(cur)!.callFrame);
    if (frames.some(STARTUP)) return;
    const kind = (leaf.functionName === '(garbage collector)' ? 'garbage collection' : classify(frames)) ?? 'other (event loop, streams, timers)';
    totals.set(kind, (totals.get(kind) ?? 0) + dt);
    busy += dt;
  });
  return [...totals].map(([kind, t]) => ({ kind, share: t / Math.max(1, busy) })).sort((a, b) => b.share - a.share);
}

/** The largest profile in `dir` (a process's main thread; its workers' are small), or null when none was written. */
export function mainProfileIn(dir: string): Profile | null {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f));
  if (files.length === 0) return null;
  const largest = files.reduce((a, b) => (statSync(b).size > statSync(a).size ? b : a));
  return JSON.parse(readFileSync(largest, 'utf8')) as Profile;
}

export function sharesTable(shares: readonly Share[]): string[] {
  return ['| where the time went | share |', '|---|---:|', ...shares.filter((s) => s.share >= 0.005).map((s) => `| ${s.kind} | ${(s.share * 100).toFixed(1)}% |`)];
}
