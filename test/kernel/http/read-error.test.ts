/**
 * readError is renderError's inverse: whatever surface shaped an error, a
 * service reading the answer gets back its code, its message and its details,
 * and the reasons a message does not state are joined to it once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError, ValidationError } from '../../../kernel/errors.ts';
import { readError, renderError } from '../../../kernel/http/error-handler.ts';
import type { ResponseShape } from '../../../kernel/http/route.ts';

const SHAPES: readonly ResponseShape[] = ['operations-manager', 'plain', 'oauth'];

test('an error rendered in any surface reads back as its code (from X-Error-Code) and its message', () => {
  for (const err of [new AppError('NOT_FOUND', 'Job 1 not found'), new AppError('CONFLICT', 'Name taken'), new AppError(429, 'TOO_MANY_REQUESTS', 'Wait')]) {
    for (const shape of SHAPES) {
      const read = readError(err.status, err.code, renderError(shape, err));
      assert.equal(read.code, err.code, shape);
      assert.equal(read.message, err.message, shape);
    }
  }
});

test('details come back from the envelope and from the plain shape, and reasons the message leaves out are joined to it', () => {
  const err = new ValidationError('Invalid body', [{ parameter: 'name', message: 'is required' }, { parameter: 'limit', message: 'must be a number' }]);
  for (const shape of ['operations-manager', 'plain'] as const) {
    const read = readError(400, undefined, renderError(shape, err));
    assert.deepEqual(read.details, err.details, shape);
    assert.equal(read.message, 'Invalid body (name: is required; limit: must be a number)', shape);
  }
  // A reason the message states already is not said twice.
  const stated = readError(400, undefined, { message: 'Invalid body: name is required', metadata: { errors: [{ parameter: 'name', message: 'is required' }, { parameter: 'x', message: 'is unknown' }] } });
  assert.equal(stated.message, 'Invalid body: name is required (x: is unknown)');
});

test('the code is the header\'s when it names a known code, else the body\'s, else none', () => {
  assert.equal(readError(404, undefined, { message: 'm', code: 'NOT_FOUND', details: [] }).code, 'NOT_FOUND');
  assert.equal(readError(404, 'FORBIDDEN', { message: 'm', code: 'NOT_FOUND', details: [] }).code, 'FORBIDDEN');
  assert.equal(readError(404, 'NO_SUCH_CODE', { message: 'm' }).code, null);
  // A code from data never reaches a prototype: inherited names are not codes.
  assert.equal(readError(500, 'constructor', { message: 'm', code: '__proto__' }).code, null);
});

test('answers that are not error shapes still read as something to show', () => {
  assert.equal(readError(502, undefined, 'Bad gateway').message, 'Bad gateway');
  assert.equal(readError(500, undefined, { unexpected: true }).message, '{"unexpected":true}');
  assert.equal(readError(503, undefined, null).message, 'The answer had status 503 and no message');
  assert.equal(readError(503, undefined, '').message, 'The answer had status 503 and no message');
  assert.deepEqual(readError(400, undefined, { message: 'x', metadata: { errors: 'not a list' } }).details, []);
});
