/**
 * Loads the mapping table from `mappings/*.json` and checks it before the
 * gateway serves anything: the JSON Schema, then what a schema cannot say
 * (unique ids and routes, release order, dates in the calendar, template
 * references, path parameters, escape hatches that exist and the arguments
 * their schemas take, a final answering step). One error lists every problem,
 * each located: `mappings/<file>: entries[i] (<id>).steps[j].with.<arg>: <reason>`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { shippedSchemaErrors } from '../../../kernel/index.ts';
import type { ReleaseCalendar } from '../releases.ts';
import { compareReleases } from '../releases.ts';
import { checkArguments } from './check-with.ts';
import type { HatchRecord } from './run.ts';
import { pathOf, schemaProblems } from './schema-errors.ts';
import { references } from './template.ts';
import { prototypeSegment } from '../../../kernel/index.ts';
import type { Entry, MappingTable, Step } from './types.ts';

/**
 * The escape hatches an entry may name: their registration records (names
 * and argument schemas checked), or their names alone (arguments unchecked;
 * kept for callers written before hatches declared their arguments).
 */
export type KnownHatches = ReadonlySet<string> | ReadonlyMap<string, HatchRecord>;

export interface MappingOptions {
  /** Table files to read from elsewhere, by name (`workflow-engine.json` to a path): an edited copy checked in place of the file. */
  readonly replace?: ReadonlyMap<string, string>;
}

export interface MappingCheck {
  /** The entries of every file that passed the schema (all of them, when problems is empty). */
  readonly entries: Entry[];
  readonly problems: string[];
}

