/**
 * Splits a raw query string into parameters without losing what
 * URLSearchParams would: the `in`/`not-in` rule needs to know which commas
 * were written as `%2C`, so values are kept raw until the operator is known.
 * Parameter names may arrive percent-encoded (`equals%5Bstatus%5D`).
 */

export interface RawParam {
  /** Decoded parameter name. */
  readonly name: string;
  /** The value exactly as written in the URL (still percent-encoded). */
  readonly raw: string;
}

export class QueryStringError extends Error {
  constructor(readonly parameter: string, message: string) {
    super(message);
  }
}

/** Decodes one component; `+` is a space, as in form encoding. */
export function decodeComponent(text: string, parameter: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new QueryStringError(parameter, 'has malformed percent-encoding');
  }
}

export function splitQueryString(queryString: string): RawParam[] {
  const params: RawParam[] = [];
  if (queryString.length === 0) return params;
  for (const part of queryString.split('&')) {
    if (part.length === 0) continue;
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    const raw = eq === -1 ? '' : part.slice(eq + 1);
    params.push({ name: decodeComponent(rawName, rawName), raw });
  }
  return params;
}

/** Splits an `in`/`not-in` list on literal commas; `%2C` stays inside an option. */
export function splitList(raw: string, parameter: string): string[] {
  return raw.split(',').map((item) => decodeComponent(item, parameter));
}
