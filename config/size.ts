import { SIZE_PATTERN } from './rules.ts';

const UNIT = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 } as const;

/**
 * Bytes in a size such as `1mb`, `512kb` or `1.5 kb` (the form `http.bodyLimit`
 * takes; a kb is 1024 bytes, fractions of a byte are dropped). The loader calls
 * it once, so the core's parser, the gateway's pass-through and its legacy
 * routes all stop at the same byte.
 */
export function parseSize(text: string): number {
  const m = SIZE_PATTERN.exec(text);
  if (!m) throw new Error('not a size like 512kb or 1mb');
  return Math.floor(Number(m[1]) * UNIT[m[2]!.toLowerCase() as keyof typeof UNIT]);
}
