/**
 * What work done on someone's behalf may do: the same as that someone may do
 * over HTTP. A permission is a route's method (`OrchestratorManager.restAction`);
 * the roles that grant it are read from the route records, never copied, so a
 * task and the route it stands for can never disagree.
 */
import { can } from '../auth/caller.ts';
import type { LoadPrincipal, PrincipalRef } from '../auth/principal.ts';
import type { AnyRoute } from '../../../kernel/index.ts';

/** A route's method, as `Provenance.method` names it. */
export interface Permission {
  readonly provenance: string;
  readonly method: string;
}

export interface Authority {
  /** Null when the principal may, now; otherwise why not, naming the roles that would allow it. */
  refusal(principal: PrincipalRef, needs: Permission): Promise<string | null>;
  /** The role names (`Provenance.role`) that allow a permission; throws for a method no route has. */
  rolesFor(needs: Permission): string[];
}

export function permissionName(p: Permission): string {
  return `${p.provenance}.${p.method}`;
}

/** `routes` is read when asked, so the authority can be made before the table that holds it. */
export function routeAuthority(routes: () => readonly AnyRoute[], load: LoadPrincipal): Authority {
  const rolesFor = (needs: Permission): string[] => {
    const found = routes().filter((r) => r.provenance === needs.provenance && r.name === needs.method);
    if (found.length === 0) throw new Error(`No route has the method ${permissionName(needs)}: a task cannot need it`);
    const names = new Set<string>([`${needs.provenance}.admin`]);
    for (const r of found) if (Array.isArray(r.roles)) for (const role of r.roles as readonly string[]) names.add(`${needs.provenance}.${role}`);
    return [...names];
  };
  return {
    rolesFor,
    async refusal(principal, needs) {
      const roles = rolesFor(needs).join(', ');
      const who = await load(principal);
      if (!who) return `This job acts for ${principal.kind} ${principal.id}, which no longer exists or is inactive; ${permissionName(needs)} needs one of the roles ${roles}`;
      if (can(who, needs.provenance, needs.method)) return null;
      return `This job acts for ${who.username}, who holds no role that allows ${permissionName(needs)}; it needs one of the roles ${roles}`;
    },
  };
}
