/**
 * Deterministic randomness for the seed generator. Every job draws from its
 * own stream, derived from (seed, job index), so a job's content does not
 * depend on the batch size or on which other jobs were generated.
 *
 * The stream is sfc32 rather than mulberry32: mulberry32 walks a single 2^32
 * cycle, so a million short per-job streams would overlap and repeat UUIDs.
 * sfc32 has 128 bits of state, so independently seeded streams do not meet.
 */

/** A 32-bit integer finaliser (murmur3 fmix32): a bijection with good avalanche. */
export function mix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes a few integers into one 32-bit value. */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) h = mix32(h ^ mix32((p | 0) + Math.floor(p / 0x100000000)));
  return h;
}

/** A uniform number in [0, 1) from a hash; for decisions that must not consume a stream. */
export function hashUnit(...parts: number[]): number {
  return hash32(...parts) / 0x100000000;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function hex32(n: number): string {
  return HEX[(n >>> 24) & 0xff]! + HEX[(n >>> 16) & 0xff]! + HEX[(n >>> 8) & 0xff]! + HEX[n & 0xff]!;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...seedParts: number[]) {
    const base = hash32(...seedParts);
    this.a = mix32(base ^ 0x243f6a88);
    this.b = mix32(base ^ 0x85a308d3);
    this.c = mix32(base ^ 0x13198a2e);
    this.d = mix32(base ^ 0x03707344);
    // Warm-up so that nearby seeds have diverged before the first draw.
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 0x100000000;
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Picks by weight; `cumulative` is the running sum of the weights. */
  weighted<T>(items: readonly T[], cumulative: readonly number[]): T {
    const x = this.next() * cumulative[cumulative.length - 1]!;
    for (let i = 0; i < cumulative.length; i++) if (x < cumulative[i]!) return items[i]!;
    return items[items.length - 1]!;
  }

  /** A duration in [min, max] skewed towards min, as run times are. */
  skewed(min: number, max: number): number {
    const x = this.next();
    return Math.round(min + (max - min) * x * x * x);
  }

  /** A version 4 UUID in lowercase, as the platform writes task ids. */
  uuid(): string {
    const a = this.u32();
    const b = this.u32();
    const c = this.u32();
    const d = this.u32();
    const h = hex32(a) + hex32((b & 0xffff0fff) | 0x00004000) + hex32((c & 0x3fffffff) | 0x80000000) + hex32(d);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}

export function cumulativeOf(weights: readonly number[]): number[] {
  let sum = 0;
  return weights.map((w) => (sum += w));
}
