/**
 * The gateway in front of the platform stand-in (tools/platform-sim) in front
 * of the real core, all on loopback, the stand-in's CA in a file for
 * CORE_CA_FILE, and a login token the stand-in handed out (bare text, as the
 * platform answers it).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simCall } from '../../tools/platform-sim/client.ts';
import { startPlatformSim } from '../../tools/platform-sim/server.ts';
import type { PlatformSim, PlatformSimOptions } from '../../tools/platform-sim/server.ts';
import { ADMIN_PASSWORD, startCore } from './core.ts';
import type { RunningCore } from './core.ts';
import { openTestStore } from './stores.ts';

export interface BehindPlatform {
  readonly core: RunningCore;
  readonly sim: PlatformSim;
  /** A file holding the stand-in's CA (PEM). */
  readonly caFile: string;
  /** The administrator's login token, from the stand-in's `POST /login`. */
  readonly adminToken: string;
  /** The requests the stand-in received from `since` on (an index into `sim.requests`). */
  requestsSince(since: number): PlatformSim['requests'];
  close(): Promise<void>;
}

/** A login token for `username`, handed out by the stand-in. */
export async function simLogin(sim: PlatformSim, username: string, password: string, basePath = ''): Promise<string> {
  const login = await simCall(`${sim.url}${basePath}/login`, { method: 'POST', ca: sim.ca, body: { user: { username, password } } });
  assert.equal(login.status, 200, login.text);
  return login.text;
}

/** The stand-in in front of a core, with its CA (PEM) written to a file as CORE_CA_FILE names it. */
export interface SimWithCaFile {
  readonly sim: PlatformSim;
  readonly caFile: string;
  close(): Promise<void>;
}

export async function startSimWithCaFile(options: PlatformSimOptions): Promise<SimWithCaFile> {
  const sim = await startPlatformSim(options);
  const dir = mkdtempSync(join(tmpdir(), 'behind-platform-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, sim.ca);
  return {
    sim,
    caFile,
    async close() {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An OAuth client's token, handed out by the stand-in's `POST /oauth/token`: the one kind of token Bearer carries there. */
export async function simClientToken(env: BehindPlatform, name: string, roleId: string): Promise<string> {
  const made = await env.core.request('/oauth/serviceAccounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, assignedRoles: [{ roleId }] }) });
  const { client_id: id, client_secret: secret } = (made.body as { data: { client_id: string; client_secret: string } }).data;
  const token = await simCall(`${env.sim.url}/oauth/token`, { ca: env.sim.ca, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=${id}&client_secret=${secret}` });
  assert.equal(token.status, 200, token.text);
  return (token.json as { access_token: string }).access_token;
}

export async function startBehindPlatform(options: Omit<PlatformSimOptions, 'coreUrl'> = {}): Promise<BehindPlatform> {
  const core = await startCore(await openTestStore());
  const { sim, caFile, close } = await startSimWithCaFile({ coreUrl: core.url, ...options });
  const adminToken = await simLogin(sim, 'admin', ADMIN_PASSWORD, options.basePath ?? '');
  return {
    core,
    sim,
    caFile,
    adminToken,
    requestsSince: (since) => sim.requests.slice(since),
    async close() {
      await close();
      await core.close();
    },
  };
}
