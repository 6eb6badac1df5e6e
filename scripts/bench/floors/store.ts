/**
 * The store a core floor reads: the core's own SQLite file (DATA_DIR),
 * opened through the kernel as the core opens it, with the core's search
 * limits. Floors run beside a core on the same file, as a second core would.
 */
import { loadConfig } from '../../../config/load.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';
import { SqliteStore } from '../../../kernel/index.ts';
import type { Store } from '../../../kernel/index.ts';
import type { DocType } from '../../../kernel/search/fields.ts';
import type { SearchLimits } from '../../../kernel/search/parse-search.ts';
import type { Doc } from '../../../kernel/index.ts';

export async function openCoreStore(): Promise<{ store: Store; limits: SearchLimits }> {
  const config = await loadConfig({ env: { ...process.env, MONGO_URL: '' } });
  const store = SqliteStore.open({ dataDir: config.dataDir, countCacheEntries: config.search.countCacheEntries, collections: CORE_COLLECTIONS });
  return { store, limits: config.search };
}

/** A document as answers show it: without what only a dereference shows (a job's `output`) or none does (bookkeeping). */
export function shown(type: DocType, doc: Doc): Doc {
  const out: Doc = {};
  for (const [key, value] of Object.entries(doc)) if (!type.dereferenceOnly.has(key) && !type.internal.has(key)) out[key] = value;
  return out;
}
