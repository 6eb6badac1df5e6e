/** Adapter instances from the ADAPTERS environment variable (docs/decisions.md D22). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config/load.ts';

test('ADAPTERS is read as a JSON array, with defaults filled and vault secrets resolved inside it', async () => {
  const adapters = JSON.stringify([{ name: 'NSO Lab 1', type: 'nso', baseUrl: 'http://127.0.0.1:8080', credentials: { username: 'admin', password: '$VAULT_nso/lab/password' } }]);
  const config = await loadConfig({
    env: { ADAPTERS: adapters, VAULT_ADDR: 'http://127.0.0.1:1', VAULT_TOKEN: 't' },
    readSecret: async (ref) => (ref.secretPath === 'nso/lab' && ref.key === 'password' ? 'from-vault' : 'wrong'),
  });
  assert.deepEqual(config.adapters, [{ name: 'NSO Lab 1', type: 'nso', baseUrl: 'http://127.0.0.1:8080', credentials: { username: 'admin', password: 'from-vault' }, timeoutMs: 10000, tls: { rejectUnauthorized: true, ca: null }, enabled: true }]);
});

test('ADAPTERS that is not JSON, or names an unknown type, stops the start naming the key', async () => {
  await assert.rejects(loadConfig({ env: { ADAPTERS: '[{' } }), (err: unknown) => err instanceof ConfigError && /adapters \(ADAPTERS\) must be JSON/.test(err.message));
  await assert.rejects(loadConfig({ env: { ADAPTERS: JSON.stringify([{ name: 'x', type: 'ftp', baseUrl: 'http://h' }]) } }), (err: unknown) => err instanceof ConfigError && /adapters/.test(err.message));
});
