/**
 * The HTML report as a browser draws it: Debian's headless Chromium takes a
 * screenshot of the page opened from a file (offline, as an operator would
 * open a saved report), and the PNG is read back here: signature, size, and
 * enough colour to be a page with a chart and badges, not a blank one.
 * Skipped, saying why, when Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReport } from '../../../gateway/src/audit/report.ts';
import type { Call } from '../../../gateway/src/audit/report.ts';
import { renderHtml } from '../../../gateway/src/audit/report-html.ts';
import type { Entry } from '../../../gateway/src/mapping/types.ts';
import { chromiumMissing, decodePng, findChromium } from '../../helpers/chromium.ts';

const WIDTH = 1280;
const HEIGHT = 900;

const chromium = findChromium();
const skip = chromiumMissing();
if (skip) console.log(`report rendering test skipped: ${skip}`);

function screenshot(binary: string, htmlFile: string, pngFile: string, profile: string): Promise<{ code: number | null; stderr: string }> {
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, `--window-size=${WIDTH},${HEIGHT}`, `--screenshot=${pngFile}`, `file://${htmlFile}`];
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** Two weeks of calls from five clients over four operations, one removed already, one at the target, the rest later. */
function sampleReport(): string {
  const day = 86_400_000;
  const start = Date.parse('2024-05-01T00:00:00Z');
  const ops = [
    { entry: 'we.getJob', operation: 'getJob', removed: '2022.2', replacement: 'GET /operations-manager/jobs/:id' },
    { entry: 'we.cancelJob', operation: 'cancelJob', removed: '2022.2', replacement: 'POST /operations-manager/jobs/cancel' },
    { entry: 'pc.getActiveSessions', operation: 'getActiveSessions', removed: '2022.1', replacement: null },
    { entry: 'we.searchJobs', operation: 'searchJobs', removed: '2023.1', replacement: 'GET /operations-manager/jobs' },
  ];
  const clients: Array<Call['client']> = [
    { account: 'nightly-cleanup', clientId: null, address: '10.0.0.5', userAgent: 'python-requests/2.31' },
    { account: 'alice', clientId: null, address: '10.0.0.6', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' },
    { account: null, clientId: 'svc-reporting', address: '10.0.0.7', userAgent: 'reporting/3.2' },
    { account: null, clientId: null, address: '192.0.2.44', userAgent: 'curl/8.5.0' },
    { account: 'etl <robot> & co', clientId: null, address: '10.0.0.8', userAgent: 'etl/1' },
  ];
  const calls: Call[] = [];
  for (let d = 0; d < 14; d++) {
    ops.forEach((op, o) => {
      const n = ((d * 7 + o * 5) % 9) + (o === 0 ? 6 : 1);
      for (let i = 0; i < n; i++) {
        calls.push({ time: start + d * day + i * 3_600_000, operation: op.operation, entry: op.entry, client: clients[op.removed === '2022.1' ? i % 2 : (i + o) % clients.length]!, outcome: op.removed === '2022.1' ? 'refused' : i % 5 === 0 ? 'failed' : 'rewritten', deprecated: '2021.2', removed: op.removed, replacement: op.replacement });
      }
    });
  }
  const entries: Entry[] = ops.map((op) => ({
    id: op.entry,
    operation: op.operation,
    source: 'workflow-engine',
    legacy: { method: op.operation === 'cancelJob' ? 'POST' : 'GET', path: `/workflow_engine/${op.operation}${op.operation === 'getJob' ? '/:job_id' : ''}` },
    deprecated: '2021.2',
    removed: op.removed,
    replacement: op.replacement ? { method: op.replacement.split(' ')[0] as 'GET', path: op.replacement.split(' ')[1]! } : null,
    steps: [{ answer: null }],
  }));
  return renderHtml(buildReport(calls, { entries, release: '2022.1', target: '2022.2', since: null, until: null }, Date.parse('2024-05-15T09:00:00Z')));
}

test('the HTML report renders in headless Chromium as a readable page of the requested size', { skip, timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-render-'));
  try {
    const html = join(dir, 'report.html');
    const png = join(dir, 'report.png');
    writeFileSync(html, sampleReport());
    const run = await screenshot(chromium!, html, png, join(dir, 'profile'));
    assert.equal(run.code, 0, `chromium failed: ${run.stderr}`);
    assert.ok(existsSync(png), `no screenshot written: ${run.stderr}`);
    // To look at it: AUDIT_SCREENSHOT=/tmp/report.png node scripts/run-tests.mjs report-render
    if (process.env['AUDIT_SCREENSHOT']) copyFileSync(png, process.env['AUDIT_SCREENSHOT']);
    const image = decodePng(readFileSync(png));
    assert.deepEqual([image.width, image.height], [WIDTH, HEIGHT]);

    const colours = new Set<number>();
    let ink = 0;
    let samples = 0;
    const near = (r: number, g: number, b: number, rgb: number) => Math.abs(r - (rgb >> 16)) <= 8 && Math.abs(g - ((rgb >> 8) & 0xff)) <= 8 && Math.abs(b - (rgb & 0xff)) <= 8;
    const found = { chartBlue: 0, chartOrange: 0, brokenBadge: 0, targetBadge: 0 };
    for (let y = 0; y < image.height; y += 3) {
      for (let x = 0; x < image.width; x += 3) {
        const i = (y * image.width + x) * image.channels;
        const [r, g, b] = [image.pixels[i]!, image.pixels[i + 1]!, image.pixels[i + 2]!];
        samples += 1;
        colours.add((r << 16) | (g << 8) | b);
        if (r + g + b < 3 * 235) ink += 1;
        if (near(r, g, b, 0x0072b2)) found.chartBlue += 1;
        if (near(r, g, b, 0xe69f00)) found.chartOrange += 1;
        if (near(r, g, b, 0xffebe9)) found.brokenBadge += 1;
        if (near(r, g, b, 0xfff8c5)) found.targetBadge += 1;
      }
    }
    assert.ok(colours.size >= 40, `only ${colours.size} distinct colours: a blank or unstyled page`);
    assert.ok(ink / samples > 0.03 && ink / samples < 0.6, `${((100 * ink) / samples).toFixed(1)}% of the page is ink`);
    for (const [what, count] of Object.entries(found)) assert.ok(count >= 20, `${what}: ${count} sampled pixels; the chart or the summary cards did not draw`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
