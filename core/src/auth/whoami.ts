/**
 * The caller as `GET /whoami` describes them: one shape, shared by every
 * route that answers "who am I" (the service catalog's GetUserObject too).
 */
import type { Caller } from './caller.ts';
import type { MethodInfo } from './roles.ts';
import { arrayOf, closed, nullable, STRING } from '../../../kernel/index.ts';

export interface WhoAmI {
  readonly id: string;
  readonly provenance: string;
  readonly username: string;
  readonly firstname: Caller['firstname'];
  readonly groups: Caller['groups'];
  readonly routes: string[];
  /** The methods the caller may call, by provenance. */
  readonly methods: Record<string, string[]>;
  readonly roles: string[];
}

/** The shape of WhoAmI, for the routes that answer it. */
export const WHOAMI = closed({
  id: STRING,
  provenance: STRING,
  username: STRING,
  firstname: nullable(STRING),
  groups: arrayOf(closed({ id: STRING, provenance: STRING, name: STRING })),
  routes: arrayOf(STRING),
  methods: { type: 'object', additionalProperties: arrayOf(STRING) },
  roles: arrayOf(STRING),
});

export function whoami(caller: Caller, catalog: readonly MethodInfo[]): WhoAmI {
  const methods: Record<string, string[]> = {};
  for (const m of catalog) {
    if (caller.adminOf.has(m.provenance) || caller.methods.has(`${m.provenance}.${m.name}`)) (methods[m.provenance] ??= []).push(m.name);
  }
  return {
    id: caller.id,
    provenance: caller.provenance,
    username: caller.username,
    firstname: caller.firstname,
    groups: caller.groups,
    routes: [...new Set(caller.views.map((v) => v.path))].sort(),
    methods,
    roles: [...caller.roleIds].sort(),
  };
}
