/**
 * The docs page's files (kernel/openapi/docs-page.ts) are named by the URL:
 * a name that is a key of every object must not read the prototype, and
 * then the disk (found by the gateway routes fuzz: `GET /docs/constructor`
 * answered 500).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DOCS_ASSETS, docsAsset } from '../../../kernel/openapi/docs-page.ts';

test('a name inherited by every object is no asset', () => {
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) assert.equal(docsAsset(name), null, name);
});

test('every listed asset is served with its type', () => {
  for (const name of DOCS_ASSETS) {
    const asset = docsAsset(name);
    assert.ok(asset !== null && asset.body.length > 0 && asset.type !== '', name);
  }
});
