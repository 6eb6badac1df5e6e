/**
 * A search page's answer made from its documents' stored JSON texts, with no
 * document parsed or printed again (search-service.ts decides when a page may
 * pass through this way).
 */
import type { PageMetadata } from './search-service.ts';

/**
 * The same text as `JSON.stringify({ message, data, metadata })` of the parsed
 * documents. Made by one `join`, which gives a flat string: a string made by
 * `+` or a template is a rope, and flattening ~250 KB of rope when the answer's
 * byte length is taken cost 0.15 ms a page of 100 jobs (BENCHMARKS.md, "The
 * search page over HTTP").
 */
export function pageJson(message: string, docs: readonly string[], metadata: PageMetadata): string {
  const head = `{"message":${JSON.stringify(message)},"data":[`;
  const tail = `],"metadata":${JSON.stringify(metadata)}}`;
  if (docs.length === 0) return head + tail;
  const parts = docs.slice();
  parts[0] = head + parts[0]!;
  parts[parts.length - 1] += tail;
  return parts.join(',');
}
