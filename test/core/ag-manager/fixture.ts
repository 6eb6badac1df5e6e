/**
 * A core whose config names automation-gateway adapters served by the
 * stand-in: `lab gateway` (a name with a space, logging in with a username
 * and password), `token gw` (a fixed token), and ones that cannot work:
 * nobody listening, wrong password, too slow, disabled, and an orchestrator.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { openTestStore } from '../../helpers/stores.ts';
import { startAgSim } from '../../../tools/ag-sim/server.ts';
import type { AgSim } from '../../../tools/ag-sim/server.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';

export const AG_USER = 'ops';
export const AG_PASSWORD = 'gw-pa55-q8z';

export interface GatewayFixture {
  readonly core: RunningCore;
  readonly sim: AgSim;
  readonly slow: AgSim;
  readonly deadUrl: string;
  close(): Promise<void>;
}

/** A loopback address nothing listens on. */
async function deadAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export async function startGatewayFixture(): Promise<GatewayFixture> {
  const sim = await startAgSim({
    username: AG_USER,
    password: AG_PASSWORD,
    scripts: [
      { name: 'hello.py', description: 'Says hello', parameters: { type: 'object', properties: { device: { type: 'string' } }, required: ['device'] } },
      { name: 'broken.sh', fail: true },
    ],
    playbooks: [{ name: 'backup.yml' }],
    modules: [{ name: 'cisco.ios.ios_command' }, { name: 'ping' }, { name: 'setup' }],
  });
  const slow = await startAgSim({ username: AG_USER, password: AG_PASSWORD, delayMs: 1500 });
  const login = await request(`${sim.url}/api/v2.0/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: AG_USER, password: AG_PASSWORD }) });
  const token = (login.body as { token: string }).token;
  const deadUrl = await deadAddress();
  const credentials = { username: AG_USER, password: AG_PASSWORD };
  const adapters = [
    { name: 'lab gateway', type: 'gateway', baseUrl: sim.url, credentials },
    { name: 'token gw', type: 'gateway', baseUrl: `${sim.url}/api/v2.0/`, credentials: { token } },
    { name: 'gw-down', type: 'gateway', baseUrl: deadUrl, credentials, timeoutMs: 2000 },
    { name: 'gw-badcreds', type: 'gateway', baseUrl: sim.url, credentials: { username: AG_USER, password: 'wrong' } },
    { name: 'gw-slow', type: 'gateway', baseUrl: slow.url, credentials, timeoutMs: 300 },
    { name: 'gw-off', type: 'gateway', baseUrl: sim.url, credentials, enabled: false },
    { name: 'nso1', type: 'nso', baseUrl: 'http://127.0.0.1:9', credentials },
  ];
  const core = await startCore((await openTestStore()), { ADAPTERS: JSON.stringify(adapters) });
  return {
    core,
    sim,
    slow,
    deadUrl,
    close: async () => {
      await core.close();
      await sim.close();
      await slow.close();
    },
  };
}

export const adapterPath = (id: string): string => `/ag-manager/actions/${encodeURIComponent(id)}`;
