/**
 * The search thread's turns (kernel/store/sqlite/search-turns.ts), against a
 * model: each caller's searches come out in the order that caller sent them;
 * a caller who is waiting is served before any other caller is served twice;
 * and the bounds on everyone's and on one caller's searches hold whatever the
 * order of sends, turns and answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SearchTurns } from '../../../kernel/store/sqlite/search-turns.ts';

type Step = { readonly kind: 'push'; readonly caller: string } | { readonly kind: 'next' } | { readonly kind: 'answer'; readonly pick: number };

const CALLERS = ['a', 'b', 'c', 'd', '__proto__', 'constructor'];
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...CALLERS).map((caller) => ({ kind: 'push', caller }) as const) },
  { weight: 2, arbitrary: fc.constant({ kind: 'next' } as const) },
  { weight: 2, arbitrary: fc.nat(50).map((pick) => ({ kind: 'answer', pick }) as const) },
);

test('whatever the order of sends, turns and answers: per-caller order, turns, and both bounds hold', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 200 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 6 }), (steps, maxHeld, perCaller) => {
      const turns = new SearchTurns<{ caller: string; n: number }>(maxHeld, perCaller);
      const sent = new Map<string, number>();
      const served = new Map<string, number>();
      /** Taken by `next`, not yet answered. */
      const atThread: Array<{ caller: string }> = [];
      /** For each caller now waiting: the callers served since it last was served or began to wait. */
      const servedSince = new Map<string, string[]>();
      const queued = new Map<string, number>();
      for (const s of steps) {
        if (s.kind === 'push') {
          const held = atThread.length + [...queued.values()].reduce((x, y) => x + y, 0);
          const mine = atThread.filter((t) => t.caller === s.caller).length + (queued.get(s.caller) ?? 0);
          const n = sent.get(s.caller) ?? 0;
          const refused = turns.push(s.caller, { caller: s.caller, n });
          // Past the bound a caller holding nothing is still taken, up to twice the bound.
          if (mine >= perCaller) assert.deepEqual(refused, { reason: 'share', held: mine });
          else if (held >= 2 * maxHeld || (held >= maxHeld && mine > 0)) assert.deepEqual(refused, { reason: 'full', held });
          else {
            assert.equal(refused, null);
            sent.set(s.caller, n + 1);
            if ((queued.get(s.caller) ?? 0) === 0) servedSince.set(s.caller, []);
            queued.set(s.caller, (queued.get(s.caller) ?? 0) + 1);
          }
        } else if (s.kind === 'next') {
          const item = turns.next();
          const anyQueued = [...queued.values()].some((q) => q > 0);
          if (!item) {
            assert.equal(anyQueued, false, 'next() gave nothing while searches were queued');
            continue;
          }
          const n = served.get(item.caller) ?? 0;
          assert.equal(item.n, n, `${item.caller}'s searches come out in the order sent`);
          served.set(item.caller, n + 1);
          // Turns: no other waiting caller has seen this one served since it began to wait.
          for (const [other, list] of servedSince) {
            if (other !== item.caller) {
              assert.ok(!list.includes(item.caller), `${item.caller} served twice while ${other} waited`);
              list.push(item.caller);
            }
          }
          const left = (queued.get(item.caller) ?? 1) - 1;
          queued.set(item.caller, left);
          if (left === 0) servedSince.delete(item.caller);
          else servedSince.set(item.caller, []);
          atThread.push(item);
        } else if (atThread.length > 0) {
          const [answered] = atThread.splice(s.pick % atThread.length, 1);
          turns.release(answered!.caller);
        }
        assert.equal(turns.held, atThread.length + [...queued.values()].reduce((x, y) => x + y, 0));
        assert.ok(turns.held <= 2 * maxHeld);
      }
    }),
    { numRuns: 400 },
  );
});

test('a caller with many waiting delays a newcomer by one of theirs, not all of them', () => {
  const turns = new SearchTurns<string>(64, 16);
  for (let i = 0; i < 10; i += 1) assert.equal(turns.push('flood', `flood-${i}`), null);
  assert.equal(turns.next(), 'flood-0');
  assert.equal(turns.push('other', 'other-0'), null);
  assert.deepEqual([turns.next(), turns.next(), turns.next()], ['flood-1', 'other-0', 'flood-2']);
});

test('clear answers every queued search and leaves nothing held', () => {
  const turns = new SearchTurns<string>(8, 4);
  turns.push('a', 'a0');
  turns.push('b', 'b0');
  turns.push('a', 'a1');
  turns.next();
  assert.deepEqual(turns.clear().sort(), ['a1', 'b0']);
  assert.equal(turns.held, 0);
  assert.equal(turns.waiting, 0);
  assert.equal(turns.next(), undefined);
  assert.equal(turns.push('a', 'again'), null, 'after a clear the caller has their whole share again');
});
