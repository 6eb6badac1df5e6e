/** Transition-graph questions the engine asks about a workflow. */
import type { FinishState, Transition } from './types.ts';

export type Transitions = Readonly<Record<string, Readonly<Record<string, Transition>>>>;

export function successors(transitions: Transitions, from: string, state: FinishState): string[] {
  const out: string[] = [];
  const targets = transitions[from];
  if (targets === undefined) return out;
  for (const to of Object.keys(targets)) if (targets[to]!.state === state) out.push(to);
  return out;
}

/** True when some path of transitions leads from `from` to `to`. */
export function canReach(transitions: Transitions, from: string, to: string): boolean {
  const seen = new Set<string>([from]);
  const queue = [from];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const next of Object.keys(transitions[at] ?? {})) {
      if (next === to) return true;
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return false;
}
