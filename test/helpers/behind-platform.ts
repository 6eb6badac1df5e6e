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

export async function startBehindPlatform(options: Omit<PlatformSimOptions, 'coreUrl'> = {}): Promise<BehindPlatform> {
  const core = await startCore(await openTestStore());
  const sim = await startPlatformSim({ coreUrl: core.url, ...options });
  const dir = mkdtempSync(join(tmpdir(), 'behind-platform-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, sim.ca);
  const adminToken = await simLogin(sim, 'admin', ADMIN_PASSWORD, options.basePath ?? '');
  return {
    core,
    sim,
    caFile,
    adminToken,
    requestsSince: (since) => sim.requests.slice(since),
    async close() {
      await sim.close();
      await core.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
