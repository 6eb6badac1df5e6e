/**
 * Hostile requests for a route of the core or a legacy operation of the
 * gateway: its path with hostile or real parameters, hostile query
 * parameters, a hostile body, and credentials that may be missing, wrong, or
 * a reader's. `withDefect` makes sure a request the validators would accept
 * cannot change anything: see oracle.ts.
 */
import fc from 'fast-check';
import type { AnyRoute } from '../../kernel/http/route.ts';
import type { Entry } from '../../gateway/src/mapping/types.ts';
import { ADMIN_PASSWORD } from '../helpers/core.ts';
import { brokenJsonText, headerText, hostileJson, hostileObject, hostileString, paramValue, queryPairs } from './arbitraries.ts';
import type { QueryPair } from './arbitraries.ts';
import { judge } from './oracle.ts';
import type { RouteTable, Verdict } from './oracle.ts';
import { describe, encode } from './wire.ts';
import type { BodySpec, Credential, HostileRequest } from './wire.ts';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export function fillPath(template: string, values: ReadonlyArray<{ value: string; encoding: 'encoded' | 'raw' }>): string {
  let i = 0;
  return template.replace(/:(\w+)/g, () => {
    const v = values[i++]!;
    return v.encoding === 'raw' ? v.value : encode(v.value);
  });
}

export function paramCount(template: string): number {
  return (template.match(/:(\w+)/g) ?? []).length;
}

/** The collection a path parameter names: by its own name (`jobId`, `task_id`), else by the segment before it (`/jobs/:id`). */
function collectionOf(name: string, before: string): string | null {
  const byName: Array<[RegExp, string]> = [[/^job/i, 'jobs'], [/^task/i, 'tasks'], [/^account/i, 'accounts'], [/^group/i, 'groups'], [/^role/i, 'roles']];
  for (const [pattern, collection] of byName) if (pattern.test(name)) return collection;
  return before || null;
}

/**
 * Values for a template's path parameters: hostile ones, and known values,
 * weighted towards the ids of the collection the parameter names so that
 * a request reaches a real document often enough to catch a handler that
 * writes before it validates.
 */
export function pathParams(template: string, known: readonly string[], knownIds: ReadonlyMap<string, readonly string[]>): fc.Arbitrary<Array<{ value: string; encoding: 'encoded' | 'raw' }>> {
  const segments = template.split('/');
  const params = segments.flatMap((segment, i) => (segment.startsWith(':') ? [{ name: segment.slice(1), before: segments[i - 1] ?? '' }] : []));
  return fc.tuple(
    ...params.map(({ name, before }) => {
      const ids = knownIds.get(collectionOf(name, before) ?? '') ?? [];
      return ids.length > 0 ? fc.oneof({ weight: 1, arbitrary: paramValue(known) }, { weight: 1, arbitrary: fc.constantFrom(...ids).map((value) => ({ value, encoding: 'encoded' as const })) }) : paramValue(known);
    }),
  );
}

export function queryString(pairs: readonly QueryPair[]): string {
  return pairs.map((p) => (p.encoding === 'raw' ? `${p.name}=${p.value}` : `${encode(p.name)}=${encode(p.value)}`)).join('&');
}

/** Never the administrator's password: a login or Basic credential the fuzzer makes must fail. */
const notTheSecret = (s: string): boolean => !s.includes(ADMIN_PASSWORD);

const garbageToken = fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), headerText);

export const badCredential: fc.Arbitrary<Credential> = fc.oneof(
  fc.constant<Credential>({ kind: 'none' }),
  garbageToken.map((value): Credential => ({ kind: 'bearer', value })),
  fc.record({ user: fc.constantFrom('admin', 'hostile-reader', ''), password: hostileString.filter(notTheSecret) }).map(({ user, password }): Credential => ({ kind: 'basic', user, password })),
  hostileString.map((value): Credential => ({ kind: 'queryToken', value })),
  headerText.map((value): Credential => ({ kind: 'cookie', value: value.replace(/[;,\s]/g, '') })),
);

export const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Credential>({ kind: 'admin' }) },
  { weight: 2, arbitrary: fc.constant<Credential>({ kind: 'reader' }) },
  { weight: 2, arbitrary: badCredential },
);

