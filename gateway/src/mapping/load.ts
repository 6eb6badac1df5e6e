/**
 * Loads the mapping table from `mappings/*.json` and checks it before the
 * gateway serves anything: the JSON Schema, then what a schema cannot say
 * (unique ids and routes, release order, dates in the calendar, template
 * references, path parameters, escape hatches that exist, a final answering
 * step). One error lists every problem, each naming its file, entry and field.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { ReleaseCalendar } from '../releases.ts';
import { compareReleases } from '../releases.ts';
import { references } from './template.ts';
import type { Entry, MappingTable, Step } from './types.ts';

export class MappingError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the mapping table is not valid:\n  ${problems.join('\n  ')}`);
  }
}

const ROOTS = new Set(['params', 'query', 'body', 'vars', 'last', 'calls']);

function pathParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
}

function checkEntry(entry: Entry, at: string, calendar: ReleaseCalendar, hatches: ReadonlySet<string>, problems: string[]): void {
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
    if ('code' in step && !hatches.has(step.code)) problems.push(`${here}.code: no escape hatch is named ${step.code}`);
    if ('translateQuery' in step) vars.add(step.translateQuery.into);
    for (const ref of references(step)) {
      const [root, first] = ref.replace(/\[\d+\]/g, '').split('.');
      if (!ROOTS.has(root!)) problems.push(`${here}: {${ref}} refers to ${root}, which is none of ${[...ROOTS].join(', ')}`);
      else if (root === 'params' && first && !params.has(first)) problems.push(`${here}: {${ref}} names a path parameter the legacy path ${entry.legacy.path} does not have`);
      else if (root === 'vars' && first && !vars.has(first)) problems.push(`${here}: {${ref}} names a variable no earlier translateQuery sets`);
    }
  });
}

export function loadMappings(dir: string, calendar: ReleaseCalendar, hatches: ReadonlySet<string>): Entry[] {
  const schema = JSON.parse(readFileSync(join(dir, 'schema.json'), 'utf8')) as object;
  const validate = new Ajv({ allErrors: true, strict: false }).compile<MappingTable>(schema);
  const problems: string[] = [];
  const entries: Entry[] = [];
  const ids = new Map<string, string>();
  const routes = new Map<string, string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'schema.json').sort()) {
    let table: unknown;
    try {
      table = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (err) {
      problems.push(`${file}: not valid JSON (${(err as Error).message.replace(/\s+in JSON.*$/, '')})`);
      continue;
    }
    if (!validate(table)) {
      for (const e of validate.errors ?? []) {
        const index = /^\/entries\/(\d+)/.exec(e.instancePath)?.[1];
        const id = index !== undefined ? (table as { entries?: Array<{ id?: unknown }> }).entries?.[Number(index)]?.id : undefined;
        const field = e.instancePath.replace(/^\/entries\/\d+/, '').replace(/\//g, '.');
        problems.push(`${file}: ${index !== undefined ? `entries[${index}]${typeof id === 'string' ? ` (${id})` : ''}` : 'table'}${field} ${e.message ?? 'is not valid'}`);
      }
      continue;
    }
    table.entries.forEach((entry, i) => {
      const at = `${file}: entries[${i}] (${entry.id})`;
      const route = `${entry.legacy.method} ${entry.legacy.path.replace(/:\w+/g, ':')}`;
      if (ids.has(entry.id)) problems.push(`${at}.id: also used in ${ids.get(entry.id)}`);
      if (routes.has(route)) problems.push(`${at}.legacy: ${entry.legacy.method} ${entry.legacy.path} is also served by ${routes.get(route)}`);
      ids.set(entry.id, file);
      routes.set(route, entry.id);
      checkEntry(entry, at, calendar, hatches, problems);
      entries.push(entry);
    });
  }
  if (problems.length > 0) throw new MappingError(problems);
  return entries;
}
