/**
 * The restQuery body's hand-written check (core/src/relay/schemas.ts) accepts
 * only what Joi accepts, with Joi's value, and leaves every refusal to Joi:
 * bodies that would smuggle a path out of the adapter, a header line, a key
 * of the prototype or an extra field all get Joi's 400, word for word.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Joi from 'joi';
import { fastBodyCheck } from '../../../kernel/http/fast-params.ts';
import { joiBody } from '../../../kernel/http/validate.ts';
import { restQuerySchema } from '../../../core/src/relay/schemas.ts';

const OPTIONS: Joi.ValidationOptions = { abortEarly: false, convert: true, errors: { wrap: { label: false } } };
const PATH = '/restconf/data/tailf-ncs:devices/device=ce0';
const ACCEPT = 'application/yang-data+json';

const PATHS = [PATH, '', '/', '//evil.example/x', 'http://evil.example/', '/a/../../etc', '/a/%2e%2e/b', '/a/%252e%252e/b', '/a\\b', '/a\r\nX-Injected: 1', '/a?x=..', '/x'.repeat(2049), 7, null];
const ACCEPTS = [ACCEPT, '', 'application/json, text/plain;q=0.5', 'text/plain\r\nX-Injected: 1', 'nonsense', 'a/b,', 'x/y'.repeat(200), ['a/b'], undefined];

function bodies(): unknown[] {
  const out: unknown[] = [];
  for (const path of PATHS) for (const accept of ACCEPTS) out.push({ params: { path, accept } });
  out.push(
    {},
    null,
    [],
    'text',
    { params: null },
    { params: [PATH, ACCEPT] },
    { params: { path: PATH } },
    { params: { path: PATH, accept: ACCEPT, method: 'GET' } },
    { params: { path: PATH, accept: ACCEPT }, body: {} },
    JSON.parse(`{"params":{"path":"${PATH}","accept":"${ACCEPT}"},"__proto__":{"admin":true}}`),
    JSON.parse(`{"params":{"path":"${PATH}","accept":"${ACCEPT}","__proto__":{"x":1}}}`),
    { params: Object.assign(Object.create(null), { path: PATH, accept: ACCEPT }) },
    Object.assign(Object.create({ inherited: true }), { params: { path: PATH, accept: ACCEPT } }),
    { params: Object.assign(Object.create({ path: PATH }), { accept: ACCEPT, extra: undefined }) },
  );
  return out;
}

test('the restQuery check accepts only what Joi accepts, with the value Joi gives', () => {
  const fast = fastBodyCheck(restQuerySchema);
  assert.ok(fast, 'the schema carries its check');
  let accepted = 0;
  for (const body of bodies()) {
    const mine = fast(body);
    if (mine === undefined) continue;
    accepted += 1;
    const joi = restQuerySchema.validate(body, OPTIONS);
    assert.equal(joi.error, undefined, `${JSON.stringify(body)} accepted, Joi refuses it`);
    assert.deepEqual(mine, joi.value);
  }
  assert.ok(accepted >= 2, `only ${accepted} bodies accepted`);
});

test('every body Joi refuses is refused as before, with Joi\'s message', () => {
  const validator = joiBody(restQuerySchema);
  let refused = 0;
  for (const body of bodies()) {
    const joi = restQuerySchema.validate(body ?? {}, OPTIONS);
    if (joi.error === undefined) continue;
    refused += 1;
    assert.throws(() => validator.validate(body ?? {}), (err: unknown) => err instanceof Error && err.message.startsWith('Invalid body: '), JSON.stringify(body));
  }
  assert.ok(refused > 50, `only ${refused} bodies refused`);
  assert.throws(() => validator.validate({ params: { path: '/a/../../etc', accept: ACCEPT } }), /body\.params\.path must not contain a \.\. segment/);
  assert.throws(() => validator.validate({ params: { path: PATH, accept: 'text/plain\r\nX-Injected: 1' } }), /body\.params\.accept must be a media type/);
});
