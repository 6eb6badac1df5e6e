/**
 * Shared by the workflow-engine escape hatches (not a hatch itself): core
 * calls that fail the legacy way. The legacy list options are read in
 * ../legacy-options.ts.
 */
import { legacyError } from '../../run.ts';
import type { CoreAnswer, CoreCall, HatchApi } from '../../run.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

export interface Envelope {
  readonly message?: unknown;
  readonly data?: unknown;
  readonly metadata?: { readonly skip?: unknown; readonly limit?: unknown; readonly total?: unknown };
}

/** A core call whose failure becomes the legacy error, as a `call` step's does. */
export async function callOk(api: HatchApi, call: Omit<CoreCall, 'query' | 'body'> & { query?: Record<string, string>; body?: unknown }): Promise<Envelope> {
  const answer = await api.call({ query: {}, body: undefined, ...call });
  if (answer.status < 200 || answer.status > 299) throw legacyError(answer);
  return isPlainObject(answer.body) ? (answer.body as Envelope) : {};
}

/** The job or task at `path` as the legacy operations answered after a change: the document itself, read back. */
export async function readBack(api: HatchApi, path: string): Promise<CoreAnswer> {
  const read = await callOk(api, { method: 'GET', path });
  return { status: 200, body: read.data ?? null };
}
