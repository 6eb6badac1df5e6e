/**
 * A store whose reads of one collection are counted and, once armed, held
 * after they have read until released: the moment another request can change
 * what was read (a revocation, a logout) while the read is still in flight.
 * The cache tests use it to prove a racing read is not kept.
 */
import type { DocCollection, Store } from '../../kernel/index.ts';

export interface Gate {
  /** Settles once the armed read has read the store. */
  readonly read: Promise<void>;
  release(): void;
}

export interface GatedReads {
  readonly store: Store;
  /** How many times the method has been called. */
  reads(): number;
  /** Holds the next call after it has read. */
  arm(): Gate;
}

type ReadMethod = 'findById' | 'findByIds';

export function gatedReads(store: Store, collection: string, method: ReadMethod): GatedReads {
  let reads = 0;
  let gate: { read: () => void; released: Promise<void> } | null = null;
  const bound = (target: object, prop: string | symbol): unknown => {
    const value: unknown = Reflect.get(target, prop);
    return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
  };
  const gated = (inner: DocCollection): DocCollection =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop !== method) return bound(target, prop);
        return async (arg: never) => {
          reads += 1;
          const found: unknown = await (target[method] as (a: never) => Promise<unknown>).call(target, arg);
          const held = gate;
          gate = null;
          if (held) {
            held.read();
            await held.released;
          }
          return found;
        };
      },
    });
  const wrapped = new Proxy(store, {
    get(target, prop) {
      if (prop === 'collection') return (name: string) => (name === collection ? gated(target.collection(name)) : target.collection(name));
      return bound(target, prop);
    },
  });
  return {
    store: wrapped,
    reads: () => reads,
    arm() {
      let read!: () => void;
      let release!: () => void;
      const readPromise = new Promise<void>((resolve) => (read = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      gate = { read, released };
      return { read: readPromise, release };
    },
  };
}
