/**
 * The route methods whose roles the engine's outside-reaching work needs,
 * named once: each is the method of the route that does the same over HTTP
 * (the authority reads that route's roles; engine/authority.ts).
 */
import { OM } from '../operations-manager/route.ts';
import { ORCHESTRATOR_MANAGER } from '../relay/routes.ts';
import { PROVENANCE as JST } from '../transformations/routes.ts';
import type { Permission } from './authority.ts';

/** `POST /operations-manager/jobs/start`. */
export const START_JOB: Permission = { provenance: OM, method: 'startJob' };

/** `POST /transformations/:id`. */
export const RUN_TRANSFORMATION: Permission = { provenance: JST, method: 'runTransformation' };

/** `POST /orchestrator_manager/restAction/:adapterId` and `.../restQuery/:adapterId`. */
export function relayPermission(kind: 'restAction' | 'restQuery'): Permission {
  return { provenance: ORCHESTRATOR_MANAGER, method: kind };
}
