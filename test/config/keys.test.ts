/** Every key is declared once (config/keys.ts), and each thing made from the declaration agrees with it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Joi from 'joi';
import { checkDeclaration, declarationProblems, defaultsOf, envVarsOf, key, schemaOf } from '../../config/declare.ts';
import type { Declaration, KeySpec } from '../../config/declare.ts';
import { CONFIG_KEYS } from '../../config/keys.ts';
import { ENV_VARS, loadConfig } from '../../config/load.ts';
import { configDefaults, configSchema } from '../../config/schema.ts';
import type { AppConfig } from '../../config/schema.ts';

const DECL: Declaration = CONFIG_KEYS;
const ENTRIES = Object.entries(DECL);

/** The value at a dotted path of a nested object (own properties only). */
function at(value: unknown, path: string): unknown {
  let node = value;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** The key's rules applied in the context of its group's defaults, so that a rule naming a sibling (`Joi.ref('maxLimit')`) sees it. */
function checkInGroup(path: string, spec: KeySpec<unknown>, value: unknown): Joi.ValidationError | undefined {
  const cut = path.lastIndexOf('.');
  const name = path.slice(cut + 1);
  const group = cut < 0 ? configDefaults() : at(configDefaults(), path.slice(0, cut));
  const schema = Joi.object({ [name]: spec.schema }).unknown(true).prefs({ presence: 'required' });
  return schema.validate({ ...(group as object), [name]: value }, { convert: false }).error;
}

/** The text an environment variable holds for `value`, in the key's form. */
function envText(spec: KeySpec<unknown>, value: unknown): string {
  if (spec.envForm === 'json') return JSON.stringify(value);
  if (spec.envForm === 'list') return (value as string[]).join(',');
  return String(value);
}

async function emptyDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'config-keys-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('every declared key has a description and a default its own rules accept', () => {
  assert.ok(ENTRIES.length >= 50, `${ENTRIES.length} keys`);
  for (const [path, spec] of ENTRIES) {
    assert.ok(spec.description.trim().length > 10, `${path} has no description`);
    assert.equal(checkInGroup(path, spec, spec.default)?.message, undefined, `${path}'s default`);
  }
});

test('every key with an environment variable has an example, other than its default, that its rules accept', () => {
  for (const [path, spec] of ENTRIES) {
    if (spec.env === undefined) continue;
    assert.notDeepEqual(spec.example, spec.default, `${path}'s example is its default, so it would prove nothing`);
    assert.equal(checkInGroup(path, spec, spec.example)?.message, undefined, `${path}'s example`);
  }
});

test('environment variable names are unique, and ENV_VARS maps each to its own key', () => {
  assert.deepEqual(declarationProblems(DECL), []);
  const names = ENTRIES.flatMap(([, spec]) => (spec.env === undefined ? [] : [spec.env]));
  assert.equal(new Set(names).size, names.length);
  assert.deepEqual(Object.entries(ENV_VARS).sort(), ENTRIES.flatMap(([path, spec]) => (spec.env === undefined ? [] : [[spec.env, path]])).sort());
});

test('a declaration that repeats a variable, nests a key under a key, or leaves a key undescribed is refused, naming the key', () => {
  const bad: Declaration = {
    port: key<number>({ env: 'PORT', default: 1, example: 2, schema: Joi.number(), description: 'One.' }),
    'core.port': key<number>({ env: 'PORT', default: 1, example: 2, schema: Joi.number(), description: 'Two.' }),
    'core.port.inner': key<number>({ default: 1, schema: Joi.number(), description: 'Three.' }),
    'log.level': key<string>({ env: 'log-level', default: 'a', example: 'b', schema: Joi.string(), description: ' ' }),
    '__proto__.polluted': key<number>({ default: 1, schema: Joi.number(), description: 'Four.' }),
  };
  assert.deepEqual(declarationProblems(bad), [
    'core.port: is a key and also the group of core.port.inner',
    'core.port: PORT already sets port',
    'log.level: has no description',
    'log.level: log-level is not an environment variable name (A-Z, 0-9, _)',
    '__proto__.polluted: not a dotted path of camelCase names',
  ]);
  assert.throws(() => checkDeclaration(bad), /config\/keys\.ts:\ncore\.port: is a key and also the group of core\.port\.inner\n/);
});

