/**
 * The floor of the orchestrator relay: a bare Node server that takes the same
 * `POST /orchestrator_manager/restQuery/:adapterId` body, sends its GET to
 * the orchestrator on a kept-alive pool with Basic credentials, and answers
 * `{"instance_data": ...}`; it authenticates no caller and checks nothing but
 * that the answer is JSON (parsed and written again, as any relay that must
 * not pass on a broken answer does).
 * TARGET is the orchestrator's base URL, USERNAME and PASSWORD its credentials.
 */
import { Agent, request } from 'node:http';
import { readBody, refuse, sendJson, serveFloor } from './serve.ts';

const target = new URL(process.env['TARGET']!);
const authorization = `Basic ${Buffer.from(`${process.env['USERNAME']}:${process.env['PASSWORD']}`).toString('base64')}`;
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

serveFloor('bare relay', (req, res) => {
  void readBody(req).then((text) => {
    const { params } = JSON.parse(text) as { params: { path: string; accept: string } };
    const upstream = request({ host: target.hostname, port: target.port, path: params.path, method: 'GET', headers: { accept: params.accept, authorization }, agent }, (up) => {
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        sendJson(res, up.statusCode === 200 ? 200 : 502, JSON.stringify({ instance_data: text === '' ? null : (JSON.parse(text) as unknown) }));
      });
    });
    upstream.on('error', () => refuse(res, 502));
    upstream.end();
  });
});
