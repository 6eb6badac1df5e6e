/**
 * What a GET answer carries: RFC 8040 `depth` and `fields`, and the pruning
 * every answer goes through (empty lists are dropped; the tree keeps them
 * only to remember list-ness).
 */
import { badRequest } from './errors.ts';
import { isObject, listKeyNames, sameName } from './json.ts';
import type { Json, JsonObject } from './json.ts';

/** Selected child names; null selects the whole subtree below that child. */
export type Selection = Map<string, Selection | null>;

export function parseDepth(text: string | null): number {
  if (text === null || text === 'unbounded') return Infinity;
  const depth = Number(text);
  if (!/^\d+$/.test(text) || depth < 1 || depth > 65535) throw badRequest(`depth must be "unbounded" or 1..65535, not "${text}"`);
  return depth;
}

/**
 * Cuts data below `maxDepth` levels, the value given being level 1 (RFC
 * 8040 4.8.2). A list entry whose children are cut keeps its key leaves so
 * the answer still says which entries exist (RFC 8040 leaves that open).
 */
export function prune(value: Json, maxDepth: number, level = 1): Json {
  if (Array.isArray(value)) {
    const names = listKeyNames(value, undefined, 1);
    return value.map((item) => (isObject(item) ? pruneObject(item, maxDepth, level, names) : item));
  }
  return isObject(value) ? pruneObject(value, maxDepth, level, []) : value;
}

function pruneObject(value: JsonObject, maxDepth: number, level: number, keyNames: readonly string[]): JsonObject {
  if (level >= maxDepth) return Object.fromEntries(keyNames.filter((name) => value[name] !== undefined).map((name) => [name, value[name] as Json]));
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, child]) => !(Array.isArray(child) && child.length === 0))
      .map(([name, child]) => [name, prune(child, maxDepth, level + 1)]),
  );
}

/**
 * Parses `fields` (RFC 8040 4.8.3): `a;b/c;d(e;f)`. Commas are accepted as
 * separators too, since that is how people tend to write a list of names.
 */
export function parseFields(text: string): Selection {
  const [selection, end] = parseExpr(text, 0);
  if (end !== text.length) throw fieldsError(text);
  return selection;
}

function parseExpr(text: string, start: number): [Selection, number] {
  const selection: Selection = new Map();
  let i = start;
  for (;;) {
    const from = i;
    while (i < text.length && !';,()'.includes(text[i] ?? '')) i++;
    const path = text.slice(from, i).split('/');
    if (path.some((name) => name === '')) throw fieldsError(text);
    let sub: Selection | null = null;
    if (text[i] === '(') {
      [sub, i] = parseExpr(text, i + 1);
      if (text[i] !== ')') throw fieldsError(text);
      i++;
    }
    insert(selection, path, sub);
    if (text[i] !== ';' && text[i] !== ',') return [selection, i];
    i++;
  }
}

function insert(selection: Selection, path: readonly string[], sub: Selection | null): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  const existing = selection.get(head);
  if (selection.has(head) && existing === null) return;
  if (rest.length === 0 && sub === null) {
    selection.set(head, null);
    return;
  }
  const child: Selection = existing ?? new Map();
  selection.set(head, child);
  if (rest.length > 0) insert(child, rest, sub);
  else if (sub !== null) for (const [name, below] of sub) insert(child, [name], below);
}

function fieldsError(text: string): Error {
  return badRequest(`invalid fields expression "${text}"; use names separated by ; or , with a/b paths and a(b;c) groups`);
}

/** Keeps only the selected members, applying the selection to each entry of a list. */
export function select(value: Json, selection: Selection): Json {
  if (Array.isArray(value)) return value.map((item) => select(item, selection));
  if (!isObject(value)) return value;
  const kept: [string, Json][] = [];
  for (const [name, child] of Object.entries(value)) {
    const match = [...selection.keys()].find((wanted) => sameName(name, wanted));
    if (match === undefined) continue;
    const below = selection.get(match);
    kept.push([name, below === null || below === undefined ? child : select(child, below)]);
  }
  return Object.fromEntries(kept);
}
