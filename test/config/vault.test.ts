import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ConfigError, loadConfig } from '../../config/load.ts';
import { createVaultClient, VaultError } from '../../config/vault.ts';

const TOKEN = 'hvs.TEST-token-7f3a9c';
const SECRET = 'pa55-w0rd-q8z';

// A stand-in for Vault's KV v2 HTTP API: GET /v1/<mount>/data/<path>, token in
// X-Vault-Token, 403 for a missing or wrong token, 404 for an unknown path.
const secrets: Record<string, Record<string, unknown>> = {
  'secret/data/app/db': { password: SECRET, url: 'mongodb://db.internal:27017/iap', port: 27017 },
  'kv/data/team/admin': { password: 'from-kv-mount' },
};
const requests: Array<{ path: string; token: string | undefined }> = [];

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://vault').pathname);
  const token = req.headers['x-vault-token'];
  requests.push({ path, token: typeof token === 'string' ? token : undefined });
  if (req.method !== 'GET') return answer(res, 405, { errors: [] });
  if (path.startsWith('/v1/secret/data/hang')) return; // never answers
  if (path === '/v1/secret/data/v1style') return answer(res, 200, { data: { password: 'x' } });
  if (token !== TOKEN) return answer(res, 403, { errors: ['permission denied'] });
  const data = secrets[path.replace(/^\/v1\//, '')];
  if (!data) return answer(res, 404, { errors: [] });
  answer(res, 200, { request_id: 'r1', lease_id: '', renewable: false, lease_duration: 0, data: { data, metadata: { version: 1 } } });
}

const server = createServer(handle);
let vaultUrl = '';
let configDir = '';

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  vaultUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  configDir = await mkdtemp(join(tmpdir(), 'config-vault-test-'));
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(configDir, { recursive: true, force: true });
});

function load(env: Record<string, string>) {
  return loadConfig({ env: { VAULT_ADDR: vaultUrl, VAULT_TOKEN: TOKEN, ...env }, dir: configDir });
}

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const err = await promise.then(
    () => assert.fail('expected loadConfig to fail'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConfigError, String(err));
  return err;
}

function failure(env: Record<string, string>): Promise<ConfigError> {
  return configError(load(env));
}

function assertNoLeak(err: Error): void {
  const shown = `${err.message}\n${err.stack ?? ''}\n${inspect(err, { depth: 10 })}`;
  assert.ok(!shown.includes(TOKEN), 'the token leaked');
  assert.ok(!shown.includes(SECRET), 'the secret leaked');
}

test('$VAULT_ values are read from the vault over HTTP', async () => {
  requests.length = 0;
  const cfg = await load({ ADMIN_PASSWORD: '$VAULT_app/db/password' });
  assert.equal(cfg.admin.password, SECRET);
  assert.deepEqual(requests, [{ path: '/v1/secret/data/app/db', token: TOKEN }]);
});

test('several keys from one secret are fetched with one request and typed by the schema', async () => {
  requests.length = 0;
  const cfg = await load({ ADMIN_PASSWORD: '$VAULT_app/db/password', MONGO_URL: '$VAULT_app/db/url', CORE_PORT: '$VAULT_app/db/port' });
  assert.equal(cfg.mongoUrl, 'mongodb://db.internal:27017/iap');
  assert.equal(cfg.core.port, 27017);
  assert.equal(requests.length, 1);
});

test('the vault mount comes from vault.endpoint', async () => {
  const cfg = await load({ VAULT_ENDPOINT: 'kv/data', ADMIN_PASSWORD: '$VAULT_team/admin/password' });
  assert.equal(cfg.admin.password, 'from-kv-mount');
});

test('the vault token can be read from vault.tokenFile', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'vault-token-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'token');
  await writeFile(file, `${TOKEN}\n`);
  const cfg = await loadConfig({
    env: { VAULT_ADDR: vaultUrl, VAULT_TOKEN_FILE: file, ADMIN_PASSWORD: '$VAULT_app/db/password' },
    dir: configDir,
  });
  assert.equal(cfg.admin.password, SECRET);
});

test('a refused token stops with the key and vault path, without retrying', async () => {
  requests.length = 0;
  const err = await failure({ VAULT_TOKEN: 'hvs.wrong', ADMIN_PASSWORD: '$VAULT_app/db/password' });
  assert.match(err.message, /^config: admin\.password \(ADMIN_PASSWORD\) could not be read from the vault \(path app\/db, key password\)/);
  assert.match(err.message, /403/);
  assert.ok(err.message.includes(`${vaultUrl}/v1/secret/data/app/db`));
  assert.ok(!err.message.includes('hvs.wrong'));
  assert.equal(requests.length, 1);
});

