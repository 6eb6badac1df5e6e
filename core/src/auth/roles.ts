/**
 * Methods, views and built-in roles, all derived from the route records:
 * every route declares its method name, provenance and the role names that
 * may call it, so nothing here is a hand-kept list except the roles the
 * interface document names (the replacements of Platform.admin).
 */
import { roleId } from '../../../kernel/index.ts';
import type { AnyRoute } from '../../../kernel/index.ts';

export interface MethodRef {
  readonly provenance: string;
  readonly name: string;
}

export interface MethodInfo extends MethodRef {
  readonly route: { readonly path: string; readonly verb: string; readonly fullPath: string };
  readonly deprecated: boolean;
}

export interface ViewInfo {
  readonly provenance: string;
  readonly path: string;
}

export interface RoleDoc {
  readonly _id: string;
  readonly provenance: string;
  readonly name: string;
  readonly description: string;
  readonly allowedMethods: MethodRef[];
  readonly allowedViews: ViewInfo[];
  /** Made from the routes at every start; changes to it are overwritten. */
  readonly builtIn?: boolean;
}

/** The obsolete all-powerful role (deprecated 2021.2, removed 2022.2). */
export const PLATFORM_ADMIN: MethodRef = { provenance: 'Platform', name: 'admin' };

/** The roles that replace Platform.admin, as the interface document lists them. */
export const PLATFORM_ADMIN_REPLACEMENTS: readonly string[] = [
  'Adapters', 'AdapterModels', 'AdminEssentials', 'Applications', 'Authorization', 'Health', 'Integrations',
  'IntegrationModels', 'PrebuiltsRepository', 'Prebuilts', 'Profiles', 'Schema', 'UserManagement',
];


/** Routes whose access is decided by roles (public and any-authenticated ones are not). */
function guarded(routes: readonly AnyRoute[]): AnyRoute[] {
  return routes.filter((r) => Array.isArray(r.roles));
}

export function methodCatalog(routes: readonly AnyRoute[]): MethodInfo[] {
  const seen = new Map<string, MethodInfo>();
  for (const r of guarded(routes)) {
    const key = `${r.provenance}.${r.name}`;
    if (!seen.has(key)) {
      seen.set(key, { provenance: r.provenance, name: r.name, route: { path: r.path, verb: r.method, fullPath: r.path }, deprecated: false });
    }
  }
  return [...seen.values()].sort((a, b) => a.provenance.localeCompare(b.provenance) || a.name.localeCompare(b.name));
}

/** One view per application: the first path segment its routes live under. */
export function viewCatalog(routes: readonly AnyRoute[]): ViewInfo[] {
  const seen = new Map<string, ViewInfo>();
  for (const r of guarded(routes)) {
    const path = `/${r.path.split('/')[1] ?? ''}/`;
    seen.set(`${r.provenance} ${path}`, { provenance: r.provenance, path });
  }
  return [...seen.values()].sort((a, b) => a.provenance.localeCompare(b.provenance) || a.path.localeCompare(b.path));
}

export function builtInRoles(routes: readonly AnyRoute[]): RoleDoc[] {
  const methods = methodCatalog(routes);
  const views = viewCatalog(routes);
  const roles = new Map<string, RoleDoc>();
  const add = (provenance: string, name: string, description: string, allowedMethods: MethodRef[], allowedViews: ViewInfo[]): void => {
    roles.set(`${provenance}.${name}`, { _id: roleId(provenance, name), provenance, name, description, allowedMethods, allowedViews, builtIn: true });
  };
  const provenances = new Set([...methods.map((m) => m.provenance), ...PLATFORM_ADMIN_REPLACEMENTS]);
  for (const p of provenances) {
    add(p, 'admin', `Every method and view of ${p}`, methods.filter((m) => m.provenance === p).map(ref), views.filter((v) => v.provenance === p));
  }
  for (const r of guarded(routes)) {
    for (const name of r.roles as readonly string[]) {
      if (name === 'admin') continue;
      const key = `${r.provenance}.${name}`;
      const existing = roles.get(key);
      const allowed = existing ? existing.allowedMethods : [];
      if (!allowed.some((m) => m.name === r.name)) allowed.push({ provenance: r.provenance, name: r.name });
      if (!existing) add(r.provenance, name, `The ${name} role of ${r.provenance}`, allowed, views.filter((v) => v.provenance === r.provenance));
    }
  }
  add(PLATFORM_ADMIN.provenance, PLATFORM_ADMIN.name, 'Obsolete: replaced by the admin roles of the platform applications (deprecated 2021.2, removed 2022.2)', [], []);
  return [...roles.values()];
}

function ref(m: MethodInfo): MethodRef {
  return { provenance: m.provenance, name: m.name };
}