const ODD_TYPES = ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/vnd.api+json', 'application/json;;', '*/*'];
const FORM_TEXT = ['a[b][c][d][e][f][g][h]=1', '__proto__[polluted]=1', 'constructor[prototype][polluted]=1', 'user[username]=admin&user[password]=x', 'a=1&a=2&a[]=3', '%ZZ=%ZZ', 'grant_type=client_credentials&client_id=x&client_secret=y', '=&=&&'];

/** A body for a method the parser reads; ids of real documents may appear in it. */
export function hostileBody(known: readonly string[]): fc.Arbitrary<BodySpec> {
  const withKnown = fc.oneof(hostileObject, fc.record({ name: fc.constantFrom(...known), _id: fc.constantFrom(...known), job_id: fc.constantFrom(...known), jobIds: fc.array(fc.constantFrom(...known), { maxLength: 3 }) }, { requiredKeys: [] }));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<BodySpec>({ kind: 'none' }) },
    { weight: 6, arbitrary: withKnown.map((value): BodySpec => ({ kind: 'json', value })) },
    { weight: 2, arbitrary: hostileJson.map((value): BodySpec => ({ kind: 'json', value })) },
    { weight: 2, arbitrary: brokenJsonText.map((text): BodySpec => ({ kind: 'text', text, contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.oneof(fc.constantFrom(...FORM_TEXT), hostileString).map((text): BodySpec => ({ kind: 'text', text, contentType: 'application/x-www-form-urlencoded' })) },
    { weight: 1, arbitrary: fc.tuple(hostileObject, fc.constantFrom(...ODD_TYPES)).map(([o, contentType]): BodySpec => ({ kind: 'text', text: JSON.stringify(o), contentType })) },
  ).filter((b) => b.kind !== 'json' || notTheSecret(JSON.stringify(b.value) ?? ''));
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/** A hostile request for one of `routes`: mostly its own method, sometimes another. */
export function routeRequest(routes: readonly AnyRoute[], known: readonly string[], knownIds: ReadonlyMap<string, readonly string[]>): fc.Arbitrary<HostileRequest> {
  return fc.constantFrom(...routes).chain((route) =>
    fc
      .record({
        method: fc.oneof({ weight: 8, arbitrary: fc.constant(route.method as string) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) }),
        params: pathParams(route.path, known, knownIds),
        query: queryPairs,
        body: hostileBody(known),
        credential,
        requestId: fc.option(headerText, { nil: undefined }),
      })
      .map(({ method, params, query, body, credential: c, requestId }): HostileRequest => ({
        method,
        pathname: fillPath(route.path, params),
        query: queryString(query),
        body: BODY_METHODS.has(method) ? body : { kind: 'none' },
        credential: c,
        ...(requestId === undefined ? {} : { requestId }),
      })),
  );
}

/** The same request with credentials that stand for no one: refused before any input is read. */
export function withDefect(req: HostileRequest): HostileRequest {
  return { ...req, credential: { kind: 'bearer', value: 'f'.repeat(64) } };
}

/**
 * The request as a fuzz run may send it, with the oracle's verdict: a write
 * the validators would let through gets credentials that stand for no one.
 * Public writes (login, OAuth token) stay as they are: they need a secret the
 * fuzzer never holds (`notTheSecret`; no service account has a known secret).
 */
export function guard(table: RouteTable, generated: HostileRequest): { req: HostileRequest; verdict: Verdict; defectAdded: boolean } {
  const verdict = judge(table, generated);
  if (verdict.kind !== 'write' || verdict.route.roles === 'public') return { req: generated, verdict, defectAdded: false };
  const req = withDefect(generated);
  const guarded = judge(table, req);
  if (guarded.kind !== 'rejected') throw new Error(`the defect did not make ${describe(req)} certain to be refused`);
  return { req, verdict: guarded, defectAdded: true };
}

/**
 * Bodies the legacy operations' parser cannot read: not JSON, not an object
 * or array, a `__proto__` key, or nested deeper than 256 levels (a
 * `constructor.prototype` key is data, so it is not among them). Sent with an administrator's credentials,
 * they must be refused before any call to the core.
 */
export const unreadableJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('{', '{"a":', '[1,]', "{'a':1}", 'undefined', 'NaN', '{"a":1}garbage', '"a string"', '12', 'true', 'null', '{"job_id":'),
  fc.constantFrom('{"__proto__":{"polluted":true}}', '{"query":{"__proto__":{"$where":"1"}}}', '{"body":{"\\u005f_proto__":1}}'),
  fc.integer({ min: 257, max: 20000 }).map((depth) => `{"items":${'['.repeat(depth)}${']'.repeat(depth)}}`),
  fc.tuple(hostileObject, fc.integer({ min: 1, max: 8 })).map(([o, cut]) => JSON.stringify(o).slice(0, -cut)),
);

export type LegacyMode = 'reader' | 'stranger' | 'admin-unreadable-body';

/** A hostile call of a legacy operation, in one of the three modes that cannot change the store. */
export function legacyRequest(entries: readonly Entry[], known: readonly string[], knownIds: ReadonlyMap<string, readonly string[]>): fc.Arbitrary<{ entry: Entry; mode: LegacyMode; req: HostileRequest }> {
  return fc.constantFrom(...entries).chain((entry) => {
    const bodyMethod = BODY_METHODS.has(entry.legacy.method);
    const modes: LegacyMode[] = bodyMethod ? ['reader', 'stranger', 'admin-unreadable-body'] : ['reader', 'stranger'];
    return fc
      .record({
        mode: fc.constantFrom(...modes),
        params: pathParams(entry.legacy.path, known, knownIds),
        query: queryPairs,
        body: hostileBody(known),
        unreadable: unreadableJson,
        stranger: badCredential,
      })
      .map(({ mode, params, query, body, unreadable, stranger }) => {
        const c: Credential = mode === 'reader' ? { kind: 'reader' } : mode === 'stranger' ? stranger : { kind: 'admin' };
        const b: BodySpec = !bodyMethod ? { kind: 'none' } : mode === 'admin-unreadable-body' ? { kind: 'text', text: unreadable, contentType: 'application/json' } : body;
        return { entry, mode, req: { method: entry.legacy.method, pathname: fillPath(entry.legacy.path, params), query: queryString(query), body: b, credential: c } };
      });
  });
}
