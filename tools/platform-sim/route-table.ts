/**
 * The routes the real platform serves: the 523 methods of a 2023.2 server
 * (ipctl's `authorization/methods` fixture, kept as data in
 * routes-2023.2.json with its source) and the platform's own core routes
 * that are not application methods (/login, /whoami, ...), each with the
 * public source that shows it. A request whose method and path match none of
 * them is refused, as the platform refuses a route it does not have.
 */
import { readFileSync } from 'node:fs';

interface RouteData {
  readonly source: { readonly repository: string; readonly commit: string; readonly file: string; readonly total: number };
  readonly routes: readonly string[];
  readonly platformCore: ReadonlyArray<{ readonly route: string; readonly source: string }>;
}

interface Template {
  readonly method: string;
  /** One entry per path segment: a literal, or null for a `:param` segment (any one non-empty segment). */
  readonly segments: ReadonlyArray<string | null>;
}

export interface RouteTable {
  /** Whether the platform serves this method on this path (no query string). */
  serves(method: string, path: string): boolean;
  readonly size: number;
}

const DATA_FILE = new URL('./routes-2023.2.json', import.meta.url);

function segmentsOf(path: string): string[] {
  // The platform's router ignores one trailing slash (`/transformations/` is listed with one).
  return path.split('/').filter((s, i, all) => !(s === '' && (i === 0 || i === all.length - 1)));
}

function template(route: string): Template {
  const space = route.indexOf(' ');
  const method = route.slice(0, space);
  // A segment holding a parameter anywhere (`:device&:origin&:action`) matches any one segment.
  const segments = segmentsOf(route.slice(space + 1)).map((s) => (s.includes(':') ? null : s));
  return { method, segments };
}

export function loadRouteData(): RouteData {
  return JSON.parse(readFileSync(DATA_FILE, 'utf8')) as RouteData;
}

export function routeTable(data: RouteData = loadRouteData()): RouteTable {
  const templates = [...data.routes, ...data.platformCore.map((r) => r.route)].map(template);
  return {
    size: templates.length,
    serves(method, path) {
      let segments: string[];
      try {
        segments = segmentsOf(path).map((s) => decodeURIComponent(s));
      } catch {
        return false;
      }
      const verb = method === 'HEAD' ? 'GET' : method;
      return templates.some((t) => t.method === verb && t.segments.length === segments.length && t.segments.every((s, i) => s === null ? segments[i] !== '' : s === segments[i]));
    },
  };
}
