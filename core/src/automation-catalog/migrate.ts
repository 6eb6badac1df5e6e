/**
 * Agenda job documents (what the real platform's scheduler library stored,
 * docs/automation-catalog.md) read into the catalog's import form. Mongo exports
 * write dates and ids in extended JSON (`{"$date": ...}`, `{"$oid": ...}`),
 * so both that and plain values are read.
 */
import { isObjectId, isPlainObject } from '../../../kernel/index.ts';

export type Converted = { readonly input: Record<string, unknown> } | { readonly reason: string };

/** `{"$oid": hex}` or a hex string. */
function readId(value: unknown): string | undefined {
  const raw = isPlainObject(value) ? value['$oid'] : value;
  return isObjectId(raw) ? raw.toLowerCase() : undefined;
}

/** A date as Agenda's stores hold it, as an ISO string; null when absent; undefined when unreadable. */
export function readDate(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  let raw: unknown = value;
  if (isPlainObject(raw) && '$date' in raw) raw = raw['$date'];
  if (isPlainObject(raw) && '$numberLong' in raw) raw = Number(raw['$numberLong']);
  const ms = typeof raw === 'number' ? raw : typeof raw === 'string' ? Date.parse(raw) : Number.NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/** Agenda also took a number of milliseconds; stored as the equivalent human interval. */
function readInterval(value: unknown): string | null | undefined {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return `${value / 1000} seconds`;
  return undefined;
}

const DATA_KEYS = ['description', 'workflow', 'workflowId', 'formId', 'gbac', 'formData'] as const;

/**
 * One Agenda job as an automation to import. The catalog's own fields are
 * taken from `data` (a workflow's name also from `data.workflowName`, form
 * data also from `data.variables`); Agenda's scheduling fields map one to
 * one. Locks and failure counts stay behind.
 */
export function fromAgendaJob(job: unknown): Converted {
  if (!isPlainObject(job)) return { reason: 'is not a job document (an object)' };
  const name = job['name'];
  if (typeof name !== 'string' || name.length === 0) return { reason: 'has no name' };
  if (job['repeatAt'] !== undefined && job['repeatAt'] !== null) return { reason: 'uses repeatAt (a time of day), which automations do not support; express it as a cron repeatInterval' };
  const source = isPlainObject(job['data']) ? job['data'] : {};
  const data: Record<string, unknown> = {};
  for (const key of DATA_KEYS) if (source[key] !== undefined && source[key] !== null) data[key] = source[key];
  if (data['workflow'] === undefined && data['workflowId'] === undefined && typeof source['workflowName'] === 'string') data['workflow'] = source['workflowName'];
  if (data['formData'] === undefined && isPlainObject(source['variables'])) data['formData'] = source['variables'];
  if (data['formId'] !== undefined) data['formId'] = readId(data['formId']) ?? data['formId'];
  const dates: Record<string, string | null> = {};
  for (const key of ['nextRunAt', 'lastRunAt', 'lastFinishedAt'] as const) {
    const read = readDate(job[key]);
    if (read === undefined) return { reason: `has a ${key} that is not a date` };
    dates[key] = read;
  }
  const repeatInterval = readInterval(job['repeatInterval']);
  if (repeatInterval === undefined) return { reason: 'has a repeatInterval that is neither text nor a number of milliseconds' };
  const id = readId(job['_id']);
  return {
    input: {
      ...(id ? { _id: id } : {}),
      name,
      data,
      nextRunAt: dates['nextRunAt'],
      repeatInterval,
      repeatTimezone: typeof job['repeatTimezone'] === 'string' && job['repeatTimezone'] !== '' ? job['repeatTimezone'] : null,
      disabled: job['disabled'] === true,
      lastRunAt: dates['lastRunAt'],
      lastFinishedAt: dates['lastFinishedAt'],
    },
  };
}
