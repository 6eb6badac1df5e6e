/**
 * Escape hatches: the few legacy operations whose rewrite the generic steps
 * cannot say. Each is one file exporting a Hatch, named here; an entry names
 * it with `{"code": "<name>"}`, and the loader refuses names not listed.
 */
import type { Hatch } from '../run.ts';

export const hatches: ReadonlyMap<string, Hatch> = new Map<string, Hatch>([]);
