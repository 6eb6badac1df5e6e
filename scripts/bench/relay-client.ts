/**
 * Which HTTP client the relay sends with, chosen by measurement: the same GET
 * (Accept, Basic credentials, a kept-alive connection, the body read as text)
 * to the orchestrator stand-in, in this process, with each candidate in turn.
 * CPU per request is this process's (user and system) over a run of calls;
 * `sequential` is one call at a time, `concurrent` ten in flight.
 *
 *   tsx scripts/bench/relay-client.ts [--calls 5000] [--undici path/to/undici/index.js]
 *
 * undici is measured only when a path to it is given (it is not a dependency).
 */
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import got from 'got';
import { startNsoSim } from '../../tools/nso-sim/server.ts';
import { callsInFlight, ms, summarize } from './stats.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '5000' }, undici: { type: 'string' } } });
const calls = Number(values.calls);
const sim = await startNsoSim({ port: 0, username: 'u', password: 'p', seed: true });
const url = new URL(`${sim.url}/restconf/data/tailf-ncs:devices/device=ce0`);
const headers = { accept: 'application/yang-data+json', authorization: `Basic ${Buffer.from('u:p').toString('base64')}` };

type Client = () => Promise<string>;

const agent = new Agent({ keepAlive: true });
const nodeHttp: Client = () =>
  new Promise((done, fail) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers, agent }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (c: string) => (text += c));
      res.on('end', () => done(text));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });

const gotClient = got.extend({ agent: { http: new Agent({ keepAlive: true }) }, throwHttpErrors: false, followRedirect: false, responseType: 'text', retry: { limit: 2 } });
const viaGot: Client = async () => (await gotClient(url, { headers, timeout: { request: 10_000 } })).body;

const clients: Array<[string, Client]> = [
  ['node:http', nodeHttp],
  ['got', viaGot],
];
if (values.undici) {
  const undici = (await import(pathToFileURL(resolve(values.undici)).href)) as typeof import('undici-types');
  const pool = new undici.Pool(url.origin, { connections: 16 });
  clients.push(['undici (Pool.request)', async () => (await pool.request({ path: url.pathname, method: 'GET', headers })).body.text()]);
}

async function cpuPerCall(client: Client, inFlight: number): Promise<number> {
  const before = process.cpuUsage();
  await callsInFlight(calls, inFlight, client);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

for (const [, client] of clients) await cpuPerCall(client, 10);
for (let round = 0; round < 2; round += 1) {
  for (const [name, client] of clients) {
    const samples: number[] = [];
    for (let i = 0; i < Math.min(calls, 2000); i += 1) {
      const t = performance.now();
      await client();
      samples.push(performance.now() - t);
    }
    const s = summarize(samples);
    const concurrent = await cpuPerCall(client, 10);
    console.log(`round ${round + 1}, ${name}: sequential p50 ${ms(s.p50)} ms p99 ${ms(s.p99)} ms; CPU of this process (client and stand-in) per call, 10 in flight: ${concurrent.toFixed(0)} µs`);
  }
}
await sim.close();
process.exit(0);
