/**
 * How the stand-ins read a request body: whole, up to a limit; past it the
 * rest is drained, not kept, and the answer is null so the stand-in can
 * refuse the request as its peer would.
 */
import type { IncomingMessage } from 'node:http';

export function readBodyUpTo(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
