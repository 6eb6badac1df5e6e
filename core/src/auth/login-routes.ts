/**
 * The login surface (docs/decisions.md D6): `POST /login`, `POST /logout`,
 * `POST /oauth/token` and `GET /whoami`.
 */
import Joi from 'joi';
import { answer, closed, INTEGER, joiBody, oneOfValues, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnyRoute } from '../../../kernel/index.ts';
import type { MethodInfo } from './roles.ts';
import type { AuthService } from './service.ts';
import { whoami } from './whoami.ts';
import { WHOAMI } from './whoami.ts';

const route = routeHelper({ provenance: 'Authentication', shape: 'plain' });
/** The token endpoint answers and fails as RFC 6749 says, not in the plain shape. */
const oauthRoute = routeHelper({ provenance: 'Authentication', shape: 'oauth' });

interface Credentials {
  username: string;
  password: string;
}

const usernamePassword = Joi.object({ username: Joi.string().min(1).max(256).required(), password: Joi.string().min(1).max(1024).required() });
// The platform's clients send {user: {username, password}}; some send the bare pair.
const loginBody = joiBody<Credentials | { user: Credentials }>(
  Joi.alternatives()
    .try(Joi.object({ user: usernamePassword.required() }), usernamePassword)
    .messages({ 'alternatives.match': 'must hold user.username and user.password, or username and password' }),
);

const tokenBody = joiBody<{ client_id?: string; client_secret?: string }>(
  Joi.object({
    grant_type: Joi.string().valid('client_credentials').required().messages({ 'any.only': 'must be client_credentials' }),
    client_id: Joi.string().max(256),
    client_secret: Joi.string().max(1024),
    scope: Joi.string().allow(''),
  }),
);

/**
 * The token cookie: never readable by scripts, not sent on other sites' requests, and Secure whenever
 * the client reached us over TLS (directly, or through a trusted proxy's X-Forwarded-Proto).
 */
function cookieOptions(secure: boolean): { httpOnly: true; sameSite: 'lax'; overwrite: true; secure: boolean } {
  return { httpOnly: true, sameSite: 'lax', overwrite: true, secure };
}

export function loginRoutes(auth: AuthService, methods: () => MethodInfo[]): AnyRoute[] {
  const login = (path: string) =>
    route({
      method: 'POST',
      path,
      name: 'login',
      roles: 'public',
      // A login page of our own origin may post an HTML form.
      acceptsForms: true,
      description: 'Log in with a username and password; answers the token as a JSON string and sets the token cookie',
      answer: answer(STRING),
      input: { body: loginBody },
      async handle({ body }, ctx) {
        const { username, password } = 'user' in body ? body.user : body;
        const token = await auth.login(username, password, ctx.koa.ip);
        ctx.koa.cookies.set('token', token, cookieOptions(ctx.koa.secure));
        return { body: token };
      },
    });

  return [
    login('/login'),
    route({
      method: 'POST',
      path: '/logout',
      name: 'logout',
      roles: 'authenticated',
      description: 'End the session of the token used',
      answer: answer(closed({ message: STRING })),
      input: {},
      async handle(_input, ctx) {
        await auth.logout(ctx.caller!);
        ctx.koa.cookies.set('token', null, cookieOptions(ctx.koa.secure));
        return { body: { message: 'Logged out' } };
      },
    }),
    oauthRoute({
      method: 'POST',
      path: '/oauth/token',
      name: 'getToken',
      roles: 'public',
      // RFC 6749 section 4.4.2: the client credentials request is form-encoded.
      acceptsForms: true,
      description: 'OAuth client credentials: a service account trades its client id and secret for a bearer token',
      answer: answer(closed({ access_token: STRING, token_type: oneOfValues('bearer'), expires_in: INTEGER })),
      input: { body: tokenBody },
      async handle({ body }, ctx) {
        // RFC 6749 allows the client credentials in the body or as Basic authentication.
        const basic = /^basic\s+(.+)$/i.exec(ctx.koa.get('authorization'));
        const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
        const clientId = body.client_id ?? decoded.slice(0, Math.max(0, decoded.indexOf(':')));
        const secret = body.client_secret ?? decoded.slice(decoded.indexOf(':') + 1);
        ctx.koa.set('Cache-Control', 'no-store');
        return { body: await auth.clientToken(clientId, secret, ctx.koa.ip) };
      },
    }),
    route({
      method: 'GET',
      path: '/whoami',
      name: 'whoami',
      roles: 'authenticated',
      description: 'The caller: account, groups, allowed views, methods and roles',
      answer: answer(WHOAMI),
      input: {},
      async handle(_input, ctx) {
        return { body: whoami(ctx.caller!, methods()) };
      },
    }),
  ];
}
