/** config/README.md's table of keys is the one config/keys.ts makes (config/readme.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Joi from 'joi';
import { key } from '../../config/declare.ts';
import { CONFIG_KEYS } from '../../config/keys.ts';
import { README_FILE, TABLE_END, TABLE_START, keysTable, withTable } from '../../config/readme.ts';

const readme = readFileSync(README_FILE, 'utf8');

test('the table of keys in config/README.md is current', () => {
  assert.equal(readme, withTable(readme), 'config/README.md is stale: run node --import tsx config/readme.ts');
});

test('a key declared without regenerating the README makes it stale', () => {
  const added = { ...CONFIG_KEYS, 'http.keepAliveMs': key<number>({ env: 'HTTP_KEEP_ALIVE_MS', default: 65000, example: 5000, schema: Joi.number(), description: 'Idle keep-alive.' }) };
  assert.notEqual(withTable(readme, keysTable(added)), readme);
  assert.ok(keysTable(added).includes('| `http.keepAliveMs` | `HTTP_KEEP_ALIVE_MS` | `65000` | Idle keep-alive. |'));
});

test('each key is one row naming its variable, its default and its description, in declaration order', () => {
  const rows = readme.split('\n').filter((line) => line.startsWith('| `'));
  assert.deepEqual(rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1]), Object.keys(CONFIG_KEYS));
  assert.ok(rows.includes('| `http.trustedProxies` | `TRUSTED_PROXIES` (comma-separated) | `["127.0.0.1", "::1"]` | ' + CONFIG_KEYS['http.trustedProxies'].description + ' |'));
  assert.ok(rows.some((row) => row.startsWith('| `gateway.brownouts` | (file only) | `[]` |')));
  assert.ok(rows.some((row) => row.startsWith('| `core.host` | `CORE_HOST` | `null` |')));
});

test('a | or a line break in a description cannot break the table', () => {
  const table = keysTable({ odd: key<string>({ default: 'a|b', schema: Joi.string(), description: 'One "x"|"y"\n  two.' }) });
  assert.ok(table.includes('| `odd` | (file only) | `a\\|b` | One "x"\\|"y" two. |'), table);
});

test('a README without its markers is refused rather than written over', () => {
  assert.throws(() => withTable('# Configuration\n'), /lost its table markers/);
  assert.throws(() => withTable(`${TABLE_END}\n${TABLE_START}`), /lost its table markers/);
});
