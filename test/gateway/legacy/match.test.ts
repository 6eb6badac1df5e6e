/**
 * The legacy matcher finds operations the way the router it replaced did:
 * literal segments in any case, an optional trailing slash, `:name` one
 * decoded segment, HEAD by GET operations; anything else is not legacy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyMatcher } from '../../../gateway/src/legacy/match.ts';
import type { Entry } from '../../../gateway/src/mapping/types.ts';

function entry(id: string, method: Entry['legacy']['method'], path: string): Entry {
  return { id, operation: id, source: 'workflow-engine', legacy: { method, path }, deprecated: '2021.2', removed: '2022.2', replacement: null, steps: [] };
}

const match = legacyMatcher([
  entry('getJob', 'GET', '/workflow_engine/getJob/:job_id'),
  entry('cancelJob', 'POST', '/workflow_engine/cancelJob'),
  entry('roleView', 'PUT', '/roles/:roleId/allowedViews/:viewProvenance/:viewPath'),
]);

test('a path parameter is one segment, percent-decoded; malformed encoding is kept as written', () => {
  assert.deepEqual(match('GET', '/workflow_engine/getJob/a%20b'), { entry: match('GET', '/workflow_engine/getJob/x')!.entry, params: { job_id: 'a b' } });
  assert.deepEqual(match('GET', '/workflow_engine/getJob/%E0%A4%A')?.params, { job_id: '%E0%A4%A' });
  assert.equal(match('GET', '/workflow_engine/getJob/a/b'), null, 'two segments are not one parameter');
  assert.equal(match('GET', '/workflow_engine/getJob/'), null, 'an empty parameter matches nothing');
  assert.deepEqual(match('PUT', '/roles/r1/allowedViews/Ops/jobs%2Flist')?.params, { roleId: 'r1', viewProvenance: 'Ops', viewPath: 'jobs/list' });
});

test('literal segments match in any case and one trailing slash is allowed', () => {
  assert.equal(match('POST', '/Workflow_Engine/CANCELJOB')?.entry.id, 'cancelJob');
  assert.equal(match('POST', '/workflow_engine/cancelJob/')?.entry.id, 'cancelJob');
  assert.equal(match('POST', '/workflow_engine/cancelJob//'), null);
});

test('HEAD is served by the GET operation; a method the path does not take is not legacy', () => {
  assert.equal(match('HEAD', '/workflow_engine/getJob/1')?.entry.id, 'getJob');
  assert.equal(match('DELETE', '/workflow_engine/getJob/1'), null);
  assert.equal(match('GET', '/workflow_engine/cancelJob'), null);
  assert.equal(match('GET', '/operations-manager/jobs'), null);
  assert.equal(match('GET', '/'), null);
});
