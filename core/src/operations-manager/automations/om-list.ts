/**
 * What the automation and trigger routes share: their list query (the
 * platform's generic filters, not the job search syntax), the envelope, the
 * view of a stored document, and the body and answer of an import. Their roles
 * are the operations manager's (../route.ts).
 */
import Joi from 'joi';
import { and, buildLeaf, decodeComponent, joiBody, LeafError, QueryStringError, splitQueryString, ValidationError } from '../../../../kernel/index.ts';
import type { Condition, Doc, DocCollection, DocType, ErrorDetail, RawParam, SearchQuery, Validator } from '../../../../kernel/index.ts';
import { listQuery } from '../../http/list-query.ts';
import { pageMetadata } from '../search-service.ts';
import type { PageMetadata } from '../search-service.ts';
import type { ListLimits } from '../../http/list-query.ts';

export interface Envelope {
  readonly message: string;
  readonly data: unknown;
  readonly metadata: Record<string, unknown>;
}

export function envelope(message: string, data: unknown, metadata: Record<string, unknown> = {}): { body: Envelope } {
  return { body: { message, data, metadata } };
}

/** The body of an import: the documents as exported, 1 to 1000 of them under `key`; each is checked by its service. */
export function importBody<K extends string>(key: K): Validator<unknown, Record<K, unknown[]>> {
  return joiBody<Record<K, unknown[]>>(Joi.object({ [key]: Joi.array().items(Joi.any()).min(1).max(1000).required() }));
}

/** The answer of an import: what was imported of the `offered`, and the failures, if any, in the metadata. */
export function importedEnvelope(imported: readonly unknown[], offered: number, failures: readonly ErrorDetail[]): { body: Envelope } {
  return envelope(`Successfully imported ${imported.length} of ${offered} documents`, imported, failures.length > 0 ? { failures } : {});
}

/** A stored document as answered: without the revision and the scheduler's lock, which are for safe updates only. */
export function view(doc: Doc): Doc {
  const { _rev: _rev, lockedAt: _lock, ...shown } = doc;
  return shown;
}

/**
 * Plain `name=value` parameters a list accepts besides the generic filters
 * (`enabled=true`, `actionId=<id>`), each an equality on the field of that name.
 */
export type ExtraFilters = readonly string[];

/**
 * The list query of automations or triggers. The job search syntax
 * (`equals[name]=x`, `q`) is refused with a message naming the syntax that
 * applies, because the platform answers it with an error too (docs/om-automations.md).
 */
export function omListQuery(type: DocType, limits: ListLimits, extras: ExtraFilters = []): Validator<string, SearchQuery> {
  const generic = listQuery(type, limits);
  return {
    validate(queryString) {
      const kept: string[] = [];
      const conditions: Condition[] = [];
      const problems: ErrorDetail[] = [];
      let params: RawParam[];
      try {
        params = splitQueryString(queryString);
      } catch (err) {
        if (!(err instanceof QueryStringError)) throw err;
        params = [];
        problems.push({ parameter: err.parameter, message: err.message });
      }
      for (const p of params) {
        if (p.name.includes('[') || p.name === 'q') {
          problems.push({ parameter: p.name, message: 'is job search syntax; these lists use the generic filters (equals=<value>&equalsField=<field>, contains/containsField, startsWith/startsWithField, limit, skip, sort, order)' });
        } else if (extras.includes(p.name)) {
          try {
            conditions.push(buildLeaf(type, 'equals', p.name, decodeComponent(p.raw, p.name), { maxInItems: 1, maxValueLength: 1000 }));
          } catch (err) {
            if (!(err instanceof LeafError || err instanceof QueryStringError)) throw err;
            problems.push({ parameter: p.name, message: err.message });
          }
        } else {
          kept.push(`${encodeURIComponent(p.name)}=${p.raw}`);
        }
      }
      if (problems.length > 0) throw new ValidationError(`Invalid query: ${problems.map((d) => `${d.parameter} ${d.message}`).join('; ')}`, problems);
      const query = generic.validate(kept.join('&'));
      return { ...query, where: and([...(query.where ? [query.where] : []), ...conditions]) };
    },
  };
}

export async function listEnvelope(collection: DocCollection, query: SearchQuery, message: string): Promise<{ body: Envelope }> {
  const page = await collection.search(query);
  const metadata: PageMetadata = pageMetadata(query.skip, query.limit, page.total, page.docs.length);
  return envelope(message, page.docs.map(view), { ...metadata });
}
