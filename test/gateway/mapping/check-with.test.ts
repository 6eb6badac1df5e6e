/**
 * Hatch arguments checked at load: what is written literally in `with` must
 * fit the hatch's schema; a value that is one placeholder is filled per call,
 * so its type is the hatch's business at run time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkArguments } from '../../../gateway/src/mapping/check-with.ts';
import { hatchRegistry } from '../../../gateway/src/mapping/hatches/index.ts';

const pcList = hatchRegistry.get('pcList')!;

test('a whole placeholder stands for any type, a literal of the wrong type does not', () => {
  assert.deepEqual(checkArguments(pcList, { kind: 'accounts', id: '{params.accountId}', field: 'memberOf', op: 'set', items: '{body}' }), []);
  assert.deepEqual(checkArguments(pcList, { kind: 'accounts', id: 7, field: 'memberOf', op: 'set', items: '{body}' }), [{ path: '.id', reason: 'must be string' }]);
  // Text around a placeholder makes a string, so it is checked as one.
  assert.deepEqual(checkArguments(pcList, { kind: 'users-{params.x}', id: 'a', field: 'memberOf', op: 'set', items: [] }), [{ path: '.kind', reason: 'must be one of accounts, groups, roles' }]);
});

test('which arguments are required may depend on another argument (pcList: items to set, item to add or remove)', () => {
  assert.deepEqual(checkArguments(pcList, { kind: 'roles', id: 'r', field: 'allowedViews', op: 'add', items: [] }), [{ path: '.item', reason: 'is required by pcList' }]);
  assert.deepEqual(checkArguments(pcList, { kind: 'roles', id: 'r', field: 'allowedViews', op: 'set' }), [{ path: '.items', reason: 'is required by pcList' }]);
});

test('a problem inside a nested argument is located there', () => {
  const weSearch = hatchRegistry.get('weSearch')!;
  assert.deepEqual(checkArguments(weSearch, { type: 'jobs', query: {}, answer: 'list', fixed: { include: ['name', 3] } }), [{ path: '.fixed.include[1]', reason: 'must be string' }]);
});

test('every hatch declares its arguments: a name it does not take is refused, and with is an object', () => {
  for (const hatch of hatchRegistry.values()) {
    const problems = checkArguments(hatch, { notAnArgument: 1 });
    assert.ok(problems.some((p) => p.path === '.notAnArgument' && p.reason.startsWith(`is not an argument of ${hatch.name}`)), `${hatch.name}: ${JSON.stringify(problems)}`);
    assert.deepEqual(checkArguments(hatch, ['x']), [{ path: '', reason: 'must be object' }], hatch.name);
  }
});
