/**
 * Finds the legacy operation a request names: the table's paths compiled
 * once into segments, matched the way the router they replace did (literal
 * segments case-insensitively, one trailing slash allowed, `:name` one
 * decoded segment, HEAD served by GET operations). A path no operation
 * takes, or a method the path does not take, is not legacy: it goes on to
 * the pass-through like any new call.
 */
import type { Entry } from '../mapping/types.ts';

interface Compiled {
  readonly entry: Entry;
  /** Literal segments lower-cased; a parameter is its name after `:`. */
  readonly segments: ReadonlyArray<{ readonly literal: string } | { readonly param: string }>;
}

export interface Match {
  readonly entry: Entry;
  readonly params: Record<string, string>;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // As the router did: a segment that is not valid percent-encoding is kept as written.
    return segment;
  }
}

export function legacyMatcher(entries: readonly Entry[]): (method: string, pathname: string) => Match | null {
  const byPrefix = new Map<string, Compiled[]>();
  for (const entry of entries) {
    const parts = entry.legacy.path.split('/').slice(1);
    const segments = parts.map((p) => (p.startsWith(':') ? { param: p.slice(1) } : { literal: p.toLowerCase() }));
    const prefix = parts[0]!.toLowerCase();
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), { entry, segments }]);
  }
  return (method, pathname) => {
    const parts = pathname.split('/').slice(1);
    if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    const candidates = byPrefix.get((parts[0] ?? '').toLowerCase());
    if (!candidates) return null;
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const { entry, segments } of candidates) {
      if (entry.legacy.method !== wanted || segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length && ok; i += 1) {
        const segment = segments[i]!;
        const part = parts[i]!;
        if ('literal' in segment) ok = part.toLowerCase() === segment.literal;
        else if (part === '') ok = false;
        else params[segment.param] = decode(part);
      }
      if (ok) return { entry, params };
    }
    return null;
  };
}
