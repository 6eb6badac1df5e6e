/**
 * The platform's credential forms (docs.itential.com, Platform API
 * authentication): Basic, only over TLS; a login token from `POST /login`, as
 * the `token` query parameter or the `token` cookie; and Bearer, for the
 * tokens of OAuth clients (`POST /oauth/token`). Itential's CLI and SDK send
 * the cookie after `/login` and Bearer only for OAuth. A login token sent as
 * Bearer is refused here: the platform documents no such form.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Refusal } from './dialect.ts';

export class Tokens {
  /** Tokens this stand-in saw `POST /login` hand out. */
  readonly login = new Set<string>();
  /** Tokens this stand-in saw `POST /oauth/token` hand out. */
  readonly oauth = new Set<string>();
}

export type CredentialForm = 'basic' | 'bearer' | 'query' | 'cookie' | 'none';

/** Which form a request's credentials take, refusing the forms the platform does not serve. */
export function checkCredentials(headers: IncomingHttpHeaders, query: URLSearchParams, secure: boolean, tokens: Tokens): CredentialForm {
  const authorization = headers.authorization ?? '';
  const [scheme = '', value = ''] = authorization.trim().split(/\s+/, 2);
  if (/^basic$/i.test(scheme)) {
    if (!secure) throw new Refusal(401, 'Basic authentication is only available over TLS on the platform');
    return 'basic';
  }
  if (/^bearer$/i.test(scheme)) {
    if (!tokens.oauth.has(value)) {
      const what = tokens.login.has(value) ? 'a login token' : 'a token this platform did not issue to an OAuth client';
      throw new Refusal(401, `Bearer is for OAuth client tokens (POST /oauth/token); this is ${what}: send a login token as ?token= or the token cookie`);
    }
    return 'bearer';
  }
  if (authorization !== '') throw new Refusal(401, 'Authorization must be Basic (over TLS) or Bearer (OAuth client tokens)');
  if (query.has('token')) return 'query';
  if (/(?:^|;\s*)token=/.test(headers.cookie ?? '')) return 'cookie';
  return 'none';
}
