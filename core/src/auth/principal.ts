/**
 * Whose authority a piece of background work uses (its principal), and what
 * that principal may do *now*. Jobs, schedules and orders store only who they
 * act for; the roles are read from the store each time work reaches outside
 * it, so a role taken away, or an account disabled, takes the power away from
 * work already queued (docs/auth.md, "Whose authority background work uses").
 */
import type { Doc, Store } from '../../../kernel/index.ts';
import { ACCOUNTS, SERVICE_ACCOUNTS } from '../store/collections.ts';
import { accounts as accountType } from '../store/doc-types.ts';
import { loadCaller } from './caller.ts';
import type { Caller } from './caller.ts';

export type PrincipalKind = Caller['principal'];

/** Who a job acts for: an account or a service account, by id. */
export interface PrincipalRef {
  readonly kind: PrincipalKind;
  readonly id: string;
}

export interface NamedPrincipal extends PrincipalRef {
  readonly username: string;
}

export function principalOf(caller: Caller): PrincipalRef {
  return { kind: caller.principal, id: caller.id };
}

/** The principal as a caller, with its groups and roles as they are in the store now; null when gone or inactive. */
export type LoadPrincipal = (ref: PrincipalRef) => Promise<Caller | null>;

/** Reads afresh every time: a task runs rarely enough, and a stale grant is exactly what this guards against. */
export function principalLoader(store: Store): LoadPrincipal {
  return (ref) => loadCaller(store, ref.kind, ref.id, null);
}

/**
 * The principal a stored `lastUpdatedBy` names. Records keep an account id
 * (or a service account's id) there, workflows a username; either is found.
 */
export async function principalNamed(store: Store, idOrUsername: string): Promise<NamedPrincipal | null> {
  const named = (kind: PrincipalKind, doc: Doc): NamedPrincipal => ({ kind, id: String(doc['_id']), username: String(doc['username'] ?? doc['name'] ?? doc['_id']) });
  const account = await store.collection(ACCOUNTS.name).findById(idOrUsername);
  if (account) return named('account', account);
  const service = await store.collection(SERVICE_ACCOUNTS.name).findById(idOrUsername);
  if (service) return named('service', service);
  const field = accountType.fields.get('username')!;
  const page = await store.collection(ACCOUNTS.name).search({ where: { kind: 'compare', op: 'eq', field, value: idOrUsername }, sort: [{ field: accountType.fields.get('_id')!, direction: 1 }], skip: 0, limit: 1 });
  return page.docs[0] ? named('account', page.docs[0]) : null;
}
