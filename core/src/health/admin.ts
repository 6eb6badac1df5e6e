/**
 * What only Health administrators see in the health reports: where adapters
 * are and why they fail, the process's library versions and id. To anyone
 * else they map the network behind the core and say which known flaws to try
 * (docs/auth.md, "What non-administrators see").
 */
import type { Caller } from '../../../kernel/index.ts';

export function isHealthAdmin(caller: Caller | null): boolean {
  return caller !== null && caller.adminOf.has('Health');
}
