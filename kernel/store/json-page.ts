/** The documents of a page `searchJson` answered as bytes, for a reader that must change or inspect them. */
import type { Doc, JsonSearchResult } from './types.ts';

export function pageDocs(page: JsonSearchResult): Doc[] {
  return page.count === 0 ? [] : (JSON.parse(`[${page.json.toString('utf8')}]`) as Doc[]);
}
