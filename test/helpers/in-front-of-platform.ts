/**
 * The second mode of the gateway's suites (issue 27, "How we will know"): the
 * real core, the platform stand-in (tools/platform-sim) over HTTPS in front of
 * it, and the real gateway in front of the stand-in, trusting its CA through
 * CORE_CA_FILE and told what a real operator's platform is:
 * `PLATFORM_RELEASE=2023.1` (the release that removed the legacy operations)
 * served until `GATEWAY_SERVE_UNTIL=2024.1` (decision 31). Every suite that
 * runs in this mode reads the stand-in's recording afterwards with
 * `recordingProblems`: what reached the "platform" must be what a real one
 * serves.
 */
import assert from 'node:assert/strict';
import { startCore } from './core.ts';
import type { RunningCore } from './core.ts';
import { startGateway } from './gateway.ts';
import type { RunningGateway } from './gateway.ts';
import { startSimWithCaFile } from './behind-platform.ts';
import type { PlatformSim, RecordedRequest } from '../../tools/platform-sim/server.ts';
import { routeTable } from '../../tools/platform-sim/route-table.ts';
import { makeTls, opensslMissing } from '../../tools/platform-sim/tls.ts';
import type { TlsMaterial } from '../../tools/platform-sim/tls.ts';
import type { Store } from '../../kernel/store/types.ts';

/** What the gateway is told about the platform behind it in this mode. */
export const PLATFORM_SERVING = { PLATFORM_RELEASE: '2023.1', GATEWAY_SERVE_UNTIL: '2024.1' } as const;

/** Why this mode cannot run here (no openssl to make the stand-in's certificates), or null. */
export const platformMissing: string | null = opensslMissing();

/**
 * The two routes the gateway tries knowing a real platform may not serve
 * them (decision 32: creating a local account, setting its password); the
 * only refusals a recording may hold, and only where a test expects them.
 */
export const NO_REPLACEMENT_PROBES: readonly RegExp[] = [/^POST \/authorization\/accounts$/, /^PUT \/authorization\/accounts\/[^/]+\/password$/];

/** The credential forms the platform documents (docs/platform-sim.md, AUTH); `none` only on routes that need none. */
const PLATFORM_FORMS = new Set(['query', 'cookie', 'basic', 'bearer']);
const UNAUTHENTICATED = new Set(['POST /login', 'GET /health/live', 'GET /health/ready', 'GET /status']);

// One certificate authority per test process: openssl takes a few hundred milliseconds a run.
let tls: TlsMaterial | null = null;

export interface InFrontOfPlatform {
  readonly core: RunningCore;
  readonly sim: PlatformSim;
  readonly gateway: RunningGateway;
  /** The stand-in's CA (PEM) in a file, as CORE_CA_FILE names it. */
  readonly caFile: string;
  close(): Promise<void>;
}

export interface InFrontOfPlatformOptions {
  /** The core's store, filled as the suite needs; the caller closes it. */
  readonly store: Store;
  readonly coreEnv?: Record<string, string>;
  /** Beside PLATFORM_SERVING (which it may override, e.g. a golden case's own release). */
  readonly gatewayEnv?: Record<string, string>;
  /** The stand-in's page cap (the platform's own, default 100). */
  readonly pageCap?: number;
  /** Also listen on plain HTTP (for a test's own lookups). */
  readonly plainPort?: boolean;
}

export async function startInFrontOfPlatform(options: InFrontOfPlatformOptions): Promise<InFrontOfPlatform> {
  tls ??= makeTls();
  const core = await startCore(options.store, options.coreEnv ?? {});
  const upstream = await startSimWithCaFile({ coreUrl: core.url, pageCap: options.pageCap ?? 100, plainPort: options.plainPort ? 0 : null, tls });
  const { sim, caFile } = upstream;
  const gateway = await startGateway(sim.url, { ...PLATFORM_SERVING, ...options.gatewayEnv, CORE_CA_FILE: caFile });
  return {
    core,
    sim,
    gateway,
    caFile,
    async close() {
      await gateway.close();
      await upstream.close();
      await core.close();
    },
  };
}

/** Stops what a suite started in either mode: the whole chain in front of the stand-in, or its gateway and core. */
export async function stopEither(platform: InFrontOfPlatform | null, gateway: { close(): Promise<void> } | undefined, core: { close(): Promise<void> } | undefined): Promise<void> {
  if (platform) {
    await platform.close();
    return;
  }
  await gateway?.close();
  await core?.close();
}

/** The suites' closing check in this mode: the gateway reached the stand-in, and nothing it sent is what a real platform would not serve. */
export function assertPlatformServed(t: { diagnostic(message: string): void }, made: readonly RecordedRequest[]): void {
  assert.ok(made.length > 0, 'the gateway reached the stand-in');
  t.diagnostic(`${made.length} requests; routes: ${recordedRoutes(made).join(', ')}`);
  assert.deepEqual(recordingProblems(made), []);
}

const table = routeTable();

/**
 * What in a recording a real platform would not have served, one line per
 * request: a route outside the 2023.2 route list, a refusal other than the
 * `allowedRefusals`, a query parameter the platform ignores (it would answer
 * everything), a credential outside the platform's forms, or a request that
 * did not come over TLS. Empty when all is well.
 */
export function recordingProblems(requests: readonly RecordedRequest[], allowedRefusals: readonly RegExp[] = []): string[] {
  const problems: string[] = [];
  for (const r of requests) {
    const route = `${r.method} ${r.url.split('?')[0]!}`;
    const allowed = allowedRefusals.some((p) => p.test(route));
    if (!allowed && !table.serves(r.method, r.url.split('?')[0]!)) problems.push(`${route}: not a route of Itential Platform 2023.2`);
    if (!r.secure) problems.push(`${route}: reached the platform without TLS`);
    if (r.refused !== null && !allowed) problems.push(`${route}: refused by the stand-in: ${r.refused}`);
    if (r.ignored.length > 0) problems.push(`${route}: the platform ignores ${r.ignored.join(', ')} and answers everything`);
    const form = r.credentials;
    if (form !== null && !PLATFORM_FORMS.has(form) && !UNAUTHENTICATED.has(route)) problems.push(`${route}: sent without credentials (${form})`);
  }
  return problems;
}

/** The routes of a recording, method and path, each once, for a test's diagnostic. */
export function recordedRoutes(requests: readonly RecordedRequest[]): string[] {
  return [...new Set(requests.map((r) => `${r.method} ${r.url.split('?')[0]!.replace(/\/[0-9a-f]{24}(?=\/|$)|\/[0-9a-f-]{36}(?=\/|$)/g, '/:id')}`))].sort();
}
