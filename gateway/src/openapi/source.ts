/**
 * The gateway's document, made from the core's: the core describes its own
 * operations at its `GET /openapi.json`, and the gateway adds the legacy ones
 * and its own routes to what it reads there (docs/openapi.md). The copy is
 * kept a minute, so a core upgraded behind a running gateway shows within
 * one, and concurrent readers share one request to the core.
 */
import { AppError } from '../../../kernel/index.ts';
import type { OpenApiDocument } from '../../../kernel/index.ts';
import type { CoreClient } from '../core-client.ts';

export const CORE_DOCUMENT_MAX_AGE_MS = 60_000;

/** The core's document as the core serves it, without credentials (it is public). */
export function fetchCoreDocument(client: CoreClient): () => Promise<OpenApiDocument> {
  const call = client.forCaller({});
  return async () => {
    const unreadable = (why: string) => new AppError(502, 'UPSTREAM_FAILED', `The core's description could not be read (${why}); try again shortly`);
    const answer = await call({ method: 'GET', path: '/openapi.json', query: {}, body: undefined }).catch((err: unknown) => {
      throw unreadable(err instanceof Error ? err.message : 'no answer');
    });
    const body = answer.body as Partial<OpenApiDocument> | null;
    if (answer.status !== 200 || typeof body !== 'object' || body === null || typeof body.paths !== 'object') throw unreadable(`status ${answer.status}`);
    return body as OpenApiDocument;
  };
}

/** The gateway's document as JSON text, rebuilt from a fresh copy of the core's once the last is `maxAgeMs` old. */
export function documentSource(readCore: () => Promise<OpenApiDocument>, build: (core: OpenApiDocument) => OpenApiDocument, maxAgeMs = CORE_DOCUMENT_MAX_AGE_MS, now: () => number = Date.now): () => Promise<string> {
  let cached: { at: number; json: Promise<string> } | null = null;
  return () => {
    if (cached && now() - cached.at < maxAgeMs) return cached.json;
    const json = readCore().then((core) => JSON.stringify(build(core)));
    const entry = { at: now(), json };
    cached = entry;
    // A failed read is not kept: the next request asks the core again.
    json.catch(() => {
      if (cached === entry) cached = null;
    });
    return json;
  };
}
