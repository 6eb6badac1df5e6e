/**
 * Reading an upstream list page after page, for the legacy reads that
 * answered everything at once or with no page cap (`limit` 0 in MongoDB).
 * The next page starts where the upstream said it does (`nextPageSkip` of
 * the operations-manager searches) or, where it says nothing (the
 * authorization lists' `{results, total}`), after the records actually
 * received. A short page is not the end: a real platform lowers a `limit`
 * above its own cap without a word, so only an empty page, the `total`, the
 * upstream's `nextPageSkip: null` or the caller's own limit end the read
 * (docs/gateway.md, "Paging").
 */

import { AppError } from '../../../kernel/index.ts';
import { LegacyFailure } from './run.ts';

/** One page as the upstream answered it. */
export interface UpstreamPage {
  readonly items: readonly unknown[];
  /** Every record the query selects, as the upstream counts them. */
  readonly total: number;
  /** Where the upstream says the next page starts: a number, null on the last page, undefined when it does not say. */
  readonly nextSkip?: number | null;
}

export interface PagedRead {
  /** The first record wanted (the legacy `skip`). */
  readonly skip: number;
  /** How many records are wanted; null for every one. */
  readonly limit: number | null;
  /** The largest page to ask the upstream for (`gateway.upstreamPageMax`), and the most records one read answers. */
  readonly paging: LegacyPaging;
  /** Reads one page: `limit` records from `skip`. */
  readonly read: (skip: number, limit: number) => Promise<UpstreamPage>;
  /** Stops early once this says the records so far are enough (a lookup of one match). */
  readonly enough?: (items: readonly unknown[]) => boolean;
}

export interface LegacyPaging {
  readonly pageMax: number;
  /** `gateway.legacyMaxRecords`: past it, the read is refused rather than held whole in the gateway's memory. */
  readonly maxRecords: number;
}

export interface PagedResult {
  readonly items: unknown[];
  readonly total: number;
}

/** The `metadata` of an operations-manager search answer as an UpstreamPage's count and next skip. */
export function nextSkipOf(metadata: unknown): number | null | undefined {
  if (typeof metadata !== 'object' || metadata === null || !Object.hasOwn(metadata, 'nextPageSkip')) return undefined;
  const next = (metadata as { nextPageSkip?: unknown }).nextPageSkip;
  return next === null ? null : typeof next === 'number' && Number.isSafeInteger(next) ? next : undefined;
}

/** The upstream's 400 naming `limit`, as legacyError() passed it on: its page size, not the caller's query, was refused. */
function refusedPageSize(err: unknown): boolean {
  return err instanceof AppError && err.code === 'VALIDATION_FAILED' && err.details.some((d) => d.parameter === 'limit');
}

/** A read that would answer more records than the gateway holds at once: refused with the count and the way out. */
function tooMany(count: number, max: number): LegacyFailure {
  return new LegacyFailure(`This call would answer ${count} records; the gateway answers at most ${max} at once (gateway.legacyMaxRecords). Page with skip and limit, or narrow the query`);
}

export async function readPages(paged: PagedRead): Promise<PagedResult> {
  const { maxRecords } = paged.paging;
  let pageMax = paged.paging.pageMax;
  const items: unknown[] = [];
  let total = 0;
  for (let at = paged.skip; ; ) {
    const want = paged.limit === null ? pageMax : Math.min(pageMax, paged.limit - items.length);
    let page: UpstreamPage;
    try {
      page = await paged.read(at, want);
    } catch (err) {
      // The page the gateway chose was too much for the upstream (our core's byte budget per page, or its largest
      // limit): the caller asked for records, not for that page, so the same records are read in smaller pages.
      if (want <= 1 || !refusedPageSize(err)) throw err;
      pageMax = Math.max(1, Math.floor(want / 2));
      continue;
    }
    total = page.total;
    // Known from the first page's total, so a read too large is refused before the rest is fetched; a lookup
    // that stops at its first match (`enough`) is judged by what it holds.
    const answers = Math.max(0, paged.limit === null ? total - paged.skip : Math.min(paged.limit, total - paged.skip));
    if (!paged.enough && answers > maxRecords) throw tooMany(answers, maxRecords);
    items.push(...page.items);
    if (items.length > maxRecords) throw tooMany(items.length, maxRecords);
    if (page.items.length === 0 || page.nextSkip === null) break;
    // The upstream's own word on where the next page starts, when it moves forward; else after what came.
    at = page.nextSkip !== undefined && page.nextSkip > at ? page.nextSkip : at + page.items.length;
    if (at >= total || (paged.limit !== null && items.length >= paged.limit) || paged.enough?.(items)) break;
  }
  return { items: paged.limit === null ? items : items.slice(0, paged.limit), total };
}
