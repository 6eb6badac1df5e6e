/** `restAction` (app `NSOManager`, also `OrchestratorManager`): incoming adapterId, params, body; outgoing result. See relay-task.ts. */
import { relayTask } from './relay-task.ts';

export const restAction = relayTask('restAction');
export const orchestratorManagerRestAction = relayTask('restAction', 'OrchestratorManager');
