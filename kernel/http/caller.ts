/**
 * Who is calling and what they may do, as a route sees it: the account (or
 * service account), the groups it belongs to directly or through other
 * groups, and the methods its roles allow. The core's authentication decides
 * it (core/src/auth/caller.ts); route records and the error middleware carry it.
 */
export interface Caller {
  readonly principal: 'account' | 'service';
  readonly id: string;
  readonly username: string;
  readonly provenance: string;
  readonly firstname: string | null;
  /** The session behind the token used, or null for Basic authentication. */
  readonly sessionId: string | null;
  readonly roleIds: ReadonlySet<string>;
  /** Direct and inherited group ids. */
  readonly groupIds: ReadonlySet<string>;
  readonly groups: ReadonlyArray<{ readonly id: string; readonly provenance: string; readonly name: string }>;
  /** `Provenance.method` pairs any role allows. */
  readonly methods: ReadonlySet<string>;
  /** Provenances whose `admin` role the caller holds: all their methods are allowed. */
  readonly adminOf: ReadonlySet<string>;
  readonly views: ReadonlyArray<{ readonly provenance: string; readonly path: string }>;
}
