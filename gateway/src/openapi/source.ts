/**
 * The gateway's document, made from its upstream's: the core describes its
 * own operations at `GET /openapi.json`, a real platform at
 * `GET /help/openapi`, and the gateway adds the legacy ones and its own
 * routes to what it reads there (docs/openapi.md); an upstream with neither
 * gets a document of the gateway's operations alone, saying so. The copy is
 * kept a minute, so a core upgraded behind a running gateway shows within
 * one, and concurrent readers share one request to the core.
 */
import { AppError } from '../../../kernel/index.ts';
import type { OpenApiDocument } from '../../../kernel/index.ts';
import type { CoreClient } from '../core-client.ts';

export const CORE_DOCUMENT_MAX_AGE_MS = 60_000;

/**
 * Where an upstream describes itself: our core at `/openapi.json`, a real
 * platform at `/help/openapi` (since 2023.2, whose release notes list the
 * older help endpoints as removed; docs/real-platform.md).
 */
export const UPSTREAM_DOCUMENTS = ['/openapi.json', '/help/openapi'] as const;

/** The upstream's description, or why there is none (it answered, but at neither path). */
export type UpstreamDescription = { readonly document: OpenApiDocument; readonly from: string } | { readonly document: null; readonly why: string };

/**
 * The upstream's document as it serves it, without credentials (it is
 * public), from the first of UPSTREAM_DOCUMENTS that answers one. An
 * upstream that cannot be reached is a 502: whether it has a document is not
 * known, so nothing is said about it.
 */
export function fetchCoreDocument(client: CoreClient): () => Promise<UpstreamDescription> {
  const call = client.forCaller({});
  return async () => {
    const answered: string[] = [];
    for (const path of UPSTREAM_DOCUMENTS) {
      const answer = await call({ method: 'GET', path, query: {}, body: undefined }).catch((err: unknown) => {
        throw new AppError(502, 'UPSTREAM_FAILED', `The upstream's description could not be read (${err instanceof Error ? err.message : 'no answer'}); try again shortly`);
      });
      const body = answer.body as Partial<OpenApiDocument> | null;
      if (answer.status === 200 && typeof body === 'object' && body !== null && typeof body.paths === 'object' && body.paths !== null) return { document: body as OpenApiDocument, from: path };
      answered.push(`${path} answered ${answer.status}${answer.status === 200 ? ' without paths' : ''}`);
    }
    return { document: null, why: answered.join(', ') };
  };
}

/** The gateway's document as JSON text, rebuilt from a fresh copy of the core's once the last is `maxAgeMs` old. */
export function documentSource<T>(readCore: () => Promise<T>, build: (core: T) => OpenApiDocument, maxAgeMs = CORE_DOCUMENT_MAX_AGE_MS, now: () => number = Date.now): () => Promise<string> {
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
