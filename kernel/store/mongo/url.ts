/**
 * What the store needs from a connection string besides what the driver
 * parses: the database name with our own default, and a way to keep the
 * password out of every message that could end up in a log.
 */

export const DEFAULT_DATABASE = 'iap';

interface UrlParts {
  readonly hosts: string;
  readonly database: string;
  readonly password: string | null;
  readonly query: string;
}

/**
 * Splits `mongodb[+srv]://[user[:password]@]hosts[/database][?options]`.
 * The driver would default the database to `test`, and an options object
 * would override the URL, so the path is read here instead.
 */
export function parseMongoUrl(url: string): UrlParts {
  const scheme = /^mongodb(\+srv)?:\/\//i.exec(url);
  if (!scheme) throw new Error('MongoDB URL must start with mongodb:// or mongodb+srv://');
  const rest = url.slice(scheme[0].length);
  const slash = rest.search(/[/?]/);
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const tail = slash === -1 ? '' : rest.slice(slash);
  const at = authority.lastIndexOf('@');
  const userInfo = at === -1 ? '' : authority.slice(0, at);
  const hosts = at === -1 ? authority : authority.slice(at + 1);
  const colon = userInfo.indexOf(':');
  const password = colon === -1 ? null : userInfo.slice(colon + 1);
  const question = tail.indexOf('?');
  const path = question === -1 ? tail : tail.slice(0, question);
  const query = question === -1 ? '' : tail.slice(question + 1);
  let database = path.startsWith('/') ? path.slice(1) : path;
  try {
    database = decodeURIComponent(database);
  } catch {
    throw new Error(`MongoDB URL for ${hosts} has a database name that is not valid percent-encoding`);
  }
  return { hosts, database: database.length > 0 ? database : DEFAULT_DATABASE, password, query };
}

/** True when the URL sets this option itself (option names are case-insensitive). */
export function urlHasOption(parts: UrlParts, option: string): boolean {
  return parts.query.split('&').some((pair) => pair.split('=')[0]!.toLowerCase() === option.toLowerCase());
}

/** Removes the password, raw or decoded, from a text that may quote the URL. */
export function redact(text: string, parts: UrlParts): string {
  if (!parts.password) return text;
  let out = text;
  const forms = new Set([parts.password]);
  try {
    forms.add(decodeURIComponent(parts.password));
  } catch {
    // An undecodable password is only ever quoted raw.
  }
  for (const form of forms) if (form.length > 0) out = out.split(form).join('***');
  return out;
}
