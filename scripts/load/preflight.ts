/**
 * Runs each sequence once, one request at a time, before the load: a mix
 * that is wrong (a refused action, an answer of the wrong shape) fails here
 * with its reason instead of as thousands of errors under load.
 */
import type { SequenceContext, Step } from './mix.ts';

export async function preflight(baseUrl: string, token: string, sequence: readonly Step[]): Promise<void> {
  const ctx: SequenceContext = {};
  for (const [i, step] of sequence.entries()) {
    const path = step.path(ctx);
    if (path === null) throw new Error(`preflight: ${step.kind} has no id to act on`);
    const res = await fetch(`${baseUrl}${path}`, {
      method: step.method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(step.body ? { body: JSON.stringify(step.body(ctx, i)) } : {}),
    });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) throw new Error(`preflight: ${step.kind} answered ${res.status}: ${text.slice(0, 300)}`);
    const wrong = step.check ? step.check(JSON.parse(text), ctx) : null;
    if (wrong) throw new Error(`preflight: ${step.kind}: ${wrong}: ${text.slice(0, 300)}`);
  }
}
