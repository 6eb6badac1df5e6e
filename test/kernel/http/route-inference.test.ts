/**
 * Routes declare no type parameters: each handler's inputs are inferred from
 * the route's own validators. The attack is a handler reading an input it has
 * no validator for as `any` (which the route table's AnyRoute would otherwise
 * lend it); the `NotAny` lines below stop compiling if that comes back, and
 * `npx tsc --noEmit -p .` is part of every change's checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Joi from 'joi';
import { joiParams, routeHelper } from '../../../kernel/index.ts';
import type { AnyRoute, RouteContext } from '../../../kernel/index.ts';

type IsAny<T> = 0 extends 1 & T ? true : false;

const route = routeHelper({ provenance: 'Test', shape: 'plain' });
const idParam = joiParams<{ id: string }>(Joi.object({ id: Joi.string().required() }));

test('a handler reads what its validators produce, and an input it declares no validator for is empty, never any', async () => {
  // In an AnyRoute[] as every module's table is: the context must not make the inputs any.
  const routes: AnyRoute[] = [
    route({
      method: 'GET',
      path: '/things/:id',
      name: 'getThing',
      roles: 'public',
      description: 'One thing',
      answer: null,
      input: { params: idParam },
      async handle({ params, query, body }) {
        const paramsTyped: IsAny<typeof params> = false;
        const queryTyped: IsAny<typeof query> = false;
        const bodyTyped: IsAny<typeof body> = false;
        const id: string = params.id;
        return { body: { id, typed: paramsTyped || queryTyped || bodyTyped ? 'no' : 'yes' } };
      },
    }),
  ];
  const [getThing] = routes;
  const params = getThing!.input.params!.validate({ id: 'a1' });
  const answer = await getThing!.handle({ params, query: {}, body: undefined }, {} as RouteContext);
  assert.deepEqual(answer, { body: { id: 'a1', typed: 'yes' } });
  assert.equal(getThing!.declaredIn, 'test/kernel/http/route-inference.test.ts');
});
