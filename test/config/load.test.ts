import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ConfigError, ENV_VARS, loadConfig } from '../../config/load.ts';
import type { SecretRef } from '../../config/load.ts';

/** A throwaway config dir holding `files` (local.json, <NODE_ENV>.json). */
async function configDir(t: { after: (fn: () => Promise<void>) => void }, files: Record<string, unknown> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'config-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) {
    await writeFile(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected loadConfig to fail');
}

test('the declared defaults validate and are the documented ones', async () => {
  const cfg = await loadConfig({ env: {}, cwd: '/srv/app' });
  assert.equal(cfg.port, 3000);
  assert.deepEqual(cfg.core, { port: 3001, url: 'http://127.0.0.1:3001', host: null, caFile: null, tlsVerify: true });
  assert.equal(cfg.host, '0.0.0.0');
  assert.deepEqual(cfg.http.trustedProxies, ['127.0.0.1', '::1']);
  assert.equal(cfg.dataDir, '/srv/app/data');
  assert.equal(cfg.mongoUrl, null);
  assert.equal(cfg.gateway.mongoUrl, null);
  assert.equal(cfg.gateway.legacyMaxRecords, 10_000);
  assert.equal(cfg.gateway.legacyMaxMb, 128);
  assert.equal(cfg.platform.release, '2022.1');
  assert.deepEqual(cfg.admin, { username: 'admin', password: null });
  assert.equal(cfg.auth.logoutTime, 60);
  assert.equal(cfg.log.level, 'info');
  assert.equal(cfg.http.bodyLimit, '1mb');
  assert.equal(cfg.http.bodyLimitBytes, 1024 * 1024);
  assert.deepEqual(cfg.search, {
    defaultLimit: 100, maxLimit: 1000, maxQueryLength: 16384, maxInItems: 1000, maxQDepth: 8, maxQNodes: 200, maxValueLength: 1024, maxUnindexedSortWindow: 10000, maxPageMb: 64, maxDereferenceMb: 64, maxDereferenceTasks: 10000, countCacheEntries: 1000,
  });
  assert.deepEqual(cfg.vault, { url: null, token: null, tokenFile: null, endpoint: 'secret/data', timeoutMs: 5000 });
});

test('env variable overrides the file default', async (t) => {
  const dir = await configDir(t);
  const cfg = await loadConfig({ env: { PORT: '4321', LOG_LEVEL: 'debug', SEARCH_MAX_LIMIT: '50', SEARCH_DEFAULT_LIMIT: '20' }, dir });
  assert.equal(cfg.port, 4321);
  assert.equal(cfg.log.level, 'debug');
  assert.equal(cfg.search.maxLimit, 50);
  assert.equal(cfg.search.defaultLimit, 20);
});

test('precedence is env, then <NODE_ENV>.json, then local.json, then the declared defaults', async (t) => {
  const dir = await configDir(t, {
    'local.json': { port: 1111, log: { level: 'warn' }, http: { bodyLimit: '2mb' } },
    'production.json': { port: 2222, log: { level: 'error' } },
  });
  const cfg = await loadConfig({ env: { NODE_ENV: 'production', PORT: '3333' }, dir });
  assert.equal(cfg.port, 3333, 'env beats every file');
  assert.equal(cfg.log.level, 'error', 'NODE_ENV file beats local.json');
  assert.equal(cfg.http.bodyLimit, '2mb', 'local.json beats the defaults');
  assert.equal(cfg.http.bodyLimitBytes, 2 * 1024 * 1024, 'and the bytes follow the text');
  assert.equal(cfg.auth.logoutTime, 60, 'the defaults fill the rest');
  assert.equal(cfg.core.port, 3001, 'a partial object in a layer keeps sibling keys');
});

test('a missing <NODE_ENV>.json or local.json is simply skipped', async (t) => {
  const dir = await configDir(t);
  const cfg = await loadConfig({ env: { NODE_ENV: 'staging' }, dir });
  assert.equal(cfg.port, 3000);
});

test('an empty env variable counts as unset', async (t) => {
  const dir = await configDir(t, { 'local.json': { admin: { password: 'from-file' } } });
  const cfg = await loadConfig({ env: { ADMIN_PASSWORD: '', PORT: '' }, dir });
  assert.equal(cfg.admin.password, 'from-file');
  assert.equal(cfg.port, 3000);
});

test('a bad port stops with a message naming the key and env variable', async (t) => {
  const dir = await configDir(t);
  const err = await configError(loadConfig({ env: { CORE_PORT: 'abc' }, dir }));
  assert.equal(err.message, 'config: core.port (CORE_PORT) must be a number');
});

test('a bad value in a file names the key and the file', async (t) => {
  const dir = await configDir(t, { 'local.json': { port: 70000 } });
  const err = await configError(loadConfig({ env: {}, dir }));
  assert.match(err.message, /^config: port \(in local\.json\) must be less than or equal to 65535$/);
});

test('every bad value is reported at once', async (t) => {
  const dir = await configDir(t);
  const err = await configError(
    loadConfig({ env: { PLATFORM_RELEASE: '2022', AUTH_LOGOUT_TIME: '0', LOG_LEVEL: 'loud', HTTP_BODY_LIMIT: 'huge', MONGO_URL: 'http://db' }, dir }),
  );
  assert.equal(err.problems.length, 5);
  assert.ok(err.problems.some((p) => p.startsWith('config: platform.release (PLATFORM_RELEASE) must be a release like 2022.1')));
  assert.ok(err.problems.some((p) => p.startsWith('config: auth.logoutTime (AUTH_LOGOUT_TIME) must be greater than or equal to 1')));
  assert.ok(err.problems.some((p) => p.startsWith('config: log.level (LOG_LEVEL) must be one of error, warn')));
  assert.ok(err.problems.some((p) => p.startsWith('config: http.bodyLimit (HTTP_BODY_LIMIT)')));
  assert.ok(err.problems.some((p) => p.startsWith('config: mongoUrl (MONGO_URL) must be a mongodb://')));
});

test('a non-integer logout time is refused', async (t) => {
  const dir = await configDir(t);
  const err = await configError(loadConfig({ env: { AUTH_LOGOUT_TIME: '1.5' }, dir }));
  assert.equal(err.message, 'config: auth.logoutTime (AUTH_LOGOUT_TIME) must be an integer');
});

test('search.defaultLimit may not exceed search.maxLimit', async (t) => {
  const dir = await configDir(t);
  const err = await configError(loadConfig({ env: { SEARCH_DEFAULT_LIMIT: '2000' }, dir }));
  assert.equal(err.message, 'config: search.defaultLimit (SEARCH_DEFAULT_LIMIT) must not exceed search.maxLimit');
});

test('unknown keys in a file are an error naming the file', async (t) => {
  const dir = await configDir(t, { 'local.json': { prot: 1, core: { prot: 2 } } });
  const err = await configError(loadConfig({ env: {}, dir }));
  assert.deepEqual([...err.problems].sort(), ['config: core.prot (in local.json) is not allowed', 'config: prot (in local.json) is not allowed']);
});

test('a file that is not valid JSON is named without quoting its content', async (t) => {
  const dir = await configDir(t, { 'local.json': '{ "admin": { "password": "hunter2" ' });
  const err = await configError(loadConfig({ env: {}, dir }));
  assert.match(err.message, /^config: local\.json is not valid JSON/);
  assert.ok(!err.message.includes('hunter2'));
});

test('a default.json left from before the keys were declared stops the start instead of being ignored', async (t) => {
  const dir = await configDir(t, { 'default.json': { port: 1234 } });
  const err = await configError(loadConfig({ env: {}, dir }));
  assert.match(err.message, /^config: .*default\.json is no longer read: every default is declared in config\/keys\.ts; move what you changed in it to local\.json$/);
});

test('a default that a file makes invalid is named as the default', async (t) => {
  const dir = await configDir(t, { 'local.json': { search: { maxLimit: 50 } } });
  const err = await configError(loadConfig({ env: {}, dir }));
  assert.equal(err.message, 'config: search.defaultLimit (default) must not exceed search.maxLimit');
});

test('a NODE_ENV that is not a plain name is refused', async (t) => {
  const dir = await configDir(t);
  const err = await configError(loadConfig({ env: { NODE_ENV: '../secrets' }, dir }));
  assert.match(err.message, /NODE_ENV must be a plain name/);
});

test('dataDir is resolved to an absolute path', async (t) => {
  const dir = await configDir(t);
  const cfg = await loadConfig({ env: { DATA_DIR: 'var/store' }, dir, cwd: '/opt/iap' });
  assert.ok(isAbsolute(cfg.dataDir));
  assert.equal(cfg.dataDir, '/opt/iap/var/store');
});

test('CORE_PORT alone moves the default core.url; an explicit CORE_URL wins', async (t) => {
  const dir = await configDir(t);
  const moved = await loadConfig({ env: { CORE_PORT: '4001' }, dir });
  assert.equal(moved.core.url, 'http://127.0.0.1:4001');
  const explicit = await loadConfig({ env: { CORE_PORT: '4001', CORE_URL: 'http://core.internal:9000' }, dir });
  assert.equal(explicit.core.url, 'http://core.internal:9000');
});

test('$ENC values are refused with the key and the $VAULT_ replacement', async (t) => {
  const dir = await configDir(t, { 'local.json': { admin: { password: '$ENC:AES:abcdef' } } });
  const err = await configError(loadConfig({ env: { MONGO_URL: '$ENCdeadbeef' }, dir }));
  assert.equal(err.problems.length, 2);
  const [fromFile] = err.problems.filter((p) => p.startsWith('config: admin.password (in local.json)'));
  assert.ok(fromFile, err.message);
  assert.match(fromFile, /removed in 2021\.2/);
  assert.match(fromFile, /\$VAULT_<path>/);
  assert.ok(err.problems.some((p) => p.startsWith('config: mongoUrl (MONGO_URL) uses the $ENC form')));
  assert.ok(!err.message.includes('abcdef') && !err.message.includes('deadbeef'));
});

test('the loaded config is frozen', async (t) => {
  const dir = await configDir(t);
  const cfg = await loadConfig({ env: {}, dir });
  assert.ok(Object.isFrozen(cfg));
  assert.ok(Object.isFrozen(cfg.core) && Object.isFrozen(cfg.search) && Object.isFrozen(cfg.vault));
  assert.throws(() => {
    (cfg.core as { port: number }).port = 1;
  }, TypeError);
  assert.equal(cfg.core.port, 3001);
});

test('an injected readSecret resolves $VAULT_ values and types them like any other value', async (t) => {
  const dir = await configDir(t, { 'local.json': { admin: { password: '$VAULT_app/admin/password' } } });
  const seen: SecretRef[] = [];
  const cfg = await loadConfig({
    env: { PORT: '$VAULT_app/net/port' },
    dir,
    readSecret: async (ref) => {
      seen.push(ref);
      return ref.key === 'port' ? '8080' : 'pa55';
    },
  });
  assert.equal(cfg.port, 8080);
  assert.equal(cfg.admin.password, 'pa55');
  assert.deepEqual(
    seen.map((r) => `${r.configKey}=${r.secretPath}#${r.key}`).sort(),
    ['admin.password=app/admin#password', 'port=app/net#port'],
  );
});

test('a malformed $VAULT_ reference is refused', async (t) => {
  const dir = await configDir(t);
  const err = await configError(loadConfig({ env: { ADMIN_PASSWORD: '$VAULT_nopath' }, dir, readSecret: async () => 'x' }));
  assert.equal(err.message, 'config: admin.password (ADMIN_PASSWORD) must be written $VAULT_<secret path>/<key>');
});

test('without opts.env the loader reads process.env', async (t) => {
  const dir = await configDir(t);
  const before = process.env.HTTP_BODY_LIMIT;
  process.env.HTTP_BODY_LIMIT = '7mb';
  t.after(() => {
    if (before === undefined) delete process.env.HTTP_BODY_LIMIT;
    else process.env.HTTP_BODY_LIMIT = before;
  });
  const cfg = await loadConfig({ dir });
  assert.equal(cfg.http.bodyLimit, '7mb');
});

test('TRUSTED_PROXIES is a comma-separated list of addresses and CIDR blocks; anything else is named', async (t) => {
  const dir = await configDir(t);
  const cfg = await loadConfig({ env: { TRUSTED_PROXIES: ' 10.0.0.1, 10.1.0.0/16,fd00::/8 ,' }, dir });
  assert.deepEqual(cfg.http.trustedProxies, ['10.0.0.1', '10.1.0.0/16', 'fd00::/8']);
  const err = await configError(loadConfig({ env: { TRUSTED_PROXIES: '10.0.0.1,gateway.local' }, dir }));
  assert.equal(err.message, 'config: http.trustedProxies.1 (TRUSTED_PROXIES) must be an IP address or a CIDR block such as 10.0.0.0/8');
  const none = await configDir(t, { 'local.json': { http: { trustedProxies: [] } } });
  assert.deepEqual((await loadConfig({ env: {}, dir: none })).http.trustedProxies, [], 'an empty list in a file trusts no proxy');
});

test('GATEWAY_HOST and CORE_HOST set the listen addresses; a CIDR block is not one', async (t) => {
  const dir = await configDir(t);
  const cfg = await loadConfig({ env: { GATEWAY_HOST: '::', CORE_HOST: '127.0.0.1' }, dir });
  assert.equal(cfg.host, '::');
  assert.equal(cfg.core.host, '127.0.0.1');
  assert.equal((await loadConfig({ env: { CORE_HOST: 'localhost' }, dir })).core.host, 'localhost');
  const err = await configError(loadConfig({ env: { CORE_HOST: '10.0.0.0/8' }, dir }));
  assert.equal(err.message, 'config: core.host (CORE_HOST) must be an IP address or a host name to listen on');
});

test('HOST, which tcsh and some shells set to the machine\'s name, does not choose the gateway\'s listen address', async (t) => {
  const dir = await configDir(t);
  const cfg = await loadConfig({ env: { HOST: 'build-box-7.example', GATEWAY_HOST: '' }, dir });
  assert.equal(cfg.host, '0.0.0.0');
  assert.ok(!Object.hasOwn(ENV_VARS, 'HOST'));
});

test('the upstream TLS settings and the gateway\'s own audit store are read from the environment', async () => {
  const cfg = await loadConfig({ env: { CORE_URL: 'https://platform.example:3443/iap', CORE_CA_FILE: '/etc/ca.pem', CORE_TLS_VERIFY: 'false', GATEWAY_MONGO_URL: 'mongodb://db:27017/iap-gateway', MONGO_URL: 'mongodb://db:27017/iap' }, cwd: '/srv/app' });
  assert.equal(cfg.core.url, 'https://platform.example:3443/iap');
  assert.equal(cfg.core.caFile, '/etc/ca.pem');
  assert.equal(cfg.core.tlsVerify, false);
  assert.equal(cfg.gateway.mongoUrl, 'mongodb://db:27017/iap-gateway');
  assert.equal(cfg.mongoUrl, 'mongodb://db:27017/iap');
});
