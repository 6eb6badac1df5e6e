/**
 * kernel/http/fast-params.ts: the compiled check accepts only what Joi
 * accepts, with Joi's value, for every path-parameter schema of the core;
 * whatever Joi refuses is handed back to Joi, so the refusal is Joi's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Joi from 'joi';
import { createCoreApp } from '../../../core/src/app.ts';
import { compileParams } from '../../../kernel/http/fast-params.ts';
import type { FastCheck } from '../../../kernel/http/fast-params.ts';
import type { InputSchema } from '../../../kernel/http/route.ts';
import { joiObjectId, joiParams } from '../../../kernel/http/validate.ts';
import { ValidationError } from '../../../kernel/errors.ts';
import { createLogger } from '../../../kernel/logger.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { testConfig } from '../../helpers/core.ts';

const OPTIONS: Joi.ValidationOptions = { abortEarly: false, convert: true, errors: { wrap: { label: false } } };

/** Values meant to sit on each side of every rule: case, length, the empty string, lookalikes that change length when lower-cased. */
const VALUES = [
  '0123456789abcdef01234567', '0123456789ABCDEF01234567', '0123456789abcdef0123456', '0123456789abcdef012345678', '0123456789abcdef0123456g',
  '', ' ', 'a', 'name with spaces', 'x'.repeat(200), 'x'.repeat(201), '\u0130'.repeat(12), '\u0130'.repeat(23), 'A\u0130', 'Bench NSO', '../etc', '%2F', 'docs.css',
];

function inputsFor(keys: readonly string[]): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [{}];
  for (const v of VALUES) {
    out.push(Object.fromEntries(keys.map((k) => [k, v])));
    if (keys.length > 1) out.push({ [keys[0]!]: v });
    out.push({ ...Object.fromEntries(keys.map((k) => [k, '0123456789abcdef01234567'])), extra: v });
  }
  return out;
}

test('the compiled check accepts only what Joi accepts, with the value Joi gives, for every path-parameter schema of the core', async () => {
  const store = await openTestStore();
  const { routes } = createCoreApp({ store, config: await testConfig(), logger: createLogger({ level: 'error', service: 'test', silent: true }) });
  let compiled = 0;
  let accepted = 0;
  for (const route of routes) {
    const described: InputSchema | undefined = route.input.params?.schema;
    if (!described || !('joi' in described)) continue;
    const fast: FastCheck | null = compileParams(described.joi);
    if (fast === null) continue;
    compiled += 1;
    const keys = Object.keys((described.joi.describe() as { keys: object }).keys);
    for (const raw of inputsFor(keys)) {
      const joi = described.joi.validate(raw, OPTIONS);
      const mine: Record<string, string> | undefined = fast(raw);
      if (mine === undefined) continue;
      accepted += 1;
      assert.equal(joi.error, undefined, `${route.method} ${route.path}: ${JSON.stringify(raw)} accepted, Joi refuses it`);
      assert.deepEqual(mine, joi.value, `${route.method} ${route.path}: ${JSON.stringify(raw)}`);
    }
  }
  // The job routes' id parameters at least: the check is used, not only compiled.
  assert.ok(compiled >= 10, `only ${compiled} schemas compiled`);
  assert.ok(accepted > compiled, `only ${accepted} inputs accepted`);
});

test('refusals are Joi\'s own: the message names the parameter and the rule as before', () => {
  const params = joiParams(Joi.object({ id: joiObjectId('a job id').required() }));
  assert.deepEqual(params.validate({ id: '0123456789ABCDEF01234567' }), { id: '0123456789abcdef01234567' });
  const refused: Array<Record<string, string>> = [{ id: '0123456789abcdef0123456' }, { id: '' }, {}, { id: '0123456789abcdef01234567', other: 'x' }];
  for (const raw of refused) {
    assert.throws(() => params.validate(raw), (err: unknown) => err instanceof ValidationError && /^Invalid params: /.test(err.message), JSON.stringify(raw));
  }
  assert.throws(() => params.validate({ id: 'zz' }), /params\.id must be a job id of exactly 24 hexadecimal characters/);
});

test('schemas with rules the check does not know are left to Joi', () => {
  assert.equal(compileParams(Joi.object({ id: Joi.string().valid('a', 'b') })), null, 'a list of values');
  assert.equal(compileParams(Joi.object({ id: Joi.string().trim() })), null, 'a conversion other than lower case');
  assert.equal(compileParams(Joi.object({ id: Joi.number() })), null, 'a number');
  assert.equal(compileParams(Joi.object({ id: Joi.string() }).unknown(true)), null, 'unknown keys allowed');
  assert.equal(compileParams(Joi.object({ id: Joi.string().pattern(/a/, { invert: true }) })), null, 'an inverted pattern');
  assert.equal(compileParams(Joi.object({ id: Joi.string().custom((v: string) => v) })), null, 'a custom rule');
  assert.notEqual(compileParams(Joi.object({ id: Joi.string().min(1).max(200).required() })), null);
});
