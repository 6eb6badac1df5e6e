/**
 * A search page's answer made from its documents' stored JSON texts, with no
 * document parsed or printed again (search-service.ts decides when a page may
 * pass through this way).
 */
import type { PageMetadata } from './search-service.ts';

/**
 * The same bytes as `JSON.stringify({ message, data, metadata })` of the
 * parsed documents, in UTF-8: the documents' bytes, already joined by commas,
 * between the envelope's head and tail. The store makes those bytes (on its
 * search thread, with SQLite), so the event loop neither copies the documents'
 * texts nor encodes them (BENCHMARKS.md, "The twenty-first session").
 */
export function pageJson(message: string, docs: Buffer, metadata: PageMetadata): Buffer {
  const head = Buffer.from(`{"message":${JSON.stringify(message)},"data":[`);
  const tail = Buffer.from(`],"metadata":${JSON.stringify(metadata)}}`);
  return Buffer.concat([head, docs, tail]);
}
