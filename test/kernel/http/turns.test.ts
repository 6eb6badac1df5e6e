import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import Koa from 'koa';
import { listen, REQUESTS_PER_TURN } from '../../../kernel/http/listen.ts';
import { takeTurns } from '../../../kernel/http/turns.ts';
import { nextTurn } from '../../helpers/wait.ts';

const fake = (i: number): [IncomingMessage, ServerResponse] => [{ url: `/${i}` } as IncomingMessage, {} as ServerResponse];

test('a request under light load starts at once', () => {
  const started: string[] = [];
  const handler = takeTurns((req) => started.push(req.url!), 8);
  handler(...fake(1));
  assert.deepEqual(started, ['/1']);
});

test('requests that start at once leave no turn scheduled: the loop is not made to poll again for them', async () => {
  const started: string[] = [];
  const handler = takeTurns((req) => started.push(req.url!), 8);
  await nextTurn();
  const immediatesBefore = process.getActiveResourcesInfo().filter((r) => r === 'Immediate').length;
  for (let i = 0; i < 8; i += 1) handler(...fake(i));
  assert.equal(started.length, 8);
  assert.equal(process.getActiveResourcesInfo().filter((r) => r === 'Immediate').length, immediatesBefore);
});

test('requests spread over several turns count together: past perTurn in a row, the next one waits for a turn, and the count starts again there', async () => {
  const started: string[] = [];
  const handler = takeTurns((req) => started.push(req.url!), 4);
  for (let i = 0; i < 4; i += 1) {
    handler(...fake(i));
    await nextTurn();
  }
  handler(...fake(4));
  assert.equal(started.length, 4, 'the fifth in a row waits');
  await nextTurn();
  assert.equal(started.length, 5);
  for (let i = 5; i < 8; i += 1) handler(...fake(i));
  assert.deepEqual(started, Array.from({ length: 8 }, (_, i) => `/${i}`), 'after its turn, requests start at once again');
});

test('a burst starts at most perTurn requests per turn of the event loop, in arrival order, and all of them', async () => {
  const started: string[] = [];
  const handler = takeTurns((req) => started.push(req.url!), 8);
  for (let i = 0; i < 20; i += 1) handler(...fake(i));
  assert.equal(started.length, 8);
  await nextTurn();
  assert.equal(started.length, 16);
  await nextTurn();
  assert.deepEqual(started, Array.from({ length: 20 }, (_, i) => `/${i}`));
});

test('a server busy with a burst of requests accepts a new connection within a few turns, not after the whole burst', async () => {
  const burst = 20 * REQUESTS_PER_TURN;
  let handled = 0;
  let handledWhenAccepted = -1;
  let newcomer: Socket | null = null;
  const app = new Koa();
  app.use((ctx) => {
    // The first request of the burst opens a new connection: from then on it waits to be accepted.
    if (handled === 0) newcomer = connect((server.address() as AddressInfo).port, '127.0.0.1');
    handled += 1;
    ctx.body = 'ok';
  });
  const server = await listen(app, 0, '127.0.0.1');
  const port = (server.address() as AddressInfo).port;
  const clients: Socket[] = [];
  try {
    // Every client connected and accepted before the burst, so the only new connection is the newcomer.
    let accepted = 0;
    const allAccepted = new Promise<void>((resolve) => server.on('connection', () => ++accepted === burst && resolve()));
    for (let i = 0; i < burst; i += 1) clients.push(connect(port, '127.0.0.1'));
    await allAccepted;
    server.on('connection', () => {
      if (handledWhenAccepted === -1) handledWhenAccepted = handled;
    });
    const answered = Promise.all(clients.map((c) => new Promise<void>((resolve) => c.once('data', () => resolve()))));
    for (const c of clients) c.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await answered;
    assert.notEqual(handledWhenAccepted, -1, 'the new connection was accepted');
    assert.ok(handledWhenAccepted <= 3 * REQUESTS_PER_TURN, `accepted after ${handledWhenAccepted} of ${burst} requests were started`);
  } finally {
    for (const c of clients) c.destroy();
    (newcomer as Socket | null)?.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
