/** `restQuery` (app `NSOManager`, also `OrchestratorManager`): incoming adapterId, params; outgoing result. See relay-task.ts. */
import { relayTask } from './relay-task.ts';

export const restQuery = relayTask('restQuery');
export const orchestratorManagerRestQuery = relayTask('restQuery', 'OrchestratorManager');
