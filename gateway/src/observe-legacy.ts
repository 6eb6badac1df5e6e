/**
 * What the gateway does with each answered legacy call besides answering it:
 * counts and times it for the metrics, and hands it to the tap when one is
 * given (the contract test). None of it when both are off.
 */
import type { AnswerTap } from '../../kernel/index.ts';
import type { LegacyObserver } from './legacy/dispatch.ts';
import { RawJson } from './mapping/pluck.ts';
import type { GatewayMetrics } from './metrics.ts';

export function legacyObserver(metrics: GatewayMetrics | null, tap: AnswerTap | null): LegacyObserver | null {
  if (!metrics && !tap) return null;
  return (entry, method, status, outcome, seconds, body) => {
    if (metrics) {
      metrics.legacyCall(entry, outcome);
      // The mapping's path template: one label per legacy operation, never the path the caller sent.
      metrics.request(method, entry.legacy.path, status, seconds);
    }
    if (tap) {
      const value = body instanceof RawJson ? JSON.parse(Buffer.from(body.bytes).toString('utf8')) : (body ?? null);
      tap({ service: 'gateway', method: method ?? 'GET', route: entry.legacy.path, status, contentType: 'application/json', body: value });
    }
  };
}
