/**
 * The automation document, in the shape the Agenda-based catalog stored:
 * Agenda's job fields at the root, the catalog's own under `data`. Also the
 * export (import) format and the checks every write path shares.
 */
import { isObjectId, isPlainObject, ValidationError } from '../../../kernel/index.ts';
import type { Doc, ErrorDetail } from '../../../kernel/index.ts';
import { checkRepeat, isValidTimezone, nextRun } from '../scheduler/schedule.ts';

export interface Gbac {
  read: string[];
  write: string[];
}

export interface CatalogAutomationData {
  description: string;
  /** The attached workflow by name; set instead of workflowId, never with it. */
  workflow?: string;
  /** The attached workflow by id (what the 2019–2022 catalog stored). */
  workflowId?: string;
  formId?: string;
  gbac: Gbac;
  formData?: Record<string, unknown>;
  lastUpdated: string;
  [key: string]: unknown;
}

export interface CatalogAutomation {
  _id: string;
  name: string;
  type: 'normal';
  data: CatalogAutomationData;
  nextRunAt: string | null;
  repeatInterval: string | null;
  repeatTimezone: string | null;
  lastRunAt: string | null;
  lastFinishedAt: string | null;
  lockedAt: string | null;
  disabled: boolean;
  lastModifiedBy: string | null;
  migratedToOM: boolean;
  correspondingOMAutomationId: string | null;
  _rev: number;
  failedAt?: string | null;
  failReason?: string | null;
  failCount?: number;
  [key: string]: unknown;
}

/** The schedule properties `PUT .../:id/schedule` may change. */
export interface CatalogSchedule {
  nextRunAt?: string | null;
  repeatInterval?: string | null;
  repeatTimezone?: string | null;
  disabled?: boolean;
}

export const MAX_NAME_LENGTH = 256;

/** A new automation: no workflow, no schedule. */
export function newCatalogAutomation(id: string, name: string, description: string, user: string, now: number): CatalogAutomation {
  return {
    _id: id,
    name,
    type: 'normal',
    data: { description, gbac: { read: [], write: [] }, lastUpdated: new Date(now).toISOString() },
    nextRunAt: null,
    repeatInterval: null,
    repeatTimezone: null,
    lastRunAt: null,
    lastFinishedAt: null,
    lockedAt: null,
    disabled: false,
    lastModifiedBy: user,
    migratedToOM: false,
    correspondingOMAutomationId: null,
    _rev: 0,
  };
}

/** What answers show: everything but the revision counter. */
export function view(doc: CatalogAutomation | Doc): Doc {
  const { _rev: _hidden, ...shown } = doc as Doc;
  return shown;
}

/**
 * The export (and import) format: identity, `data` and the schedule. Run
 * state (last runs, locks, failures) belongs to the store it happened in.
 */
export function exportView(doc: CatalogAutomation): Doc {
  return {
    _id: doc._id,
    name: doc.name,
    type: doc.type,
    data: doc.data,
    nextRunAt: doc.nextRunAt,
    repeatInterval: doc.repeatInterval,
    repeatTimezone: doc.repeatTimezone,
    disabled: doc.disabled,
  };
}

/**
 * Applies schedule changes, refusing an unusable interval or timezone. A new
 * interval or timezone without an explicit `nextRunAt` schedules the first
 * run one interval (or the next cron match) from now.
 */
export function applyCatalogSchedule(doc: CatalogAutomation, change: CatalogSchedule, now: number, prefix: string): void {
  const interval = change.repeatInterval !== undefined ? change.repeatInterval : doc.repeatInterval;
  const timezone = change.repeatTimezone !== undefined ? change.repeatTimezone : doc.repeatTimezone;
  const problems: ErrorDetail[] = [];
  if (timezone !== null && !isValidTimezone(timezone)) {
    problems.push({ parameter: `${prefix}repeatTimezone`, message: `${JSON.stringify(timezone)} is not a known IANA timezone (for example Europe/Berlin or UTC)` });
  } else if (interval !== null) {
    const problem = checkRepeat(interval, timezone);
    if (problem) problems.push({ parameter: `${prefix}repeatInterval`, message: problem });
  }
  if (problems.length > 0) throw new ValidationError(`Invalid schedule: ${problems.map((p) => p.message).join('; ')}`, problems);
  const scheduleMoved = change.repeatInterval !== undefined || change.repeatTimezone !== undefined;
  if (change.nextRunAt !== undefined) doc.nextRunAt = change.nextRunAt;
  else if (interval !== null && scheduleMoved) doc.nextRunAt = nextRun(interval, now, timezone)?.toISOString() ?? null;
  doc.repeatInterval = interval;
  doc.repeatTimezone = timezone;
  if (change.disabled !== undefined) doc.disabled = change.disabled;
}

