/**
 * The entries of `GET /health/applications` in the platform's shape: `id`,
 * `package_id`, `version`, `type` (`Application`), `description` and `state`
 * (itential-mcp's `ApplicationInfo` model; ipctl's 2023.2 fixture
 * `health/applications.success.json`). Our applications are the provenances
 * of the core's routes and all run in its one process, so `package_id` is
 * the core's own package for every one of them, and `state` is `RUNNING`
 * while the store answers, `DEAD` when it does not.
 */
import pkg from '../../../package.json' with { type: 'json' };
import { entryFields } from './list.ts';
import type { ListFields } from './list.ts';

export interface ApplicationHealth {
  readonly id: string;
  readonly package_id: string;
  readonly version: string;
  readonly type: 'Application';
  readonly description: string;
  readonly state: 'RUNNING' | 'DEAD';
}

/** What each application is, for people reading the report; one not named here is described by its id. */
const DESCRIPTIONS: ReadonlyMap<string, string> = new Map([
  ['AGManager', 'Automation Gateway manager: what the gateways can run'],
  ['Adapters', 'Which adapter instances serve each broker'],
  ['Authentication', 'Login, logout, sessions, tokens and whoami'],
  ['Authorization', 'Accounts, groups, roles, methods and views'],
  ['AutomationCatalog', 'Automations of the catalog and their schedules'],
  ['AutomationStudio', 'Workflows, templates and projects as Automation Studio serves them'],
  ['Documentation', 'The interface document and its pages'],
  ['Health', 'Health of the server, the host, the applications and the adapters'],
  ['Jst', 'JSON transformations'],
  ['Metrics', 'Prometheus metrics'],
  ['OperationsManager', 'Jobs, tasks, automations and triggers'],
  ['OrchestratorManager', 'The relay to orchestrators through adapters (/nso_manager and /orchestrator_manager)'],
  ['Profiles', 'Platform profiles: read, import, export and activate'],
  ['Pronghorn', 'The platform core: the indexes of its collections'],
  ['ServiceCatalog', 'Services, the forms that check their orders, and orders'],
  ['WorkFlowEngine', 'The workflow engine: jobs, tasks and their metrics'],
]);

export function applicationEntry(id: string, version: string, running: boolean): ApplicationHealth {
  return { id, package_id: pkg.name, version, type: 'Application', description: DESCRIPTIONS.get(id) ?? id, state: running ? 'RUNNING' : 'DEAD' };
}

/** The fields the list parameters filter and sort on. */
export const APPLICATION_FIELDS: ListFields<ApplicationHealth> = entryFields<ApplicationHealth>([['description', (a) => a.description]]);
