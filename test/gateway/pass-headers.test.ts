/**
 * The pass-through's header lists (gateway/src/pass-headers.ts): checked
 * against the plain rule, copy everything and then delete the hop-by-hop
 * names and those `Connection` lists (RFC 9110 section 7.6.1), over random
 * header sets; the HTTP side is in passthrough.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import fc from 'fast-check';
import { endToEnd, leavingOut } from '../../gateway/src/pass-headers.ts';

const HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'upgrade', 'transfer-encoding'];

/** The rule as first written: a copy with the hop-by-hop names deleted. */
function byDeletion(headers: IncomingHttpHeaders, skip: ReadonlySet<string>): Record<string, string | string[]> {
  const copy: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) copy[name] = value;
  const connection = headers['connection'];
  for (const name of [...HOP, ...skip]) delete copy[name];
  if (connection !== undefined) for (const listed of String(connection).split(',')) delete copy[listed.trim().toLowerCase()];
  return copy;
}

/** A flat list back into an object, values of a repeated name as a list. */
function asObject(pairs: readonly string[]): Record<string, string | string[]> {
  // No prototype: a header named `constructor` must read as nothing until it is set.
  const out: Record<string, string | string[]> = Object.create(null);
  for (let i = 0; i < pairs.length; i += 2) {
    const [name, value] = [pairs[i]!, pairs[i + 1]!];
    const had = out[name];
    out[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return out;
}

test('a header list keeps exactly what the copy-and-delete rule keeps, over random headers', () => {
  const name = fc.oneof(fc.constantFrom(...HOP, 'x-private', 'authorization', 'content-type', 'set-cookie', 'host', 'x-request-id', 'constructor', 'toString'), fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/));
  const connection = fc.array(fc.oneof(name, fc.constantFrom('Keep-Alive', ' X-Private ', 'close', '')), { maxLength: 4 }).map((names) => names.join(','));
  const value = fc.oneof(fc.string({ maxLength: 8 }), fc.array(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 3 }));
  fc.assert(
    fc.property(fc.dictionary(name, value), fc.option(connection, { nil: undefined }), fc.subarray(['host', 'x-request-id', 'x-frame-options']), (headers, listed, skip) => {
      const incoming: IncomingHttpHeaders = { ...headers };
      if (listed !== undefined) incoming['connection'] = listed;
      const got = asObject(endToEnd(incoming, leavingOut(skip)));
      const expected = byDeletion(incoming, new Set(skip));
      // A one-value list reads back as its value.
      for (const [k, v] of Object.entries(expected)) if (Array.isArray(v) && v.length === 1) expected[k] = v[0]!;
      assert.deepEqual(got, expected);
    }),
    { numRuns: 500 },
  );
});

test('the usual keep-alive Connection header and a listed private header: only the private one and the hop-by-hop ones go', () => {
  const list = endToEnd({ connection: 'keep-alive, x-private', 'keep-alive': 'timeout=5', 'x-private': 'secret', te: 'trailers', upgrade: 'h2c', 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] }, leavingOut([]));
  assert.deepEqual(list, ['content-type', 'application/json', 'set-cookie', 'a=1', 'set-cookie', 'b=2']);
});
