/**
 * Escape hatches: the legacy operations whose rewrite the generic steps
 * cannot say. Each lives in the folder of its legacy surface (platform-core/,
 * workflow-engine/) and exports a HatchRecord: its code, the JSON Schema of
 * its `with` arguments, and why it exists. An entry names it with
 * `{"code": "<name>", "with": {...}}`; the loader refuses names not listed
 * here and arguments their schema refuses.
 */
import type { Hatch, HatchRecord } from '../run.ts';
import { pcAllHatch } from './platform-core/all.ts';
import { pcBrokerHostHatch } from './platform-core/broker-host.ts';
import { pcCreateHatch } from './platform-core/create.ts';
import { pcInheritedHatch } from './platform-core/inherited.ts';
import { pcListHatch } from './platform-core/list.ts';
import { pcLocalAccountHatch } from './platform-core/local-account.ts';
import { pcPageHatch } from './platform-core/page.ts';
import { pcSearchHatch } from './platform-core/search.ts';
import { pcUpdateHatch } from './platform-core/update.ts';
import { weAddWatchersHatch } from './workflow-engine/add-watchers.ts';
import { weClaimTaskHatch } from './workflow-engine/claim-task.ts';
import { weJobListHatch } from './workflow-engine/job-list.ts';
import { weJobsFromTaskQueryHatch } from './workflow-engine/jobs-from-tasks.ts';
import { weSearchHatch } from './workflow-engine/search.ts';
import { weTaskIterationsHatch } from './workflow-engine/task-iterations.ts';

const records: readonly HatchRecord[] = [
  pcAllHatch,
  pcBrokerHostHatch,
  pcCreateHatch,
  pcInheritedHatch,
  pcListHatch,
  pcLocalAccountHatch,
  pcPageHatch,
  pcSearchHatch,
  pcUpdateHatch,
  weAddWatchersHatch,
  weClaimTaskHatch,
  weJobListHatch,
  weJobsFromTaskQueryHatch,
  weSearchHatch,
  weTaskIterationsHatch,
];

/** Every hatch's registration record, by name: what the loader checks entries against. */
export const hatchRegistry: ReadonlyMap<string, HatchRecord> = new Map(records.map((r) => [r.name, r]));

/** Every hatch's code, by name: what runEntry calls. */
export const hatches: ReadonlyMap<string, Hatch> = new Map(records.map((r) => [r.name, r.run]));
