/**
 * Health: a public liveness probe for load balancers, and the server,
 * system (host) and application reports, which need credentials like every other route
 * (docs/decisions.md D7: clients probe /health/applications to learn whether
 * their session is still valid). The server report and the application
 * list carry the real platform's fields beside ours, and the list reads the
 * platform's generic list parameters (list.ts; docs/real-platform.md).
 */
import { answer, arrayOf, closed, INTEGER, NUMBER, oneOfValues, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnyRoute, Store } from '../../../kernel/index.ts';
import { APPLICATION_FIELDS, applicationEntry } from './applications.ts';
import { memoryListQuery, memoryPage } from './list.ts';
import { processReport, systemReport } from './system.ts';
import { isHealthAdmin } from './admin.ts';
import { JOBS } from '../store/collections.ts';

/** Health's routes, here and in the adapters' report (adapters/health.ts). */
export const healthRoute = routeHelper({ provenance: 'Health', shape: 'plain' });

export interface HealthDeps {
  readonly store: Store;
  /** `platform.release`, e.g. 2022.1; reported in three parts. */
  readonly release: string;
  readonly version: string;
  readonly startedAt: number;
  /** Applications (provenances) the core serves. */
  readonly applications: () => string[];
}

/** Whether the store answers a count of jobs: the liveness both /health/ready and /health/status report. */
export async function storeReachable(store: Store): Promise<boolean> {
  try {
    await store.collection(JOBS.name).count(null);
    return true;
  } catch {
    return false;
  }
}

export function healthRoutes(deps: HealthDeps): AnyRoute[] {
  return [
    healthRoute({
      method: 'GET',
      path: '/health/live',
      name: 'live',
      roles: 'public',
      description: 'Liveness: answers while the process serves requests',
      answer: answer(closed({ status: oneOfValues('ok') })),
      input: {},
      async handle() {
        return { body: { status: 'ok' } };
      },
    }),
    healthRoute({
      method: 'GET',
      path: '/health/server',
      name: 'getServerHealth',
      roles: 'authenticated',
      description: 'Release, version, uptime, the store with its reachability, and the process as the platform reports it (arch, platform, memoryUsage, cpuUsage; versions and pid to Health administrators only)',
      answer: answer(
        closed({
          release: STRING,
          version: STRING,
          uptime: INTEGER,
          store: closed({ kind: oneOfValues('sqlite', 'mongodb'), reachable: { type: 'boolean' } }),
          status: oneOfValues('running', 'degraded'),
          arch: STRING,
          platform: STRING,
          versions: { type: 'object', additionalProperties: STRING },
          memoryUsage: closed({ rss: NUMBER, heapTotal: NUMBER, heapUsed: NUMBER, external: NUMBER, arrayBuffers: NUMBER }),
          cpuUsage: closed({ user: NUMBER, system: NUMBER }),
          pid: INTEGER,
        }, ['versions', 'pid']),
      ),
      input: {},
      async handle(_input, ctx) {
        const reachable = await storeReachable(deps.store);
        // The library versions and the process id say which known flaws to try and which process to aim at:
        // administrators only, as adapters' addresses are (docs/auth.md, "What non-administrators see").
        const { versions, pid, ...process } = processReport();
        return {
          body: {
            // Clients cut the release at its last dot to choose the legacy or the new interface.
            release: `${deps.release}.0`,
            version: deps.version,
            uptime: Math.round((Date.now() - deps.startedAt) / 1000),
            store: { kind: deps.store.kind, reachable },
            status: reachable ? 'running' : 'degraded',
            ...process,
            ...(isHealthAdmin(ctx.caller) ? { versions, pid } : {}),
          },
        };
      },
    }),
    healthRoute({
      method: 'GET',
      path: '/health/system',
      name: 'getSystemHealth',
      roles: 'authenticated',
      description: 'The host: architecture, OS release, uptime, memory, load and CPUs',
      answer: answer(closed({ arch: STRING, release: STRING, uptime: NUMBER, freemem: NUMBER, totalmem: NUMBER, loadavg: arrayOf(NUMBER), cpus: arrayOf(closed({ model: STRING, speed: NUMBER, times: closed({ user: NUMBER, nice: NUMBER, sys: NUMBER, idle: NUMBER, irq: NUMBER }) })) })),
      input: {},
      async handle() {
        return { body: systemReport() };
      },
    }),
    healthRoute({
      method: 'GET',
      path: '/health/applications',
      name: 'getApplicationsHealth',
      roles: 'authenticated',
      description: `The applications this core serves and their state, read with the platform's list parameters (equals/equalsField, contains/containsField, startsWith/startsWithField on ${[...APPLICATION_FIELDS.keys()].join(', ')}; sort, order, skip, limit 25 by default)`,
      answer: answer(closed({ results: arrayOf(closed({ id: STRING, package_id: STRING, version: STRING, type: oneOfValues('Application'), description: STRING, state: oneOfValues('RUNNING', 'DEAD') })), total: INTEGER })),
      input: { query: memoryListQuery('the applications', APPLICATION_FIELDS) },
      async handle({ query }) {
        const running = await storeReachable(deps.store);
        const entries = deps.applications().map((id) => applicationEntry(id, deps.version, running));
        return { body: memoryPage(entries, query, APPLICATION_FIELDS) };
      },
    }),
  ];
}
