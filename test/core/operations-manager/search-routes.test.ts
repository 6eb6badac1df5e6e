/**
 * A search page passes stored JSON texts through into its answer (no
 * projection that adds, no dereference). Those texts came from users, so a
 * document built to break out of its place in the answer must still answer
 * as the same JSON value the parsed path gives, with the engine's fields and
 * the dereference-only output removed at the top level only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyProjection, jobs as jobType, parseSearch } from '../../../kernel/index.ts';
import type { Doc } from '../../../kernel/index.ts';
import { pageMetadata } from '../../../core/src/operations-manager/search-service.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { jobId } from '../../fixtures/search-data.ts';

const HOSTILE = ['","', '}', '"}]},{"_id":"forged"}', '</script><script>alert(1)</script>', '\ud800', 'a\udfffb', '\u2028\u2029', '\\"', 'é 😀'];

/** Variables parsed from text, as a client's body would be: `__proto__` is then an own key, not a prototype. */
function hostileJob(n: number): Doc {
  const text = HOSTILE[n % HOSTILE.length]!;
  const variables = JSON.parse(`{"__proto__":{"polluted":${JSON.stringify(text)}},"nested":{"__proto__":{"x":1}}}`) as Doc;
  return {
    _id: jobId(n),
    name: `job ${text} ${n}`,
    description: text,
    status: 'running',
    variables: Object.assign(variables, { [text]: text, _rev: 'kept: not at the top level', output: [text] }),
    output: { secret: text },
    _rev: 7,
    _principal: { account: 'hidden' },
  };
}

let core: RunningCore;
const stored = Array.from({ length: HOSTILE.length * 2 }, (_, i) => hostileJob(i + 1));

before(async () => {
  const store = await openTestStore();
  await store.collection('jobs').insertMany(stored);
  core = await startCore(store);
});
after(() => core.close());

/** The answer the parsed path gives: documents parsed, hidden fields projected away, serialised once. */
async function parsedAnswer(query: string): Promise<unknown> {
  const request = parseSearch(jobType, query, core.config.search);
  const { docs, total } = await core.store.collection('jobs').search(request);
  const hidden = { kind: 'exclude', paths: [...jobType.dereferenceOnly, ...jobType.internal] } as const;
  const data = docs.map((d) => applyProjection(applyProjection(d, hidden), request.projection));
  return JSON.parse(JSON.stringify({ message: 'Successfully retrieved items', data, metadata: pageMetadata(request.skip, request.limit, total, data.length) }));
}

async function answerText(query: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${core.url}/operations-manager/jobs?${query}`, { headers: { authorization: `Bearer ${core.adminToken}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

test('documents whose fields carry JSON syntax, script tags, __proto__ and lone surrogates answer as the same JSON value as the parsed path', async () => {
  for (const query of ['limit=100', 'limit=5&skip=3&sort=name&order=-1', 'exclude=description&limit=100', `equals[description]=${encodeURIComponent('","')}`]) {
    const answer = await answerText(query);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.type, 'application/json; charset=utf-8');
    assert.deepStrictEqual(JSON.parse(answer.text), await parsedAnswer(query), query);
  }
});

test('a passed-through page holds each stored document once, with its own __proto__ key and its lone surrogates intact', async () => {
  const body = JSON.parse((await answerText('limit=100')).text) as { data: Array<Record<string, unknown>>; metadata: { total: number; currentPageSize: number } };
  assert.equal(body.data.length, stored.length);
  assert.equal(body.metadata.currentPageSize, stored.length);
  assert.deepEqual(body.data.map((d) => d['_id']).sort(), stored.map((d) => d['_id']).sort());
  const lone = body.data.find((d) => d['description'] === '\ud800');
  assert.ok(lone, 'the lone high surrogate came back as itself');
  const variables = lone['variables'] as Record<string, unknown>;
  assert.ok(Object.hasOwn(variables, '__proto__'));
  assert.deepEqual(variables['__proto__'], { polluted: '\ud800' });
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

test('the engine fields and the output are removed at the top level only', async () => {
  const body = JSON.parse((await answerText('limit=100')).text) as { data: Array<Record<string, unknown>> };
  for (const doc of body.data) {
    for (const hidden of ['_rev', '_principal', 'output']) assert.equal(Object.hasOwn(doc, hidden), false, hidden);
    const variables = doc['variables'] as Record<string, unknown>;
    assert.equal(variables['_rev'], 'kept: not at the top level');
    assert.ok(Array.isArray(variables['output']));
  }
});

test('a page that matches nothing answers an empty data array with its metadata', async () => {
  const answer = await answerText('equals[name]=nobody');
  assert.equal(answer.status, 200);
  assert.deepStrictEqual(JSON.parse(answer.text), await parsedAnswer('equals[name]=nobody'));
});
