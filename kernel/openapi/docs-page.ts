/**
 * `GET /docs`: the OpenAPI document rendered by Swagger UI, whose files are
 * served from the installed `swagger-ui-dist` package (no CDN: the page works
 * offline and loads nothing the service did not ship). The page's own
 * script is a file too, so the CSP needs no inline script.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SECURITY_HEADERS } from '../http/raw-answer.ts';

export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/openapi.json';

/** As the audit report's (gateway/src/audit/report-html.ts), opened for the page's own scripts, styles and fetch. */
export const DOCS_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  ...SECURITY_HEADERS,
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>iap-compat API reference</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
const INIT = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, docExpansion: 'none', defaultModelsExpandDepth: 0 });\n`;

/** The package's files the page uses, with their types; nothing else of the package is served. */
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export const DOCS_ASSETS: readonly string[] = [...Object.keys(PACKAGE_FILES), 'init.js'];

const packageDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const cache = new Map<string, Buffer>();

export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

export function docsPage(): Asset {
  return { type: 'text/html; charset=utf-8', body: Buffer.from(PAGE) };
}

/** One of the page's files by name, or null for any other name. Read once, on first use. */
export function docsAsset(name: string): Asset | null {
  if (name === 'init.js') return { type: 'text/javascript; charset=utf-8', body: Buffer.from(INIT) };
  // An own key only: a name from the URL such as `constructor` must not read the prototype (and then the disk).
  if (!Object.hasOwn(PACKAGE_FILES, name)) return null;
  const type = PACKAGE_FILES[name]!;
  let body = cache.get(name);
  if (!body) {
    body = readFileSync(join(packageDir, name));
    cache.set(name, body);
  }
  return { type, body };
}
