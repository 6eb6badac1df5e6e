/**
 * Escape hatches: the few legacy operations whose rewrite the generic steps
 * cannot say. Each is one file exporting a Hatch, named here; an entry names
 * it with `{"code": "<name>"}`, and the loader refuses names not listed.
 */
import type { Hatch } from '../run.ts';
import { pcAll } from './pc-all.ts';
import { pcBrokerHost } from './pc-broker-host.ts';
import { pcInherited } from './pc-inherited.ts';
import { pcList } from './pc-list.ts';
import { pcPage } from './pc-page.ts';
import { pcSearch } from './pc-search.ts';
import { pcUpdate } from './pc-update.ts';
import { weAddWatchers } from './we-add-watchers.ts';
import { weClaimTask } from './we-claim-task.ts';
import { weJobList } from './we-job-list.ts';
import { weJobsFromTaskQuery } from './we-jobs-from-tasks.ts';
import { weSearch } from './we-search.ts';
import { weTaskIterations } from './we-task-iterations.ts';

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
