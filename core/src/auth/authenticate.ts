/**
 * Resolves the request's credential into `ctx.state.caller` before any route
 * runs. A credential that stands for no one is remembered as the reason, so
 * routes that need a caller answer 401 with it; public routes ignore both.
 */
import type { Middleware } from 'koa';
import { AppError } from '../../../kernel/index.ts';
import type { Caller } from './caller.ts';
import { readCredential } from './credentials.ts';
import type { AuthService } from './service.ts';

export interface AuthState {
  caller: Caller | null;
  /** Why a credential that was sent was refused. */
  authFailure: AppError | null;
}

export function authenticate(auth: AuthService): Middleware {
  return async function authenticateMiddleware(ctx, next) {
    const state = ctx.state as AuthState;
    state.caller = null;
    state.authFailure = null;
    const credential = readCredential(ctx);
    if (credential) {
      try {
        state.caller = await auth.identify(credential, ctx.ip);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        state.authFailure = err;
      }
    }
    await next();
  };
}
