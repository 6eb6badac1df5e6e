/**
 * The floor any proxy pays: a bare Node HTTP pass-through on a keep-alive
 * pool, with nothing else. Run as its own process by the gateway benchmark.
 *
 * It sends the same bytes as the gateway, as issue 28 asks of every floor:
 * the caller's headers, and the request id and `X-Forwarded-*` the gateway
 * adds (a new id per request, as the gateway makes one for a caller that
 * sent none). It answers with the core's headers, which already carry the
 * security headers and the id the gateway writes. What it leaves out is the
 * gateway's own work: no hop-by-hop filtering, path checks, error shapes,
 * timeouts, stages, metrics or logging.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.env['TARGET']!);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const server = createServer((req, res) => {
  const headers = req.headers;
  const callerHost = headers.host ?? '';
  headers['host'] = target.host;
  headers['x-request-id'] = randomUUID();
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-host'] = callerHost;
  const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers, agent }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  upstream.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`bare proxy listening on port ${typeof address === 'object' && address ? address.port : 0}`);
});
