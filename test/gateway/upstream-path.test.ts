/**
 * Which paths could leave CORE_URL's base path once a proxy decodes and
 * resolves them (gateway/src/upstream-path.ts): dot segments however they are
 * written, and nothing else; what passes is put under the base path as it is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../kernel/errors.ts';
import { hasHiddenDotSegment, upstreamPath } from '../../gateway/src/upstream-path.ts';

test('a dot segment is found however it is written: plain, percent-encoded, with encoded slashes or backslashes, encoded twice', () => {
  for (const path of ['/..', '/a/../b', '/a/./b', '/a/..', '/%2e%2e/b', '/%2E./b', '/.%2e', '/a/..%2fb', '/a/..%2Fb', '/a\\..\\b', '/a/..%5cb', '/%252e%252e/b', '/a%2f..%2f..%2fb', '/%25252e%25252e/b']) {
    assert.equal(hasHiddenDotSegment(path), true, path);
  }
});

test('names that only look like dots, and slashes that are data, pass', () => {
  for (const path of ['/', '/whoami', '/a.b/c', '/.well-known/x', '/...', '/a/..b', '/a/b..', '/workflows/a%2Fb', '/x/%2520', '/bad%zzescape', '/a%2e']) {
    assert.equal(hasHiddenDotSegment(path), false, path);
  }
});

test('a path is put under the base path as written, query and all; an escape or a target that is not a path is a 400', () => {
  assert.equal(upstreamPath('/iap', '/whoami?token=a%2F..'), '/iap/whoami?token=a%2F..', 'a query is data');
  assert.equal(upstreamPath('', '/a%2Fb'), '/a%2Fb');
  for (const target of ['/iap/../x', 'http://elsewhere/x', '*']) {
    assert.throws(() => upstreamPath('/iap', target), (err: unknown) => err instanceof AppError && err.status === 400 && err.code === 'BAD_REQUEST', target);
  }
});
