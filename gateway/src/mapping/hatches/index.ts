/**
 * Escape hatches: the few legacy operations whose rewrite the generic steps
 * cannot say. Each is one file exporting a Hatch, named here; an entry names
 * it with `{"code": "<name>"}`, and the loader refuses names not listed.
 */
import type { Hatch } from '../run.ts';
import { pcAll } from './platform-core/all.ts';
import { pcBrokerHost } from './platform-core/broker-host.ts';
import { pcInherited } from './platform-core/inherited.ts';
import { pcList } from './platform-core/list.ts';
import { pcPage } from './platform-core/page.ts';
import { pcSearch } from './platform-core/search.ts';
import { pcUpdate } from './platform-core/update.ts';
import { weAddWatchers } from './workflow-engine/add-watchers.ts';
import { weClaimTask } from './workflow-engine/claim-task.ts';
import { weJobList } from './workflow-engine/job-list.ts';
import { weJobsFromTaskQuery } from './workflow-engine/jobs-from-tasks.ts';
import { weSearch } from './workflow-engine/search.ts';
import { weTaskIterations } from './workflow-engine/task-iterations.ts';

export const hatches: ReadonlyMap<string, Hatch> = new Map<string, Hatch>([
  ['pcAll', pcAll],
  ['pcBrokerHost', pcBrokerHost],
  ['pcInherited', pcInherited],
  ['pcList', pcList],
  ['pcPage', pcPage],
  ['pcSearch', pcSearch],
  ['pcUpdate', pcUpdate],
  ['weAddWatchers', weAddWatchers],
  ['weClaimTask', weClaimTask],
  ['weJobList', weJobList],
  ['weJobsFromTaskQuery', weJobsFromTaskQuery],
  ['weSearch', weSearch],
  ['weTaskIterations', weTaskIterations],
]);
