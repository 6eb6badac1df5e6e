/**
 * Releases and the release calendar (kernel/releases.ts), the one rule both
 * services use: numeric order, and text that is not a release refused by the
 * core and the gateway alike (the core's copy used to read `2022` as 2022.0
 * and `x.y` as equal to everything).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as gatewayReleases from '../../gateway/src/releases.ts';
import { compareReleases, isRelease, loadCalendar } from '../../kernel/index.ts';

test('releases compare numerically, year then number', () => {
  assert.ok(compareReleases('2022.1', '2022.2') < 0);
  assert.ok(compareReleases('2022.10', '2022.2') > 0);
  assert.ok(compareReleases('2023.1', '2022.2') > 0);
  assert.ok(compareReleases('2021.2', '2022.1') < 0);
  assert.equal(compareReleases('2022.2', '2022.2'), 0);
});

test('text that is not a release is refused by name, not ordered as if it were one', () => {
  for (const bad of ['2022', 'x.y', '2022.1.0', '', ' 2022.1', '22.1']) {
    assert.equal(isRelease(bad), false, bad);
    assert.throws(() => compareReleases(bad, '2022.1'), (err: Error) => err.message.startsWith(`not a release: ${JSON.stringify(bad)}`), bad);
    assert.throws(() => compareReleases('2022.1', bad), /not a release/, bad);
  }
});

test('the gateway compares and dates releases with the kernel functions themselves', () => {
  assert.equal(gatewayReleases.compareReleases, compareReleases);
  assert.equal(gatewayReleases.isRelease, isRelease);
  assert.equal(gatewayReleases.loadCalendar, loadCalendar);
});

test('a calendar dates each release at midnight UTC and names a release it lacks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'releases-'));
  const file = join(dir, 'releases.json');
  writeFileSync(file, JSON.stringify({ releases: { '2021.2': '2021-10-29' } }));
  const calendar = loadCalendar(file);
  assert.equal(calendar.has('2021.2'), true);
  assert.equal(calendar.dateOf('2021.2').toISOString(), '2021-10-29T00:00:00.000Z');
  assert.equal(calendar.has('2022.1'), false);
  assert.throws(() => calendar.dateOf('2022.1'), /no date for 2022\.1/);
});

test('a calendar entry that is not a release or not a date stops the load, naming the entry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'releases-'));
  for (const [release, day] of [['2021', '2021-10-29'], ['2021.2', 'soon']]) {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ releases: { [release!]: day } }));
    assert.throws(() => loadCalendar(file), new RegExp(`releases\\.${release!.replace('.', '\\.')} must map a release`));
  }
});
