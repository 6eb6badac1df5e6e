/**
 * A hatch's registration record (run.ts, HatchRecord) from its parts: every
 * hatch takes one arguments object whose keys its schema closes, so the
 * object schema is written here once.
 */
import type { Hatch, HatchRecord } from '../run.ts';
import type { LegacyFamily } from '../types.ts';

export interface HatchArguments {
  readonly required: readonly string[];
  readonly properties: Readonly<Record<string, unknown>>;
  /** More JSON Schema keywords on the arguments object (`if`/`then`/`else`). */
  readonly more?: Readonly<Record<string, unknown>>;
}

export function hatchRecord(name: string, family: LegacyFamily, why: string, args: HatchArguments, run: Hatch): HatchRecord {
  return { name, family, why, with: { type: 'object', required: args.required, additionalProperties: false, properties: args.properties, ...args.more }, run };
}