test('the joi schema, the defaults and the declaration name the same keys, in the same groups', () => {
  const leaves = (desc: unknown, prefix = ''): string[] => {
    if (typeof desc !== 'object' || desc === null || !('keys' in desc)) return [prefix.slice(0, -1)];
    return Object.entries((desc as { keys: Record<string, unknown> }).keys).flatMap(([k, v]) => leaves(v, `${prefix}${k}.`));
  };
  const declared = Object.keys(DECL).sort();
  assert.deepEqual(leaves(configSchema.describe()).sort(), declared);
  for (const path of declared) assert.deepEqual(at(configDefaults(), path), DECL[path]!.default, path);
  // The defaults are a fresh copy each time: a caller changing one cannot change the next start.
  const mine = configDefaults() as unknown as { http: { trustedProxies: string[] } };
  mine.http.trustedProxies.push('10.9.9.9');
  assert.deepEqual(configDefaults().http.trustedProxies, ['127.0.0.1', '::1']);
});

test('the schema and the defaults are built from paths: groups nest, unknown keys are refused, the defaults pass', () => {
  const decl: Declaration = {
    'a.b.c': key<number>({ default: 1, schema: Joi.number(), description: 'Deep.' }),
    'a.d': key<string | null>({ env: 'A_D', default: null, example: 'x', schema: Joi.string().allow(null), description: 'Shallow.' }),
  };
  assert.deepEqual(defaultsOf(decl), { a: { b: { c: 1 }, d: null } });
  assert.deepEqual(envVarsOf(decl), { A_D: 'a.d' });
  const schema = schemaOf(decl);
  assert.equal(schema.validate(defaultsOf(decl)).error, undefined);
  assert.match(String(schema.validate({ a: { b: { c: 1, e: 2 }, d: null } }).error), /"a\.b\.e" is not allowed/);
  assert.match(String(schema.validate({ a: { b: {}, d: null } }).error), /"a\.b\.c" is required/);
});

test('each environment variable, set to its key\'s example, reaches that key and no other', async (t) => {
  const dir = await emptyDir(t);
  const defaults = await loadConfig({ env: {}, dir, cwd: '/' });
  for (const [path, spec] of ENTRIES) {
    if (spec.env === undefined) continue;
    const cfg = await loadConfig({ env: { [spec.env]: envText(spec, spec.example) }, dir, cwd: '/' });
    assert.deepEqual(at(cfg, path), spec.example, `${spec.env} → ${path}`);
    for (const [other] of ENTRIES) {
      // Moving the core's port alone moves the default core.url with it (config/README.md).
      if (other === path || (path === 'core.port' && other === 'core.url')) continue;
      assert.deepEqual(at(cfg, other), at(defaults, other), `${spec.env} also changed ${other}`);
    }
  }
});

test('every environment variable set at once: each key holds its own example', async (t) => {
  const dir = await emptyDir(t);
  const env: Record<string, string> = {};
  for (const [, spec] of ENTRIES) if (spec.env !== undefined) env[spec.env] = envText(spec, spec.example);
  const cfg = await loadConfig({ env, dir, cwd: '/' });
  for (const [path, spec] of ENTRIES) assert.deepEqual(at(cfg, path), spec.env === undefined ? spec.default : spec.example, path);
});

test('AppConfig is the declaration\'s type: each key typed as declared, undeclared keys a compile error', async () => {
  const cfg: Readonly<AppConfig> = await loadConfig({ env: {} });
  const typed: { port: number; coreHost: string | null; proxies: string[]; level: 'error' | 'warn' | 'info' | 'http' | 'verbose' | 'debug' | 'silly'; bytes: number } = {
    port: cfg.core.port,
    coreHost: cfg.core.host,
    proxies: cfg.http.trustedProxies,
    level: cfg.log.level,
    bytes: cfg.http.bodyLimitBytes,
  };
  assert.equal(typed.port, 3001);
  // @ts-expect-error: not a declared key
  assert.equal(cfg.core.prot, undefined);
  // @ts-expect-error: core.host may be null
  const host: string = cfg.core.host;
  assert.equal(host, null);
});
