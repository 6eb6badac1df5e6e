/**
 * What every bare floor shares: a `node:http` server on a free loopback
 * port that says where it listens (as the services do, so `startService`
 * can start it), the body read whole, JSON written with its length, and the
 * core's session lookup for a bearer token. A floor is the least a Node
 * program can do for the same request: no framework, validation, metrics or
 * logging, so what a service spends beyond it is what its own code costs.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STALE_AFTER_MS } from '../../../core/src/auth/service.ts';
import type { Store } from '../../../kernel/index.ts';

export type FloorHandler = (req: IncomingMessage, res: ServerResponse) => void;

export function serveFloor(name: string, handle: FloorHandler): void {
  const server = createServer(handle);
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    console.log(`${name} listening on port ${typeof address === 'object' && address ? address.port : 0}`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Sessions read from the store, by the token's hash, with when they were read. */
const kept = new Map<string, { expiresAt: number; at: number }>();

/**
 * The core's session lookup for `Authorization: Bearer <token>`: the token's SHA-256 read by id from `sessions`
 * and kept for the core's own window (`STALE_AFTER_MS`, core/src/auth/sessions.ts), its expiry checked on every
 * use. True when the session is live. The core's cache does more (ends, generations, the idle touch); this is the
 * least that reads the store as seldom.
 */
export async function liveSession(store: Store, req: IncomingMessage): Promise<boolean> {
  const token = /^Bearer ([0-9a-f]{64})$/.exec(req.headers.authorization ?? '')?.[1];
  if (token === undefined) return false;
  const id = createHash('sha256').update(token).digest('hex');
  const now = Date.now();
  const hit = kept.get(id);
  if (hit !== undefined && now - hit.at < STALE_AFTER_MS && hit.expiresAt > now) return true;
  const session = await store.collection('sessions').findById(id);
  if (session === null) {
    kept.delete(id);
    return false;
  }
  const expiresAt = session['expiresAt'] as number;
  kept.set(id, { expiresAt, at: now });
  return expiresAt > now;
}

/** A floor's answer to a refused or failed request: the status alone, so a bench that sees it stops. */
export function refuse(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}
