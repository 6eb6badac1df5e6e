/**
 * `dry-run` results. NSO renders the change in the device's CLI or as
 * NETCONF XML; the simulator has no NEDs, so both formats show a flat diff,
 * one line per leaf: `+devices device ce9 address 10.0.0.9`.
 */
import { badRequest } from './errors.ts';
import { isObject, listKeyNames, localOf, scalarText } from './json.ts';
import type { Json, JsonObject } from './json.ts';

export type DryRunFormat = 'cli' | 'native';

export function parseDryRun(text: string | null): DryRunFormat | null {
  if (text === null) return null;
  if (text === '' || text === 'cli') return 'cli';
  if (text === 'native') return 'native';
  throw badRequest(`dry-run must be cli or native (nso-sim renders no xml format), not "${text}"`);
}

export function dryRunResult(before: JsonObject, after: JsonObject, format: DryRunFormat): JsonObject {
  const lines = diff(flatten(before), flatten(after));
  if (format === 'cli') return { 'dry-run-result': { cli: { 'local-node': { data: lines.join('\n') } } } };
  // Native output is per device: only the changes under a device's config, with that prefix removed.
  const perDevice = new Map<string, string[]>();
  for (const line of lines) {
    const match = /^([+-])devices device (\S+) config (.*)$/.exec(line);
    if (match === null) continue;
    const [, sign = '', device = '', rest = ''] = match;
    perDevice.set(device, [...(perDevice.get(device) ?? []), `${sign}${rest}`]);
  }
  const device = [...perDevice].map(([name, changes]) => ({ name, data: changes.join('\n') }));
  return { 'dry-run-result': { native: { device } } };
}

/** Removals first, then additions, each ordered by node path so that a changed leaf reads as -old then +new. */
function diff(before: readonly Leaf[], after: readonly Leaf[]): string[] {
  const text = (leaf: Leaf): string => (leaf.value === null ? leaf.path : `${leaf.path} ${leaf.value}`);
  const old = new Set(before.map(text));
  const now = new Set(after.map(text));
  const changes = [
    ...before.filter((leaf) => !now.has(text(leaf))).map((leaf) => ({ leaf, sign: '-' })),
    ...after.filter((leaf) => !old.has(text(leaf))).map((leaf) => ({ leaf, sign: '+' })),
  ];
  // Stable sort: within one path the removal (listed first) stays ahead of the addition.
  return changes.sort((a, b) => (a.leaf.path < b.leaf.path ? -1 : a.leaf.path > b.leaf.path ? 1 : 0)).map(({ leaf, sign }) => `${sign}${text(leaf)}`);
}

interface Leaf {
  readonly path: string;
  readonly value: string | null;
}

export function flatten(value: Json, path: readonly string[] = [], out: Leaf[] = []): Leaf[] {
  const at = (extra: readonly string[] = []): string => [...path, ...extra].join(' ');
  if (Array.isArray(value)) {
    const names = listKeyNames(value, undefined, 1);
    for (const item of value) {
      if (!isObject(item)) {
        out.push({ path: at([scalarText(item) ?? '']), value: null });
        continue;
      }
      const keys = names.map((name) => scalarText(item[name]) ?? '');
      const rest = Object.fromEntries(Object.entries(item).filter(([name]) => !names.includes(name)));
      if (Object.keys(rest).length === 0) out.push({ path: at(keys), value: null });
      else flatten(rest, [...path, ...keys], out);
    }
    return out;
  }
  if (isObject(value)) {
    const members = Object.entries(value);
    if (members.length === 0 && path.length > 0) out.push({ path: at(), value: null });
    for (const [name, child] of members) flatten(child, [...path, localOf(name)], out);
    return out;
  }
  out.push({ path: at(), value: value === null ? null : (scalarText(value) ?? '') });
  return out;
}
