/**
 * Every way a client may present a valid credential (docs/auth.md): Basic,
 * Bearer, the `token` cookie and the `token` query parameter, the token bare
 * or in the JSON quotes of the login answer (`"abc"`, percent-encoded
 * `%22abc%22` where a URL or a cookie carries it).
 */
import { ADMIN_PASSWORD } from './core.ts';

export interface CredentialForm {
  readonly name: string;
  /** Headers and query parameter (or null) that present `token`, or the administrator's password for Basic. */
  apply(token: string): { headers: Record<string, string>; query: string | null };
}

const quoted = (token: string): string => JSON.stringify(token);

export const CREDENTIAL_FORMS: readonly CredentialForm[] = [
  { name: 'Basic', apply: () => ({ headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` }, query: null }) },
  { name: 'Bearer', apply: (t) => ({ headers: { authorization: `Bearer ${t}` }, query: null }) },
  { name: 'Bearer "quoted"', apply: (t) => ({ headers: { authorization: `Bearer ${quoted(t)}` }, query: null }) },
  { name: 'Bearer %22quoted%22', apply: (t) => ({ headers: { authorization: `Bearer ${encodeURIComponent(quoted(t))}` }, query: null }) },
  { name: 'cookie', apply: (t) => ({ headers: { cookie: `token=${t}` }, query: null }) },
  { name: 'cookie "quoted"', apply: (t) => ({ headers: { cookie: `lang=en; token=${quoted(t)}` }, query: null }) },
  { name: 'cookie %22quoted%22', apply: (t) => ({ headers: { cookie: `token=${encodeURIComponent(quoted(t))}` }, query: null }) },
  { name: 'query', apply: (t) => ({ headers: {}, query: `token=${t}` }) },
  { name: 'query %22quoted%22', apply: (t) => ({ headers: {}, query: `token=${encodeURIComponent(quoted(t))}` }) },
];
