/**
 * A real core with adapter instances from `ADAPTERS`, in front of the
 * orchestrator stand-in (tools/nso-sim), for the relay tests.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startNsoSim } from '../../../tools/nso-sim/server.ts';
import type { NsoSim } from '../../../tools/nso-sim/server.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';

export const NSO_USER = 'relay-user';
export const NSO_PASSWORD = 'relay-secret';
/** The adapter the tests mostly use; its name has a space, as real ones do ("Local NSO"). */
export const NSO = 'Local NSO';
export const NSO_PATH = encodeURIComponent(NSO);
export const YANG_JSON = 'application/yang-data+json';
export const TIMEOUT_MS = 400;

export interface RelayFixture {
  readonly sim: NsoSim;
  readonly core: RunningCore;
  /** A loopback port nothing listens on. */
  readonly closedPort: number;
  close(): Promise<void>;
}

/** A port that was free a moment ago: listened on, then closed. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function adapters(simUrl: string, port: number): Record<string, unknown>[] {
  const basic = { username: NSO_USER, password: NSO_PASSWORD };
  return [
    { name: NSO, type: 'nso', baseUrl: simUrl, credentials: basic, timeoutMs: TIMEOUT_MS },
    // The base's own path stays in front of every relayed path.
    { name: 'restconf base', type: 'nso', baseUrl: `${simUrl}/restconf/`, credentials: basic, timeoutMs: TIMEOUT_MS },
    { name: 'wrong password', type: 'nso', baseUrl: simUrl, credentials: { username: NSO_USER, password: 'nope' }, timeoutMs: TIMEOUT_MS },
    { name: 'token nso', type: 'nso', baseUrl: simUrl, credentials: { token: 'tok-123' }, timeoutMs: TIMEOUT_MS },
    { name: 'closed', type: 'nso', baseUrl: `http://127.0.0.1:${port}`, credentials: basic, timeoutMs: TIMEOUT_MS },
    { name: 'off', type: 'nso', baseUrl: simUrl, credentials: basic, enabled: false },
    { name: 'ag', type: 'gateway', baseUrl: simUrl, credentials: basic, timeoutMs: TIMEOUT_MS },
  ];
}

export async function startRelayFixture(extra: Record<string, string> = {}): Promise<RelayFixture> {
  const sim = await startNsoSim({ port: 0, username: NSO_USER, password: NSO_PASSWORD, seed: true });
  const port = await closedPort();
  const store = await (await openTestStore());
  const core = await startCore(store, { ADAPTERS: JSON.stringify(adapters(sim.url, port)), ...extra });
  return {
    sim,
    core,
    closedPort: port,
    async close() {
      await core.close();
      await sim.close();
      await store.close();
    },
  };
}

const json = { 'content-type': 'application/json' };

export function restAction(core: RunningCore, adapter: string, body: unknown, token?: string): Promise<JsonResponse> {
  return core.request(`/orchestrator_manager/restAction/${encodeURIComponent(adapter)}`, { method: 'POST', headers: json, body: JSON.stringify(body), ...(token ? { token } : {}) });
}

export function restQuery(core: RunningCore, adapter: string, body: unknown, token?: string): Promise<JsonResponse> {
  return core.request(`/orchestrator_manager/restQuery/${encodeURIComponent(adapter)}`, { method: 'POST', headers: json, body: JSON.stringify(body), ...(token ? { token } : {}) });
}

/** The `parameter` names of an error answer's details. */
export function parametersOf(res: JsonResponse): string[] {
  return ((res.body as { details?: Array<{ parameter: string }> }).details ?? []).map((d) => d.parameter);
}
