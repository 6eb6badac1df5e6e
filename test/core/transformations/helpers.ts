/**
 * Shared pieces of the transformation tests: a core per test file, requests,
 * and a transformation that picks the first fruit out of a basket.
 */
import assert from 'node:assert/strict';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';

export type Json = Record<string, unknown>;

export const OBJECT_ID = /^[0-9a-f]{24}$/;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function sender(core: () => RunningCore) {
  return (method: string, path: string, body?: unknown, token?: string | null): Promise<JsonResponse> =>
    core().request(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      ...(token === undefined ? {} : { token }),
    });
}

/** Incoming `basket` (items with name and kind), outgoing `fruit` (a string). */
export function fruitPicker(name: string): Json {
  return {
    name,
    description: `${name} (test)`,
    incoming: [
      {
        $id: 'basket',
        type: 'object',
        properties: { items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, kind: { type: 'string' } }, required: ['name', 'kind'] } } },
        required: ['items'],
      },
    ],
    outgoing: [{ $id: 'fruit', type: 'string' }],
    mapping: '{"fruit": basket.items[kind = "fruit"][0].name}',
  };
}

export const BASKET = { items: [{ name: 'leek', kind: 'vegetable' }, { name: 'apple', kind: 'fruit' }, { name: 'pear', kind: 'fruit' }] };

export async function createOk(send: ReturnType<typeof sender>, doc: Json): Promise<Json> {
  const res = await send('POST', '/transformations/', doc);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Json;
}

/** The `parameter` of every detail of a plain-shape error answer. */
export function parameters(res: JsonResponse): string[] {
  return ((res.body as { details: Array<{ parameter: string }> }).details ?? []).map((d) => d.parameter);
}
