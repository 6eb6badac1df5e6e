/**
 * What a request handler works on: the live datastore and rollback counter,
 * and the parsed request. Every change runs on a copy of the tree and is
 * swapped in only when it succeeds, so a failed write leaves nothing behind
 * and a dry run is the same change with the copy thrown away.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { dryRunResult } from './dry-run.ts';
import type { DryRunFormat } from './dry-run.ts';
import type { JsonObject } from './json.ts';
import type { Datastore } from './tree.ts';

export interface SimState {
  store: Datastore;
  /** The id of the last committed change; NSO numbers rollback files from 10000 up. */
  rollbackId: number;
}

export interface Call {
  readonly method: string;
  /** The path without its query, still percent-encoded. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** `http://host:port` as the client addressed the server, for Location headers. */
  readonly origin: string;
  readonly state: SimState;
}

export type ChangeOutcome<T> = { readonly kind: 'dry-run'; readonly result: JsonObject } | { readonly kind: 'committed'; readonly value: T; readonly rollbackId: number };

export function change<T>(state: SimState, op: (draft: Datastore) => T, dryRun: DryRunFormat | null): ChangeOutcome<T> {
  const draft = state.store.clone();
  const value = op(draft);
  if (dryRun !== null) return { kind: 'dry-run', result: dryRunResult(state.store.root, draft.root, dryRun) };
  state.store = draft;
  state.rollbackId += 1;
  return { kind: 'committed', value, rollbackId: state.rollbackId };
}
