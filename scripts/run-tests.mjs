// Runs every test/**/*.test.ts with node's test runner through tsx.
// Node 20 does not expand globs itself, so the file list is built here.
// With MONGO_URL the suites run on MongoDB (test/helpers/stores.ts); the
// server is tried once first, so an unreachable one is one clear message
// instead of a failure in every suite. Without it, that is said once here.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { LOG_REPORTERS } from './test-failures.mjs';

function collect(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...collect(full));
    else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

/** Null when the server answers, else why not (the password never shown). */
async function mongoProblem(url) {
  const { MongoClient } = await import('mongodb');
  const hidden = (text) => text.replace(/\/\/[^@/]*@/g, '//***@');
  let client;
  try {
    client = new MongoClient(url, { serverSelectionTimeoutMS: 3000 });
    await client.connect();
    await client.db('admin').command({ ping: 1 });
    return null;
  } catch (err) {
    return hidden(`MONGO_URL ${url}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await client?.close().catch(() => undefined);
  }
}

const filter = process.argv.slice(2);
const files = collect('test').filter((f) => filter.length === 0 || filter.some((p) => f.includes(p))).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) {
  const problem = await mongoProblem(mongoUrl);
  if (problem) {
    console.error(`The suites were not run: the MongoDB server cannot be reached.\n${problem}`);
    process.exit(1);
  }
  console.log('MONGO_URL is set: the suites run on MongoDB, each store in an iap_test_* database dropped at the end');
} else {
  console.log('MONGO_URL is not set: every suite runs on the embedded SQLite store; the MongoDB variants are skipped');
}
// Every answer the suites' cores and gateways make is recorded (test/helpers/contract.ts) and, once they
// are done, checked against the OpenAPI documents: an answer that drifts from its description fails the run.
const recorded = mkdtempSync(join(tmpdir(), 'iap-contract-'));
// A hung test fails after five minutes instead of holding CI until its own limit.
// A terminal gets node's spec reporter, which ends with the failures. A log (CI) gets TAP, as node gives it by
// default there, and the failures listed again at the very end, where a log cut to its last pages still shows them.
const reporters = process.stdout.isTTY
  ? ['--test-reporter=spec', '--test-reporter-destination=stdout']
  : LOG_REPORTERS;
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-timeout=300000', ...reporters, ...files], { stdio: 'inherit', env: { ...process.env, CONTRACT_RECORD_DIR: recorded } });
const contract = spawnSync(process.execPath, ['--import', 'tsx', 'test/contract/check-answers.ts', recorded], { stdio: 'inherit' });
rmSync(recorded, { recursive: true, force: true });
process.exit(result.status === 0 && contract.status === 0 ? 0 : 1);
