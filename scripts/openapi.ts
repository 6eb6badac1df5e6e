/**
 * `npm run openapi`: writes both services' OpenAPI documents to docs/
 * (`openapi.json`, the gateway's, which holds the core operations it passes
 * through; `openapi-core.json`, the core's), as the services serve them with
 * the shipped configuration. A test keeps the committed files equal to what
 * this makes. `--check` writes nothing and exits 1 when they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/load.ts';
import { buildDocuments } from './openapi-documents.ts';

export const DOCUMENT_FILES = {
  gateway: fileURLToPath(new URL('../docs/openapi.json', import.meta.url)),
  core: fileURLToPath(new URL('../docs/openapi-core.json', import.meta.url)),
} as const;

/** The shipped configuration only: the environment of whoever runs the script must not change the files. */
export async function committedDocuments(): Promise<Record<keyof typeof DOCUMENT_FILES, string>> {
  const config = await loadConfig({ env: {} });
  const docs = buildDocuments(config);
  return { gateway: `${JSON.stringify(docs.gateway, null, 2)}\n`, core: `${JSON.stringify(docs.core, null, 2)}\n` };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const texts = await committedDocuments();
  let differs = false;
  for (const [which, file] of Object.entries(DOCUMENT_FILES) as Array<[keyof typeof DOCUMENT_FILES, string]>) {
    if (check) {
      let current = '';
      try {
        current = readFileSync(file, 'utf8');
      } catch {
        // Missing counts as different.
      }
      if (current !== texts[which]) {
        differs = true;
        console.error(`${file} is not what npm run openapi makes`);
      }
    } else {
      writeFileSync(file, texts[which]);
      console.log(`wrote ${file}`);
    }
  }
  process.exit(differs ? 1 : 0);
}
