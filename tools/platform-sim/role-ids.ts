/**
 * Role ids that are not ours. On the platform a role's id is an ObjectId made
 * when the role was created at install time (ipctl's 2023.2 `whoami` and
 * `authorization/roles` fixtures), never derived from its provenance and name
 * as our core derives its built-in ones. The stand-in gives each core role id
 * it sees a fresh random ObjectId, made at its start (so every run differs),
 * and maps it back on the way in. An id it never gave out is unknown, as a
 * derived id is unknown to a real platform.
 */
import { randomBytes } from 'node:crypto';

const OBJECT_ID = /^[0-9a-f]{24}$/;

export class RoleIds {
  private readonly toSim = new Map<string, string>();
  private readonly toCore = new Map<string, string>();

  /** `chosen`: platform ids given in advance for some core ids (a test makes ids collide with it). */
  constructor(chosen: ReadonlyMap<string, string> = new Map()) {
    for (const [coreId, simId] of chosen) {
      this.toSim.set(coreId, simId);
      this.toCore.set(simId, coreId);
    }
  }

  /** The platform's id for a core role id, made the first time it is seen. */
  outward(coreId: string): string {
    if (!OBJECT_ID.test(coreId)) return coreId;
    let simId = this.toSim.get(coreId);
    if (simId === undefined) {
      do simId = randomBytes(12).toString('hex');
      while (this.toCore.has(simId) || this.toSim.has(simId));
      this.toSim.set(coreId, simId);
      this.toCore.set(simId, coreId);
    }
    return simId;
  }

  /** The core's id for an id this stand-in gave out, or null for any other. */
  inward(simId: string): string | null {
    return this.toCore.get(simId.toLowerCase()) ?? null;
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isRecord(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of an answer with role ids replaced by `map`: every `roleId` member,
 * and, where `roleKeys` says so, the members that hold role ids in that
 * answer (`_id` of role documents, `roles` of whoami). Built member by member
 * into fresh objects, so no key from data reaches a prototype.
 */
export function mapRoleIds(value: Json, map: (id: string) => string, roleKeys: ReadonlySet<string>): Json {
  if (Array.isArray(value)) return value.map((item) => mapRoleIds(item, map, roleKeys));
  if (!isRecord(value)) return value;
  const out: { [key: string]: Json } = Object.create(null) as { [key: string]: Json };
  for (const [key, member] of Object.entries(value)) {
    if ((key === 'roleId' || roleKeys.has(key)) && typeof member === 'string') out[key] = map(member);
    else if (roleKeys.has(key) && Array.isArray(member)) out[key] = member.map((m) => (typeof m === 'string' ? map(m) : mapRoleIds(m, map, roleKeys)));
    else out[key] = mapRoleIds(member, map, roleKeys);
  }
  return out;
}

export type { Json };
