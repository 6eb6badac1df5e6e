/**
 * A search page's answer made from its documents' stored JSON texts, with no
 * document parsed or printed again (search-service.ts decides when a page may
 * pass through this way).
 */
import { enveloped } from '../../../kernel/index.ts';
import type { PageMetadata } from './search-service.ts';

/**
 * The same bytes as `JSON.stringify({ message, data, metadata })` of the
 * parsed documents, in UTF-8: the documents' bytes, already joined by commas,
 * between the envelope's head and tail. The store makes those bytes (on its
 * search thread, with SQLite), so the event loop neither copies the documents'
 * texts nor encodes them (BENCHMARKS.md, "The twenty-first session"), and
 * the envelope is written in the room the store left around them.
 */
export function pageJson(message: string, docs: Buffer, metadata: PageMetadata): Buffer {
  return enveloped(`{"message":${JSON.stringify(message)},"data":[`, docs, `],"metadata":${JSON.stringify(metadata)}}`);
}
