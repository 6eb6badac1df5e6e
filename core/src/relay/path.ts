/**
 * `params.path` is written by callers but sent with the adapter's
 * credentials, so it must never reach anything but the adapter's own base:
 * no other host, no climbing above the base path. Checks run on the text as
 * sent and on its percent-decoded forms, because servers and proxies decode
 * (sometimes twice) before they resolve segments.
 */

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// Decoding is byte-wise, so a UTF-8 continuation byte (%80-%9F) looks like a C1 control; only C0 and DEL are checked there.
const ENCODED_CONTROL = /[\u0000-\u001f\u007f]/;

/** Decodes %XX byte by byte; unlike decodeURIComponent it never throws, and it exposes encoded dots and slashes. */
function decodeOnce(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The text and each further decoding of it, until decoding changes nothing (bounded: %25 nests). */
function decodings(text: string): string[] {
  const out = [text];
  for (let i = 0; i < 4; i += 1) {
    const next = decodeOnce(out[out.length - 1]!);
    if (next === out[out.length - 1]) break;
    out.push(next);
  }
  return out;
}

/** Why the path may not be relayed, or null when it may. */
export function pathProblem(path: string): string | null {
  if (SCHEME.test(path)) return 'must be a path on the orchestrator, not an absolute URL';
  if (path.startsWith('//')) return 'must not start with // (a scheme-relative URL names another host)';
  if (!path.startsWith('/')) return 'must start with /';
  const forms = decodings(path);
  if (CONTROL.test(path) || forms.some((f) => ENCODED_CONTROL.test(f))) return 'must not contain control characters';
  if (forms.some((f) => f.includes('\\'))) return 'must not contain backslashes';
  // Query text may hold ".." as data; only the part before it is resolved as segments.
  const pathPart = path.split(/[?#]/, 1)[0]!;
  if (decodings(pathPart).some((f) => f.split('/').includes('..'))) return 'must not contain a .. segment';
  return null;
}

/**
 * The adapter's base joined with the path: the base's path stays in front
 * (`http://nso:8080/nso` + `/restconf/data` → `/nso/restconf/data`). User
 * information in the base URL is dropped; credentials come from the adapter's
 * `credentials` only. Null when the result would not stay under the base,
 * which pathProblem already rules out: a second check costs nothing.
 */
export function joinPath(baseUrl: string, path: string): URL | null {
  const { origin, basePath } = baseOf(baseUrl);
  let url: URL;
  try {
    url = new URL(`${origin}${basePath}${path}`);
  } catch {
    return null;
  }
  if (url.origin !== origin) return null;
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return null;
  return url;
}

/** Adapters are few and their base URLs fixed: each is parsed once, not on every relayed call. */
const bases = new Map<string, { readonly origin: string; readonly basePath: string }>();
const BASES_KEPT = 256;

function baseOf(baseUrl: string): { readonly origin: string; readonly basePath: string } {
  let base = bases.get(baseUrl);
  if (base === undefined) {
    const url = new URL(baseUrl);
    base = { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
    if (bases.size >= BASES_KEPT) bases.clear();
    bases.set(baseUrl, base);
  }
  return base;
}
