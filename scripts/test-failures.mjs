// A test reporter that prints nothing until the run ends, then lists every
// failed test with its file and first lines of error. CI keeps only the end
// of a long log; without this a failure deep in the TAP stream is invisible.
// Suites that failed only because a test inside them failed are left out.

/** The reporters `npm test` uses in a log (CI): TAP, then this summary, both to stdout. */
export const LOG_REPORTERS = ['--test-reporter=tap', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-failures.mjs', '--test-reporter-destination=stdout'];

function firstLines(error) {
  const cause = error?.cause ?? error;
  const text = cause instanceof Error ? cause.stack ?? cause.message : String(cause);
  return text.split('\n').slice(0, 12).map((line) => `    ${line}`).join('\n');
}

export default async function* failures(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    if (details?.error?.failureType === 'subtestsFailed') continue;
    failed.push({ name, file, error: details?.error });
  }
  if (failed.length === 0) return;
  yield `\n# ${failed.length} failed:\n`;
  for (const f of failed) {
    yield `\n# FAILED ${f.name}\n#   in ${f.file ?? 'an unknown file'}\n${firstLines(f.error)}\n`;
  }
}
