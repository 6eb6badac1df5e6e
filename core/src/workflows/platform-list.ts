/**
 * `GET /automation-studio/workflows` (the platform's getWorkflows, 2023.1 and
 * later): a page of workflow documents in the platform's answer shape
 * `{items, skip, limit, total, count, end, previous, next}` (the keys of
 * ipctl's 2023.2 fixture `automation-studio/workflows/getall.success.json`).
 *
 * Its query is the platform's: the bracket filters `equals[field]=`,
 * `contains[field]=` and `starts-with[field]=` that its clients send
 * (itential-mcp looks a workflow up with `equals[name]=`), beside the generic
 * list parameters every list of ours reads (`limit`, `skip`, `sort`, `order`,
 * `equals`/`equalsField`, ...). Unlike the platform, we refuse a parameter we
 * do not know with 400 rather than ignore it (docs/real-platform.md).
 */
import { and, buildLeaf, LeafError, ValidationError } from '../../../kernel/index.ts';
import type { Condition, DocType, Operator, SearchQuery, Validator } from '../../../kernel/index.ts';
import { listQuery } from '../http/list-query.ts';
import type { ListLimits } from '../http/list-query.ts';

const BRACKET = /^(equals|contains|starts-with|startsWith)\[([^\]]*)\]$/;
const OPERATOR_OF: Readonly<Record<string, Operator>> = { equals: 'equals', contains: 'contains', 'starts-with': 'starts-with', startsWith: 'starts-with' };
const LEAF_LIMITS = { maxInItems: 100, maxValueLength: 1000 };
/** Accepted for the platform's clients; we keep no projects, so no workflow is a project member to remove. */
const PROJECT_FLAG = 'exclude-project-members';

function decode(text: string, parameter: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new ValidationError(`Invalid query: ${parameter} has malformed percent-encoding`, [{ parameter, message: 'has malformed percent-encoding' }]);
  }
}

function bracketLeaf(type: DocType, parameter: string, op: Operator, path: string, value: string): Condition {
  try {
    return buildLeaf(type, op, path, value, LEAF_LIMITS);
  } catch (err) {
    if (!(err instanceof LeafError)) throw err;
    throw new ValidationError(`Invalid query: ${parameter} ${err.message}`, [{ parameter, message: err.message }]);
  }
}

/**
 * Splits the bracket filters off, reads the rest with the generic list
 * query, and joins both into one search; a field given twice under the same
 * operator is refused, as every other repeated parameter is.
 */
export function platformListQuery(type: DocType, limits: ListLimits): Validator<string, SearchQuery> {
  const generic = listQuery(type, limits);
  return {
    ...(generic.schema ? { schema: generic.schema } : {}),
    validate(queryString) {
      const rest: string[] = [];
      const conditions: Condition[] = [];
      const seen = new Set<string>();
      for (const part of queryString.split('&')) {
        if (part === '') continue;
        const eq = part.indexOf('=');
        const name = decode(eq === -1 ? part : part.slice(0, eq), part);
        const value = decode(eq === -1 ? '' : part.slice(eq + 1), name);
        const bracket = BRACKET.exec(name);
        if (bracket) {
          if (seen.has(name)) throw new ValidationError(`Invalid query: ${name} is given more than once`, [{ parameter: name, message: 'is given more than once' }]);
          seen.add(name);
          conditions.push(bracketLeaf(type, name, OPERATOR_OF[bracket[1]!]!, bracket[2]!, value));
        } else if (name === PROJECT_FLAG) {
          if (!/^(true|false)$/.test(value)) throw new ValidationError(`Invalid query: ${PROJECT_FLAG} must be true or false`, [{ parameter: PROJECT_FLAG, message: 'must be true or false' }]);
        } else {
          rest.push(part);
        }
      }
      const base = generic.validate(rest.join('&'));
      return { ...base, where: and([...(base.where ? [base.where] : []), ...conditions]) };
    },
  };
}

/** The platform's page: `end` is where the page stops, `previous`/`next` are null at either end (see below). */
export interface PlatformPage<T> {
  readonly items: T[];
  readonly skip: number;
  readonly limit: number;
  readonly total: number;
  readonly count: number;
  readonly end: number;
  readonly previous: string | null;
  readonly next: string | null;
}

/**
 * ipctl's fixture shows `previous` and `next` only as null (a single page),
 * and its client decodes them as strings, so a number there would break it.
 * What text the platform writes is not public: we write the skip of the
 * neighbouring page as text, or null when there is none (docs/real-platform.md).
 */
export function platformPage<T>(items: T[], skip: number, limit: number, total: number): PlatformPage<T> {
  const end = skip + items.length;
  return {
    items,
    skip,
    limit,
    total,
    count: items.length,
    end,
    previous: skip > 0 && limit > 0 ? String(Math.max(0, skip - limit)) : null,
    next: limit > 0 && end < total ? String(end) : null,
  };
}
