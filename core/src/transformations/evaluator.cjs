/**
 * One evaluator process of the mapping sandbox (sandbox.ts starts it): it
 * evaluates the JSONata mappings it is sent over IPC, one at a time, and
 * answers each with its result as JSON text or the error. Plain JavaScript,
 * so starting it needs no TypeScript loader. Its heap is capped by the
 * parent's --max-old-space-size: past it V8 aborts this process, and only it.
 */
'use strict';
const { Worker } = require('node:worker_threads');
const jsonata = require('jsonata');

const limits = JSON.parse(process.argv[2]);
const compiled = new Map();

// Ctrl-C reaches every process of the terminal's group: the parent decides when evaluators end.
process.on('SIGINT', () => undefined);
// The parent gone (even killed), nothing is left to answer.
process.on('disconnect', () => process.exit(0));
// While this process is stuck in one call (a regular expression that never returns) it sees no
// 'disconnect', and with its parent killed nothing else would end it: a thread of its own checks.
new Worker(
  `const { workerData } = require('node:worker_threads');
  setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 500);`,
  { eval: true, workerData: process.ppid, resourceLimits: { maxOldGenerationSizeMb: 8 } },
).unref();

process.on('message', async (job) => {
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
  process.send(reply);
});