/** An imported `_id` is kept only when it is already as this catalog stores ids (lower case); any other gets a new id. */
function isLowerCaseObjectId(value: unknown): value is string {
  return isObjectId(value) && value === value.toLowerCase();
}

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && v.length > 0) ? (value as string[]) : null;
}

function optionalString(data: Record<string, unknown>, key: string, out: CatalogAutomationData, problems: ErrorDetail[], where: string): void {
  const value = data[key];
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || value.length === 0) problems.push({ parameter: `${where}.data.${key}`, message: 'must be a non-empty string' });
  else out[key] = value;
}

/** An ISO date-time read to the stored form (`toISOString`), null, or a problem. */
export function isoOrNull(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/**
 * Reads one automation of an import document into a new stored document
 * (run state reset), or lists what is wrong with it at `where`.
 */
export function readImported(input: unknown, where: string, user: string, now: number): { doc: CatalogAutomation } | { problems: ErrorDetail[] } {
  if (!isPlainObject(input)) return { problems: [{ parameter: where, message: 'must be an automation object' }] };
  const problems: ErrorDetail[] = [];
  const name = input['name'];
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH) problems.push({ parameter: `${where}.name`, message: `must be a string of 1 to ${MAX_NAME_LENGTH} characters` });
  const data = input['data'] ?? {};
  if (!isPlainObject(data)) problems.push({ parameter: `${where}.data`, message: 'must be an object' });
  const d: Record<string, unknown> = isPlainObject(data) ? data : {};
  const description = d['description'] ?? input['description'] ?? '';
  if (typeof description !== 'string') problems.push({ parameter: `${where}.data.description`, message: 'must be a string' });
  const doc = newCatalogAutomation(isLowerCaseObjectId(input['_id']) ? input['_id'] : '', String(name), String(description), user, now);
  optionalString(d, 'workflow', doc.data, problems, where);
  optionalString(d, 'workflowId', doc.data, problems, where);
  optionalString(d, 'formId', doc.data, problems, where);
  if (doc.data.workflow !== undefined && doc.data.workflowId !== undefined) problems.push({ parameter: `${where}.data`, message: 'names its workflow by workflow or by workflowId, not both' });
  if (d['gbac'] !== undefined && d['gbac'] !== null) {
    const gbac = isPlainObject(d['gbac']) ? d['gbac'] : {};
    const read = stringList(gbac['read'] ?? []);
    const write = stringList(gbac['write'] ?? []);
    if (!read || !write) problems.push({ parameter: `${where}.data.gbac`, message: 'must be {read: [group ids], write: [group ids]}' });
    else doc.data.gbac = { read, write };
  }
  if (d['formData'] !== undefined && d['formData'] !== null) {
    if (!isPlainObject(d['formData'])) problems.push({ parameter: `${where}.data.formData`, message: 'must be an object' });
    else doc.data.formData = d['formData'];
  }
  const nextRunAt = isoOrNull(input['nextRunAt']);
  if (nextRunAt === undefined) problems.push({ parameter: `${where}.nextRunAt`, message: 'must be an ISO date-time or null' });
  const repeatInterval = input['repeatInterval'] ?? null;
  const repeatTimezone = input['repeatTimezone'] ?? null;
  if (repeatInterval !== null && typeof repeatInterval !== 'string') problems.push({ parameter: `${where}.repeatInterval`, message: 'must be a string or null' });
  if (repeatTimezone !== null && typeof repeatTimezone !== 'string') problems.push({ parameter: `${where}.repeatTimezone`, message: 'must be a string or null' });
  if (input['disabled'] !== undefined && typeof input['disabled'] !== 'boolean') problems.push({ parameter: `${where}.disabled`, message: 'must be true or false' });
  if (problems.length > 0) return { problems };
  try {
    const change: CatalogSchedule = { nextRunAt, repeatInterval: repeatInterval as string | null, repeatTimezone: repeatTimezone as string | null, disabled: input['disabled'] === true };
    applyCatalogSchedule(doc, change, now, `${where}.`);
  } catch (err) {
    if (err instanceof ValidationError) return { problems: [...err.details] };
    throw err;
  }
  return { doc };
}
