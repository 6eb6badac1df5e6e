/**
 * The floor any proxy pays: a bare Node HTTP pass-through on a keep-alive
 * pool, with nothing else. Run as its own process by the gateway benchmark.
 */
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.env['TARGET']!);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const server = createServer((req, res) => {
  const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent }, (up) => {
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
