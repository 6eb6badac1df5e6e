/**
 * Recording mode for the contract check: when `CONTRACT_RECORD_DIR` is set
 * (scripts/run-tests.mjs sets it), every core and gateway the test helpers
 * start appends each answer it makes (method, route template, status,
 * content type, body) to `<dir>/<pid>.ndjson`; test/contract/check-answers.ts
 * checks them all against the OpenAPI documents once the suites are done.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnswerTap } from '../../kernel/http/observe-answers.ts';

export function contractTap(): AnswerTap | null {
  const dir = process.env['CONTRACT_RECORD_DIR'];
  if (!dir) return null;
  const file = join(dir, `${process.pid}.ndjson`);
  // Synchronous, so a test that ends right after an answer cannot lose its line.
  return (answer) => appendFileSync(file, `${JSON.stringify(answer)}\n`);
}