export class MappingError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the mapping table is not valid:\n  ${problems.join('\n  ')}`);
  }
}

const ROOTS = new Set(['params', 'query', 'body', 'vars', 'last', 'calls']);

function pathParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
}

/** Each placeholder of a step with the keys of the string holding it, so a problem names its field. */
function placedReferences(value: unknown, keys: readonly string[] = []): Array<[readonly string[], string]> {
  if (typeof value === 'string') return references(value).map((ref) => [keys, ref]);
  if (Array.isArray(value)) return value.flatMap((v, i) => placedReferences(v, [...keys, String(i)]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => placedReferences(v, [...keys, k]));
  return [];
}

function checkEntry(entry: Entry, at: string, calendar: ReleaseCalendar, hatches: KnownHatches, problems: string[]): void {
  if (compareReleases(entry.deprecated, entry.removed) >= 0) problems.push(`${at}.removed: ${entry.removed} must come after deprecated ${entry.deprecated}`);
  for (const key of ['deprecated', 'removed'] as const) {
    if (!calendar.has(entry[key])) problems.push(`${at}.${key}: the release calendar (config/releases.json) has no date for ${entry[key]}`);
  }
  const params = new Set(pathParams(entry.legacy.path));
  for (const ref of entry.successor === undefined ? [] : references(entry.successor)) {
    const [root, first] = ref.split('.');
    if (!['params', 'query', 'body'].includes(root!)) problems.push(`${at}.successor: {${ref}} must name params, query or body`);
    else if (root === 'params' && first && !params.has(first)) problems.push(`${at}.successor: {${ref}} names a path parameter the legacy path ${entry.legacy.path} does not have`);
  }
  const vars = new Set<string>();
  entry.steps.forEach((step: Step, i) => {
    const here = `${at}.steps[${i}]`;
    const terminal = 'answer' in step || 'code' in step || 'unavailable' in step;
    if (terminal && i !== entry.steps.length - 1) problems.push(`${here}: nothing may follow a step that answers`);
    if (!terminal && i === entry.steps.length - 1) problems.push(`${here}: the last step must answer (answer, code or unavailable)`);
    if ('code' in step) {
      const hatch = hatches instanceof Map ? (hatches as ReadonlyMap<string, HatchRecord>).get(step.code) : undefined;
      if (!hatches.has(step.code)) problems.push(`${here}.code: no escape hatch is named ${step.code}`);
      else if (hatch) for (const p of checkArguments(hatch, step.with)) problems.push(`${here}.with${p.path}: ${p.reason}`);
    }
    if ('translateQuery' in step) vars.add(step.translateQuery.into);
    for (const [keys, ref] of placedReferences(step)) {
      const where = `${here}${pathOf(keys)}`;
      const [root, first] = ref.replace(/\[\d+\]/g, '').split('.');
      const proto = prototypeSegment(ref.replace(/\[\d+\]/g, ''));
      if (proto !== null) problems.push(`${where}: {${ref}} goes through ${proto}, which names a prototype, not data`);
      else if (!ROOTS.has(root!)) problems.push(`${where}: {${ref}} refers to ${root}, which is none of ${[...ROOTS].join(', ')}`);
      else if (root === 'params' && first && !params.has(first)) problems.push(`${where}: {${ref}} names a path parameter the legacy path ${entry.legacy.path} does not have`);
      else if (root === 'vars' && first && !vars.has(first)) problems.push(`${where}: {${ref}} names a variable no earlier translateQuery sets`);
    }
  });
}

/** `/entries/3/steps/1/call` as `entries[3] (<id>).steps[1].call`. */
function located(label: string, table: unknown, keys: readonly string[]): string {
  if (keys[0] !== 'entries' || keys[1] === undefined) return `${label}: table${pathOf(keys)}`;
  const id = (table as { entries?: Array<{ id?: unknown }> }).entries?.[Number(keys[1])]?.id;
  return `${label}: entries[${keys[1]}]${typeof id === 'string' ? ` (${id})` : ''}${pathOf(keys.slice(2))}`;
}

/** Checks the table without throwing: every problem of every file, and the entries read. */
export function checkMappings(dir: string, calendar: ReleaseCalendar, hatches: KnownHatches, options: MappingOptions = {}): MappingCheck {
  const schema = JSON.parse(readFileSync(join(dir, 'schema.json'), 'utf8')) as object;
  const problems: string[] = [];
  const entries: Entry[] = [];
  const ids = new Map<string, string>();
  const routes = new Map<string, string>();
  const names = new Set([...readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'schema.json'), ...(options.replace?.keys() ?? [])]);
  for (const file of [...names].sort()) {
    const replaced = options.replace?.get(file);
    const label = replaced ?? `${basename(dir)}/${file}`;
    let table: unknown;
    try {
      table = JSON.parse(readFileSync(replaced ?? join(dir, file), 'utf8'));
    } catch (err) {
      problems.push(`${label}: not valid JSON (${(err as Error).message.replace(/\s+in JSON.*$/, '')})`);
      continue;
    }
    const errors = shippedSchemaErrors(schema, table);
    if (errors.length > 0) {
      for (const p of schemaProblems(errors, table)) problems.push(`${located(label, table, p.keys)}: ${p.reason}`);
      continue;
    }
    (table as MappingTable).entries.forEach((entry, i) => {
      const at = `${label}: entries[${i}] (${entry.id})`;
      const route = `${entry.legacy.method} ${entry.legacy.path.replace(/:\w+/g, ':')}`;
      if (ids.has(entry.id)) problems.push(`${at}.id: also used in ${ids.get(entry.id)}`);
      if (routes.has(route)) problems.push(`${at}.legacy: ${entry.legacy.method} ${entry.legacy.path} is also served by ${routes.get(route)}`);
      ids.set(entry.id, label);
      routes.set(route, entry.id);
      checkEntry(entry, at, calendar, hatches, problems);
      entries.push(entry);
    });
  }
  return { entries, problems };
}

/** The table the gateway serves; throws a MappingError naming every problem. */
export function loadMappings(dir: string, calendar: ReleaseCalendar, hatches: KnownHatches, options: MappingOptions = {}): Entry[] {
  const { entries, problems } = checkMappings(dir, calendar, hatches, options);
  if (problems.length > 0) throw new MappingError(problems);
  return entries;
}