test('an unknown vault path stops with the key and path', async () => {
  const err = await failure({ ADMIN_PASSWORD: '$VAULT_app/nothing/password' });
  assert.match(err.message, /admin\.password \(ADMIN_PASSWORD\).*path app\/nothing.*no secret at .*\/v1\/secret\/data\/app\/nothing \(404\)/);
});

test('a key missing from the secret stops with the key name', async () => {
  const err = await failure({ ADMIN_PASSWORD: '$VAULT_app/db/pasword' });
  assert.match(err.message, /has no key "pasword"/);
  assert.match(err.message, /^config: admin\.password/);
});

test('an unreachable vault stops with the key and address', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const err = await failure({ VAULT_ADDR: deadUrl, ADMIN_PASSWORD: '$VAULT_app/db/password' });
  assert.match(err.message, /admin\.password.*vault unreachable at http:\/\/127\.0\.0\.1:\d+\/v1\/secret\/data\/app\/db \(ECONNREFUSED\)/);
});

test('a vault that does not answer in vault.timeoutMs stops the load', async () => {
  const started = Date.now();
  const err = await failure({ VAULT_TIMEOUT_MS: '200', ADMIN_PASSWORD: '$VAULT_hang/x/password' });
  assert.match(err.message, /no answer within 200 ms/);
  assert.ok(Date.now() - started < 3000);
});

test('a $VAULT_ value without a configured vault names VAULT_ADDR', async () => {
  const err = await configError(loadConfig({ env: { ADMIN_PASSWORD: '$VAULT_app/db/password' }, dir: configDir }));
  assert.match(err.message, /admin\.password \(ADMIN_PASSWORD\).*not configured.*VAULT_ADDR/);
  const noToken = await configError(loadConfig({ env: { VAULT_ADDR: vaultUrl, ADMIN_PASSWORD: '$VAULT_app/db/password' }, dir: configDir }));
  assert.match(noToken.message, /no vault token.*VAULT_TOKEN.*VAULT_TOKEN_FILE/);
});

test('a KV v1 style answer is reported as not KV v2', async () => {
  const err = await failure({ ADMIN_PASSWORD: '$VAULT_v1style/password' });
  assert.match(err.message, /no data\.data/);
});

test('vault settings cannot themselves come from the vault', async () => {
  const err = await failure({ VAULT_ENDPOINT: '$VAULT_app/db/url' });
  assert.equal(err.message, 'config: vault.endpoint (VAULT_ENDPOINT) cannot itself come from the vault');
});

test('the vault token never appears in error messages', async () => {
  const scenarios: Array<Record<string, string>> = [
    { ADMIN_PASSWORD: '$VAULT_app/db/missing' },
    { ADMIN_PASSWORD: '$VAULT_app/none/password' },
    { ADMIN_PASSWORD: '$VAULT_v1style/password' },
    { ADMIN_PASSWORD: '$VAULT_hang/y/password', VAULT_TIMEOUT_MS: '100' },
    { ADMIN_PASSWORD: '$VAULT_app/db/password', VAULT_ADDR: 'http://127.0.0.1:1' },
  ];
  for (const env of scenarios) assertNoLeak(await failure(env));
  // A custom reader that carelessly echoes the token is redacted too.
  const careless = await configError(
    loadConfig({
      env: { VAULT_TOKEN: TOKEN, ADMIN_PASSWORD: '$VAULT_app/db/password' },
      dir: configDir,
      readSecret: async (_ref, vault) => {
        throw new Error(`login failed with ${vault.token}`);
      },
    }),
  );
  assertNoLeak(careless);
  assert.match(careless.message, /\[redacted\]/);
});

test('a secret that fails validation is reported without its value', async () => {
  const err = await failure({ PLATFORM_RELEASE: '$VAULT_app/db/password' });
  assert.equal(err.message, 'config: platform.release (from vault path app/db, key password) must be a release like 2022.1 (year.number)');
  assertNoLeak(err);
});

test('the vault client returns the data of a KV v2 secret and raises VaultError with a status', async () => {
  const client = createVaultClient({ url: `${vaultUrl}/`, token: TOKEN, endpoint: '/secret/data/', timeoutMs: 1000 });
  assert.deepEqual(await client.read('app/db'), secrets['secret/data/app/db']);
  const bad = createVaultClient({ url: vaultUrl, token: 'nope', endpoint: 'secret/data', timeoutMs: 1000 });
  await assert.rejects(bad.read('app/db'), (e: unknown) => e instanceof VaultError && e.status === 403 && e.cause === undefined);
});
