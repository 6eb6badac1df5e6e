/**
 * What the gateway decides about a legacy call before it runs anything
 * (gateway/src/legacy/policy.ts), with no server: removal at the configured
 * release, brownout windows as half-open intervals, the deprecation header
 * values, the refusal's words, and which credentials a caller sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { credentialsOf, deprecationValues, goneMessage, isGone, servingOf } from '../../../gateway/src/legacy/policy.ts';
import type { Brownout } from '../../../gateway/src/legacy/policy.ts';
import type { Entry } from '../../../gateway/src/mapping/types.ts';
import { CALENDAR_FILE } from '../../../gateway/src/app.ts';
import { loadCalendar } from '../../../gateway/src/releases.ts';

const entry: Entry = {
  id: 'we.getJob',
  operation: 'getJob',
  source: 'workflow-engine',
  legacy: { method: 'GET', path: '/workflow_engine/getJob/:id' },
  deprecated: '2021.1',
  removed: '2023.1',
  replacement: { method: 'GET', path: '/operations-manager/jobs/:id' },
  steps: [{ unavailable: 'not used here' }],
};
const platformCore: Entry = { ...entry, id: 'pc.getAccounts', operation: 'GET /authorization/accounts', source: 'platform-core', legacy: { method: 'GET', path: '/authorization/accounts' }, replacement: null };

const window = (operations: string[]): Brownout => ({ operations, from: '2022-06-01T10:00:00Z', until: '2022-06-01T11:00:00Z' });
const at = (iso: string): number => Date.parse(iso);

test('an operation is removed at its removal release and after it, never before', () => {
  assert.equal(servingOf(entry, '2022.2', []).removed, false);
  assert.equal(servingOf(entry, '2023.1', []).removed, true);
  assert.equal(servingOf(entry, '2023.2', []).removed, true);
  // Releases compare as numbers: 2022.10 comes after 2022.2, not before it.
  assert.equal(servingOf({ ...entry, removed: '2022.10' }, '2022.2', []).removed, false);
  assert.equal(isGone(servingOf(entry, '2023.1', []), 0), true);
});

test('a brownout window refuses from its start up to, not including, its end', () => {
  const serving = servingOf(entry, '2022.2', [window(['we.getJob'])]);
  assert.equal(isGone(serving, at('2022-06-01T09:59:59.999Z')), false);
  assert.equal(isGone(serving, at('2022-06-01T10:00:00Z')), true);
  assert.equal(isGone(serving, at('2022-06-01T10:59:59.999Z')), true);
  assert.equal(isGone(serving, at('2022-06-01T11:00:00Z')), false);
});

test('a brownout names an operation by its id, by its name or by *, and no other operation', () => {
  const inside = at('2022-06-01T10:30:00Z');
  for (const names of [['we.getJob'], ['getJob'], ['*']]) assert.equal(isGone(servingOf(entry, '2022.2', [window(names)]), inside), true, names.join());
  for (const names of [['getJobs'], ['we.getjob'], []]) assert.equal(isGone(servingOf(entry, '2022.2', [window(names)]), inside), false, names.join());
});

test('the deprecation headers are read from the release calendar: an epoch-seconds date and an HTTP date', () => {
  const { deprecation, sunset } = deprecationValues(entry, loadCalendar(CALENDAR_FILE));
  assert.equal(deprecation, `@${Date.parse('2021-04-30T00:00:00Z') / 1000}`);
  assert.equal(sunset, 'Fri, 28 Apr 2023 00:00:00 GMT');
});

test('a refusal names the operation, its route, the release that removed it and what to call instead', () => {
  assert.equal(goneMessage(entry), 'getJob (GET /workflow_engine/getJob/:id) was removed in release 2023.1; use GET /operations-manager/jobs/:id instead');
  // A platform-core operation is named by its route, once; one without a successor says so.
  assert.equal(goneMessage(platformCore), 'GET /authorization/accounts was removed in release 2023.1; it has no replacement');
});

test('credentials are taken as sent: the header, the cookie and the token parameter, an empty header being none', () => {
  assert.deepEqual(credentialsOf({ authorization: 'Bearer a', cookie: 'token=b' }, new URLSearchParams('token=c')), { authorization: 'Bearer a', cookie: 'token=b', token: 'c' });
  assert.deepEqual(credentialsOf({ authorization: '', cookie: '' }, new URLSearchParams()), { authorization: undefined, cookie: undefined, token: undefined });
  // An empty token parameter is still a token the caller sent (the core refuses it by name).
  assert.equal(credentialsOf({}, new URLSearchParams('token=')).token, '');
});
