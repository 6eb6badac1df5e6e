/**
 * The typed condition tree. Query parameters and `q` are parsed into it once;
 * each store compiles it (a MongoDB filter document, or SQL). Values in the
 * tree are already read by the field's type.
 */
import type { FieldDef } from './fields.ts';
import type { Scalar } from './values.ts';

export type CompareOp = 'eq' | 'gt' | 'gte' | 'lt' | 'lte';
export type MatchMode = 'prefix' | 'suffix' | 'substring';

/** Text-search terms in document-database syntax, already split. */
export interface TextQuery {
  /** Words of which at least one must appear (when there is no phrase). */
  readonly terms: readonly string[];
  /**
   * Phrases that must all appear whole, as the client wrote them (runs of
   * white space made one space). MongoDB matches a phrase against the raw
   * text, so splitting `core-rtr-07` into words would make it find nothing;
   * the embedded store's full-text index splits the phrase into its words
   * itself (docs/deployment.md, SQLite and MongoDB differences).
   */
  readonly phrases: readonly string[];
  /** Words that must not appear. */
  readonly excluded: readonly string[];
}

export type Condition =
  | { readonly kind: 'and'; readonly items: readonly Condition[] }
  | { readonly kind: 'or'; readonly items: readonly Condition[] }
  | { readonly kind: 'not'; readonly item: Condition }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly field: FieldDef; readonly value: Scalar }
  | { readonly kind: 'in'; readonly field: FieldDef; readonly values: readonly Scalar[] }
  | { readonly kind: 'match'; readonly mode: MatchMode; readonly field: FieldDef; readonly text: string }
  | { readonly kind: 'text'; readonly field: FieldDef; readonly query: TextQuery }
  /** The array field is missing, null or empty. Not reachable from the query language; used by visibility rules. */
  | { readonly kind: 'empty'; readonly field: FieldDef };

export interface SortKey {
  readonly field: FieldDef;
  readonly direction: 1 | -1;
}

/** Collapses nested ANDs so compilers see one flat list. */
export function and(items: readonly Condition[]): Condition | null {
  const flat: Condition[] = [];
  for (const item of items) {
    if (item.kind === 'and') flat.push(...item.items);
    else flat.push(item);
  }
  if (flat.length === 0) return null;
  return flat.length === 1 ? flat[0]! : { kind: 'and', items: flat };
}

/** The text condition of a tree, provided it stands only under ANDs (checked by the parser). */
export function splitText(where: Condition | null): { text: Extract<Condition, { kind: 'text' }> | null; rest: Condition | null } {
  if (!where) return { text: null, rest: null };
  if (where.kind === 'text') return { text: where, rest: null };
  if (where.kind !== 'and') return { text: null, rest: where };
  const text = where.items.find((c): c is Extract<Condition, { kind: 'text' }> => c.kind === 'text') ?? null;
  return { text, rest: and(where.items.filter((c) => c.kind !== 'text')) };
}

/**
 * Text search in document-database syntax: words are ORed, `"a phrase"` must
 * appear whole, `-word` excludes. Hyphens inside a word separate words, as in
 * MongoDB (`pre-market` is two words, not a negation).
 */
export function parseTextQuery(raw: string): TextQuery {
  const phrases: string[] = [];
  const withoutPhrases = raw.replace(/"([^"]*)"/g, (_m, phrase: string) => {
    if (splitWords(phrase).length > 0) phrases.push(phrase.trim().replace(/\s+/g, ' '));
    return ' ';
  });
  const terms: string[] = [];
  const excluded: string[] = [];
  for (const token of withoutPhrases.split(/\s+/)) {
    if (token.length === 0) continue;
    if (token.startsWith('-') && token.length > 1) excluded.push(...splitWords(token.slice(1)));
    else terms.push(...splitWords(token));
  }
  return { terms: dedupe(terms), phrases: dedupe(phrases), excluded: dedupe(excluded) };
}

function splitWords(text: string): string[] {
  return text.split(/[^\p{L}\p{N}_]+/u).filter((w) => w.length > 0);
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}
