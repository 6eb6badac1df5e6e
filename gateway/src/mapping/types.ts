/** The mapping table's shapes, as mappings/schema.json defines them. */

/** The two legacy API families the mapping table rewrites; a table entry's `source` names one. */
export const FAMILIES = ['workflow-engine', 'platform-core'] as const;
export type LegacyFamily = (typeof FAMILIES)[number];

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  readonly method: Method;
  readonly path: string;
}

export type Step =
  | { readonly call: { readonly method: Method; readonly path: string; readonly query?: unknown; readonly body?: unknown; readonly accept?: readonly number[] } }
  | { readonly translateQuery: { readonly from: string; readonly type: 'jobs' | 'tasks'; readonly into: string } }
  | { readonly answer: unknown; readonly status?: number }
  | { readonly code: string; readonly with?: unknown }
  | { readonly unavailable: string };

export interface Entry {
  readonly id: string;
  readonly operation: string;
  readonly source: LegacyFamily;
  readonly legacy: Route;
  readonly deprecated: string;
  readonly removed: string;
  readonly replacement: Route | null;
  /**
   * The replacement as a concrete URL template for the Link header, when it
   * cannot be read from the call steps (mapping/successor.ts): ids from the
   * body, or a list route narrowed to this call's id.
   */
  readonly successor?: string;
  readonly note?: string;
  readonly steps: readonly Step[];
}

export interface MappingTable {
  readonly formatVersion: 1;
  readonly entries: readonly Entry[];
}
