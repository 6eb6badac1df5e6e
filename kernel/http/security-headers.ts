/** Headers every answer carries: no sniffing, no framing, no referrer leaks. */
import type { Middleware } from 'koa';

export function securityHeaders(): Middleware {
  return async function securityHeadersMiddleware(ctx, next) {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    await next();
  };
}
