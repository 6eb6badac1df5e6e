/**
 * `npm run audit -- --target 2022.2`: the migration audit report on the
 * command line, from the gateway's audit store (as configured, or the SQLite
 * file in --data-dir), or offline from an access log of JSON lines, to see
 * what would break before the gateway is put in front.
 * Exit codes: 0 report written, 1 the report could not be made, 2 bad arguments.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/load.ts';
import type { AppConfig } from '../config/load.ts';
import { readArchiveState } from '../kernel/archive/lease.ts';
import { openStore } from '../kernel/store/open.ts';
import { SqliteStore } from '../kernel/store/sqlite/store.ts';
import type { Store } from '../kernel/store/types.ts';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../gateway/src/app.ts';
import { ReportBuilder } from '../gateway/src/audit/report.ts';
import type { Report } from '../gateway/src/audit/report.ts';
import { renderCsv } from '../gateway/src/audit/report-csv.ts';
import { renderHtml } from '../gateway/src/audit/report-html.ts';
import { eachLogCall } from '../gateway/src/audit/report-log.ts';
import { describeProblems, readParams } from '../gateway/src/audit/report-params.ts';
import type { Format } from '../gateway/src/audit/report-params.ts';
import { eachStoredCall } from '../gateway/src/audit/report-store.ts';
import { plural, renderText } from '../gateway/src/audit/report-text.ts';
import { hatchRegistry } from '../gateway/src/mapping/hatches/index.ts';
import { loadMappings } from '../gateway/src/mapping/load.ts';
import { readServeUntil } from '../gateway/src/legacy/serve-until.ts';
import { loadCalendar } from '../gateway/src/releases.ts';
import { GATEWAY_COLLECTIONS } from '../gateway/src/audit/collection.ts';

const USAGE = `usage: npm run audit -- [--target RELEASE] [--format text|json|csv|html] [--since DATE] [--until DATE]
                        [--data-dir DIR | --from-log FILE] [--out FILE]

  --target RELEASE  the release to check against, like 2022.2 (default: the release after the configured one)
  --format FORMAT   text (default), json, csv or html
  --since DATE      only calls at or after DATE (2024-05-01 or 2024-05-01T12:00:00Z), UTC unless an offset is given
  --until DATE      only calls before DATE
  --data-dir DIR    read the gateway's audit store DIR/gateway.sqlite (default: the configured store)
  --from-log FILE   read an access log of JSON lines {time?, method, path, status, client?} instead of the store
  --out FILE        write the report to FILE instead of standard output
`;

const FORMATS: readonly Format[] = ['text', 'json', 'csv', 'html'];

function usage(problem: string): never {
  process.stderr.write(`audit: ${problem}\n\n${USAGE}`);
  process.exit(2);
}

function fail(problem: string): never {
  process.stderr.write(`audit: ${problem}\n`);
  process.exit(1);
}

function render(report: Report, format: Format): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  if (format === 'csv') return renderCsv(report);
  if (format === 'html') return renderHtml(report);
  return renderText(report);
}

async function openAuditStore(config: Readonly<AppConfig>, dataDir: string | undefined): Promise<Store> {
  // The gateway's own store, as gateway/src/main.ts opens it: GATEWAY_MONGO_URL, never the core's MONGO_URL.
  if (config.gateway.mongoUrl && dataDir === undefined) return openStore({ ...config, mongoUrl: config.gateway.mongoUrl }, GATEWAY_COLLECTIONS);
  const dir = resolve(dataDir ?? config.dataDir);
  const file = join(dir, 'gateway.sqlite');
  // Opening would create an empty store; an operator who mistyped the directory should hear so instead.
  if (!existsSync(file)) fail(`no audit store at ${file}: the gateway creates it when it starts; give --data-dir, or --from-log to read an access log`);
  return SqliteStore.open({ dataDir: dir, fileName: 'gateway.sqlite', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      strict: true,
      allowPositionals: false,
      options: {
        target: { type: 'string' }, format: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' },
        'data-dir': { type: 'string' }, 'from-log': { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    usage((err as Error).message);
  }
  if (values['help']) {
    process.stdout.write(USAGE);
    return;
  }
  const arg = (name: string): string | undefined => values[name] as string | undefined;
  const dataDir = arg('data-dir');
  const fromLog = arg('from-log');
  if (dataDir !== undefined && fromLog !== undefined) usage('--data-dir and --from-log name two different sources; give one');
  if (fromLog !== undefined && !existsSync(fromLog)) usage(`--from-log ${fromLog}: no such file`);

  let config: Readonly<AppConfig>;
  try {
    config = await loadConfig();
  } catch (err) {
    fail(err instanceof ConfigError ? err.problems.join('\n') : String(err));
  }
  const release = config.platform.release;
  const calendar = loadCalendar(CALENDAR_FILE);
  const entries = loadMappings(MAPPINGS_DIR, calendar, hatchRegistry);
  // What breaks follows the gateway's own serving policy, refused here as the gateway refuses it at start.
  const serveUntil = readServeUntil(config.gateway.serveUntil, entries, calendar);
  if (!serveUntil.ok) fail(serveUntil.problems.join('\n'));
  const parsed = readParams({ format: arg('format'), target: arg('target'), since: arg('since'), until: arg('until') }, { formats: FORMATS, defaultFormat: 'text', calendar, release });
  if (!parsed.ok) usage(describeProblems(parsed.problems.map((p) => ({ ...p, parameter: `--${p.parameter}` }))));
  const { format, target, since, until } = parsed.params;

  const builder = new ReportBuilder({ entries, release, target, since, until, calendar, endOf: serveUntil.endOf });
  let historyBegins: number | null = null;
  if (fromLog !== undefined) {
    const read = await eachLogCall(fromLog, entries, (call) => builder.add(call));
    process.stderr.write(`audit: ${fromLog}: ${plural(read.lines, 'line')}, ${plural(read.calls, 'legacy call')}, ${plural(read.ignored, 'other call')} ignored, ${read.invalid} unreadable\n`);
    for (const problem of read.problems) process.stderr.write(`audit:   ${problem}\n`);
  } else {
    const store = await openAuditStore(config, dataDir);
    try {
      const read = await eachStoredCall(store, { since, until }, (call) => builder.add(call));
      if (read.skipped > 0) process.stderr.write(`audit: ${plural(read.skipped, 'stored document')} could not be read as audit records and were left out\n`);
      historyBegins = (await readArchiveState(store, 'audit'))?.archivedBefore ?? null;
    } finally {
      await store.close();
    }
  }
  const out = render(builder.finish(Date.now(), historyBegins), format);
  const file = arg('out');
  if (file !== undefined) await writeFile(file, out);
  else process.stdout.write(out);
}

await main();
