/**
 * The floor any rewriting proxy pays: a bare Node server that serves the
 * legacy `GET /workflow_engine/getJob/:id` by calling the core's
 * `GET /operations-manager/jobs/:id` on a keep-alive pool and answering the
 * unwrapped job, with nothing else (no routing table, audit, headers or
 * error shapes), but the same bytes each way as the gateway's. Run as its
 * own process by the gateway benchmark.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.env['TARGET']!);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const PREFIX = '/workflow_engine/getJob/';
/**
 * What the gateway writes on a legacy answer besides the body: the security headers and the deprecation headers
 * (RFC 9745, RFC 8594). The values here are getJob's as the mapping table gives them today; only their size matters.
 */
const ANSWER_HEADERS = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer', deprecation: '@1635465600', sunset: 'Fri, 28 Oct 2022 00:00:00 GMT' };
const server = createServer((req, res) => {
  const id = req.url!.startsWith(PREFIX) ? req.url!.slice(PREFIX.length) : '';
  // The same bytes as the gateway's call: the caller's credentials and the forwarding headers.
  const headers = { accept: 'application/json', 'x-forwarded-for': req.socket.remoteAddress ?? '', 'x-forwarded-proto': 'http', 'x-forwarded-host': req.headers.host ?? '', 'sec-fetch-site': 'same-origin', authorization: req.headers.authorization ?? '' };
  const upstream = request({ host: target.hostname, port: target.port, path: `/operations-manager/jobs/${encodeURIComponent(id)}`, method: 'GET', headers, agent }, (up) => {
    const chunks: Buffer[] = [];
    up.on('data', (c: Buffer) => chunks.push(c));
    up.on('end', () => {
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: unknown };
      const body = JSON.stringify(envelope.data ?? null);
      res.writeHead(up.statusCode === 200 ? 200 : 500, { ...ANSWER_HEADERS, link: `</operations-manager/jobs/${id}>; rel="successor-version"`, 'x-request-id': randomUUID(), 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
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
