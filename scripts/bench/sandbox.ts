/**
 * Evaluation latency through the mapping sandbox, one evaluation at a time:
 * a trivial mapping (the sandbox's own overhead) and one over 1,000 records
 * (the cost of carrying input and output across). The first evaluation,
 * which starts an evaluator, is timed apart.
 *
 *   tsx scripts/bench/sandbox.ts [--runs 500] [--module path/to/sandbox.ts]
 *
 * `--module` times another build of the sandbox (the worker-thread one
 * before it, for a before/after figure).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { MappingSandbox, SandboxLimits } from '../../core/src/transformations/sandbox.ts';
import { ms, summarize, timeRuns } from './stats.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '500' }, module: { type: 'string' } } });
const runs = Number(values.runs);
const path = values.module ? pathToFileURL(resolve(values.module)).href : '../../core/src/transformations/sandbox.ts';
const mod = (await import(path)) as { MappingSandbox: new (limits: SandboxLimits) => MappingSandbox; DEFAULT_LIMITS: SandboxLimits };

const sandbox = new mod.MappingSandbox(mod.DEFAULT_LIMITS);
const started = performance.now();
await sandbox.evaluate('1', {});
const first = performance.now() - started;

const records = Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'], price: i / 10 }));
const cases: Array<[string, string, Record<string, unknown>]> = [
  ['trivial ({"n": x + 1})', '{"n": x + 1}', { x: 1 }],
  ['1,000 records in and out', '{"out": items.{"id": id, "label": $uppercase(name)}}', { items: records }],
];
console.log(`first evaluation (starts an evaluator): ${ms(first)} ms`);
for (const [label, mapping, input] of cases) {
  const s = summarize(await timeRuns(runs, 50, () => sandbox.evaluate(mapping, input).then(() => undefined)));
  console.log(`${label}: p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms, max ${ms(s.max)} ms (n=${s.n})`);
}
sandbox.close();
