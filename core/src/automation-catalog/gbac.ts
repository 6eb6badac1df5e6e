/**
 * Group-based access to automations (`data.gbac`), enforced on every route
 * the way group visibility is on jobs (docs/automation-catalog.md, "Group
 * access"):
 * - holders of `AutomationCatalog.admin` see and change every automation;
 * - `read` lists the groups that may see an automation (get, list, export)
 *   and run it; members of a `write` group may see it too. An empty `read`
 *   restricts no one;
 * - `write` lists the groups that may change or delete it; an empty `write`
 *   lets everyone who may see it write it (the route's role still decides).
 * An automation the caller may not see is answered as not found, so its
 * existence does not leak; one seen but not writable is a 403.
 */
import type { Caller } from '../auth/caller.ts';
import type { Condition } from '../../../kernel/index.ts';
import { catalogAutomations as automationType } from '../store/doc-types.ts';
import type { CatalogAutomation } from './document.ts';

export const PROVENANCE = 'AutomationCatalog';

function seesAll(caller: Caller): boolean {
  return caller.adminOf.has(PROVENANCE);
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string') : [];
}

function shares(caller: Caller, groups: readonly string[]): boolean {
  return groups.some((g) => caller.groupIds.has(g));
}

export function mayRead(caller: Caller, doc: CatalogAutomation): boolean {
  const read = list(doc.data?.gbac?.read);
  return seesAll(caller) || read.length === 0 || shares(caller, read) || shares(caller, list(doc.data?.gbac?.write));
}

export function mayWrite(caller: Caller, doc: CatalogAutomation): boolean {
  const write = list(doc.data?.gbac?.write);
  return seesAll(caller) || (mayRead(caller, doc) && (write.length === 0 || shares(caller, write)));
}

/** The automations a caller may see, as a search condition; null when that is all of them. */
export function readable(caller: Caller): Condition | null {
  if (seesAll(caller)) return null;
  const read = automationType.fields.get('data.gbac.read')!;
  const write = automationType.fields.get('data.gbac.write')!;
  const empty: Condition = { kind: 'empty', field: read };
  if (caller.groupIds.size === 0) return empty;
  const groups = [...caller.groupIds];
  return { kind: 'or', items: [empty, { kind: 'in', field: read, values: groups }, { kind: 'in', field: write, values: groups }] };
}
