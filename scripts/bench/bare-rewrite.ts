/**
 * The floor any rewriting proxy pays: a bare Node server that serves the
 * legacy `GET /workflow_engine/getJob/:id` by calling the core's
 * `GET /operations-manager/jobs/:id` on a keep-alive pool and answering the
 * unwrapped job once its record is journaled, with nothing else (no routing
 * table, audit store, caller check or error shapes), but the same bytes each
 * way as the gateway's. Run as its own process by the gateway benchmark.
 */
import { randomUUID } from 'node:crypto';
import { openSync, writeSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { join } from 'node:path';
import { SECURITY_HEADERS } from '../../kernel/http/raw-answer.ts';

const target = new URL(process.env['TARGET']!);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const PREFIX = '/workflow_engine/getJob/';
/**
 * What the gateway writes on a legacy answer besides the body: the security headers (the kernel's own list) and the
 * deprecation headers (RFC 9745, RFC 8594). These two values are getJob's as the mapping table gives them today;
 * only their size matters.
 */
const ANSWER_HEADERS = { ...SECURITY_HEADERS, deprecation: '@1635465600', sunset: 'Fri, 28 Oct 2022 00:00:00 GMT' };
/**
 * The record every legacy call leaves before it is answered, as the gateway's audit journal keeps it (a kill
 * after the answer keeps the record): the least that does it, one JSON line per call appended to a file, the
 * lines of one turn of the event loop in one write. Nothing is stored or read back later.
 */
// JOURNAL_DIR: a directory the bench removes afterwards.
const journal = openSync(join(process.env['JOURNAL_DIR']!, 'journal.jsonl'), 'a');
let lines = '';
let answers: Array<() => void> = [];
function journaled(line: string, answer: () => void): void {
  if (answers.length === 0) setImmediate(writeTurn);
  lines += line;
  answers.push(answer);
}
function writeTurn(): void {
  writeSync(journal, lines);
  const due = answers;
  lines = '';
  answers = [];
  for (const answer of due) answer();
}

const server = createServer((req, res) => {
  const started = Date.now();
  const id = req.url!.startsWith(PREFIX) ? req.url!.slice(PREFIX.length) : '';
  // The same bytes as the gateway's call: the caller's credentials and the forwarding headers.
  const headers = { accept: 'application/json', 'x-forwarded-for': req.socket.remoteAddress ?? '', 'x-forwarded-proto': 'http', 'x-forwarded-host': req.headers.host ?? '', 'sec-fetch-site': 'same-origin', authorization: req.headers.authorization ?? '' };
  const upstream = request({ host: target.hostname, port: target.port, path: `/operations-manager/jobs/${encodeURIComponent(id)}`, method: 'GET', headers, agent }, (up) => {
    const chunks: Buffer[] = [];
    up.on('data', (c: Buffer) => chunks.push(c));
    up.on('end', () => {
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: unknown };
      const body = JSON.stringify(envelope.data ?? null);
      const status = up.statusCode === 200 ? 200 : 500;
      const record = { time: started, operation: 'getJob', client: { address: req.socket.remoteAddress ?? '', userAgent: req.headers['user-agent'] ?? '' }, status, latencyMs: Date.now() - started };
      journaled(`${JSON.stringify(record)}\n`, () => {
        res.writeHead(status, { ...ANSWER_HEADERS, link: `</operations-manager/jobs/${id}>; rel="successor-version"`, 'x-request-id': randomUUID(), 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
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
