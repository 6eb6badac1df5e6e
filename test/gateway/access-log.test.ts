/**
 * Every answer of the gateway gets one access-log line at the `http` level,
 * with its request id, whichever way it is served: the pass-through and the
 * legacy dispatcher on node:http, the gateway's own routes in Koa.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../kernel/logger.ts';
import { openTestStore } from '../helpers/stores.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { nextTurn } from '../helpers/wait.ts';

let core: RunningCore;
let gw: RunningGateway;
const lines: Array<Record<string, unknown>> = [];

before(async () => {
  core = await startCore((await openTestStore()));
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  gw = await startGateway(core.url, {}, { logger: createLogger({ level: 'http', service: 'gateway', stream }) });
});
after(async () => {
  await gw.close();
  await core.close();
});

/** The access-log lines of one request id, a turn of the event loop after its answer (when the line is written). */
async function accessLines(requestId: string): Promise<Array<Record<string, unknown>>> {
  await nextTurn();
  return lines.filter((l) => l['message'] === 'request' && l['requestId'] === requestId);
}

test('a pass-through call, a legacy call and a gateway route each get one access-log line with their id and status', async () => {
  const auth = { authorization: `Bearer ${core.adminToken}` };
  const calls: Array<[string, number, Record<string, string>]> = [
    ['/operations-manager/jobs?limit=1', 200, auth],
    ['/workflow_engine/getJob/no-such-job', 500, auth],
    ['/gateway/health/live', 200, {}],
  ];
  for (const [path, status, headers] of calls) {
    const id = `access-${status}-${path.length}`;
    const res = await fetch(`${gw.url}${path}`, { headers: { ...headers, 'x-request-id': id } });
    await res.text();
    assert.equal(res.status, status, path);
    assert.equal(res.headers.get('x-request-id'), id);
    const logged = await accessLines(id);
    assert.equal(logged.length, 1, `${path}: ${JSON.stringify(lines.slice(-3))}`);
    assert.equal(logged[0]!['status'], status);
    assert.equal(logged[0]!['method'], 'GET');
    assert.equal(logged[0]!['path'], path.split('?')[0]);
    assert.equal(typeof logged[0]!['ms'], 'number');
  }
});
