/**
 * The floor any rewriting proxy pays: a bare Node server that serves the
 * legacy `GET /workflow_engine/getJob/:id` by calling the core's
 * `GET /operations-manager/jobs/:id` on a keep-alive pool and answering the
 * unwrapped job, with nothing else (no routing table, audit, headers or
 * error shapes). Run as its own process by the gateway benchmark.
 */
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.env['TARGET']!);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const PREFIX = '/workflow_engine/getJob/';
const server = createServer((req, res) => {
  const id = req.url!.startsWith(PREFIX) ? req.url!.slice(PREFIX.length) : '';
  const headers = { accept: 'application/json', authorization: req.headers.authorization ?? '' };
  const upstream = request({ host: target.hostname, port: target.port, path: `/operations-manager/jobs/${encodeURIComponent(id)}`, method: 'GET', headers, agent }, (up) => {
    const chunks: Buffer[] = [];
    up.on('data', (c: Buffer) => chunks.push(c));
    up.on('end', () => {
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: unknown };
      const body = JSON.stringify(envelope.data ?? null);
      res.writeHead(up.statusCode === 200 ? 200 : 500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  upstream.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  upstream.end();
  req.resume();
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`bare rewrite listening on port ${typeof address === 'object' && address ? address.port : 0}`);
});
