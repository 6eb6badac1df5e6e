/**
 * The core's JSON body reader answers every request as @koa/bodyparser,
 * configured as the core configures it, answers it alone: the same status,
 * error message, parsed body and raw text, for the bodies it reads itself and
 * for those it hands to the body parser. And it does read the common one.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { Middleware } from 'koa';
import { jsonBody } from '../../../core/src/http/json-body.ts';
import { AppError, bodyError } from '../../../kernel/index.ts';

const LIMIT = 2048;

function parser(): Middleware {
  return bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: LIMIT,
    formLimit: LIMIT,
    onError: (err) => {
      throw bodyError(err);
    },
  });
}

let fellBack = 0;

/** Answers what the body became, or the error's status, code and message. */
function serve(reader: Middleware): Promise<Server> {
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const known = err instanceof AppError ? err : new AppError(500, 'INTERNAL', String(err));
      ctx.status = known.status;
      ctx.body = { code: known.code, message: known.message };
    }
  });
  app.use(reader);
  app.use((ctx) => {
    const request = ctx.request as { body?: unknown; rawBody?: unknown };
    const body = request.body;
    const prototype = body !== null && typeof body === 'object' ? (Object.getPrototypeOf(body) === Object.prototype ? 'object' : Array.isArray(body) ? 'array' : 'other') : typeof body;
    ctx.body = { body: body === undefined ? '(none)' : body, rawBody: request.rawBody ?? '(none)', prototype };
  });
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

let plain: Server;
let ours: Server;

before(async () => {
  plain = await serve(parser());
  const counted = parser();
  ours = await serve(
    jsonBody({
      limit: LIMIT,
      onError: bodyError,
      fallback: (ctx, next) => {
        fellBack += 1;
        return counted(ctx, next);
      },
    }),
  );
});
after(() => {
  plain.close();
  ours.close();
});

interface Sent {
  readonly method?: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer | string;
  /** Send without a length, in two pieces. */
  readonly chunked?: boolean;
}

function send(server: Server, sent: Sent): Promise<{ status: number; text: string }> {
  const { port } = server.address() as AddressInfo;
  const body = typeof sent.body === 'string' ? Buffer.from(sent.body) : sent.body;
  const headers = sent.chunked ? sent.headers : { ...sent.headers, 'content-length': String(body.length) };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: sent.method ?? 'POST', path: '/', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    if (sent.chunked) {
      req.write(body.subarray(0, 3));
      req.end(body.subarray(3));
    } else req.end(body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const json = (body: Buffer | string, extra: Partial<Sent> = {}): Sent => ({ headers: JSON_TYPE, body, ...extra });

const COMMON: Sent[] = [
  json('{"params":{"path":"/restconf/data/x","accept":"application/yang-data+json"}}'),
  json('[1,2,{"a":null}]'),
  json(''),
  json('  \n{"a":1}'),
  json('{"constructor":{"prototype":{"polluted":true}}}'),
  json('{"x":"__proto__","y":"\\"__proto__\\""}'),
  json('{"a":1,"a":2}'),
  json(`{"a":"${'é'.repeat(900)}"}`),
  json(`{"a":"${'x'.repeat(LIMIT - 8)}"}`),
  { headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"a":1}' },
  { headers: { 'content-type': 'Application/JSON;charset=UTF-8' }, body: '{"a":1}' },
  { method: 'PUT', headers: JSON_TYPE, body: '{"a":1}' },
  { method: 'PATCH', headers: JSON_TYPE, body: '{"a":1}' },
];

const REFUSED_OR_ODD: Sent[] = [
  json('   '),
  json('"a string"'),
  json('1'),
  json('null'),
  json('{bad'),
  json('{"a":1}x'),
  json('{"__proto__":{"polluted":true}}'),
  json('{"a":{"__proto__" : 1}}'),
  json('{"a":[{"\\u005f\\u005Fproto__":1}]}'),
  json('\uFEFF{"a":1}'),
  json(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
  json(Buffer.concat([Buffer.from('{"a":"'), Buffer.from('€').subarray(0, 2), Buffer.from('"}')])),
];

const FALLING_BACK: Sent[] = [
  json(`{"a":"${'x'.repeat(LIMIT)}"}`),
  json('{"a":1}', { chunked: true }),
  { headers: { ...JSON_TYPE, 'content-encoding': 'gzip' }, body: gzipSync('{"a":1}') },
  { headers: { ...JSON_TYPE, 'content-encoding': 'br' }, body: '{"a":1}' },
  { headers: { 'content-type': 'application/json; charset=utf-16' }, body: '{"a":1}' },
  { headers: { 'content-type': 'application/json; charset=latin1' }, body: '{"a":1}' },
  { headers: { 'content-type': 'application/vnd.api+json' }, body: '{"a":1}' },
  { headers: { 'content-type': 'application/json;;' }, body: '{"a":1}' },
  { headers: { 'content-type': 'text/plain' }, body: '{"a":1}' },
  { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&__proto__[x]=1' },
  { headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--' },
  { headers: {}, body: '{"a":1}' },
  { method: 'DELETE', headers: JSON_TYPE, body: '{"a":1}' },
  { method: 'GET', headers: JSON_TYPE, body: '{"a":1}' },
];

test('every body is answered as the body parser alone answers it: status, message, parsed body and raw text', async () => {
  for (const sent of [...COMMON, ...REFUSED_OR_ODD, ...FALLING_BACK]) {
    const expected = await send(plain, sent);
    const got = await send(ours, sent);
    const what = `${sent.method ?? 'POST'} ${JSON.stringify(sent.headers)} ${String(sent.body).slice(0, 60)}`;
    assert.deepEqual(got, expected, what);
  }
});

test('the common JSON bodies, refused or not, are read without the body parser; the rest go to it', async () => {
  for (const sent of [...COMMON, ...REFUSED_OR_ODD]) {
    fellBack = 0;
    await send(ours, sent);
    assert.equal(fellBack, 0, `read by the body parser: ${JSON.stringify(sent.headers)} ${String(sent.body).slice(0, 60)}`);
  }
  for (const sent of FALLING_BACK) {
    fellBack = 0;
    await send(ours, sent);
    assert.equal(fellBack, 1, `not handed on: ${sent.method ?? 'POST'} ${JSON.stringify(sent.headers)}`);
  }
});
