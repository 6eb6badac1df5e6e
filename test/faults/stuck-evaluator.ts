/**
 * Run by sandbox-heap.test.ts as a process to kill: starts a mapping that is
 * stuck in one regular-expression call for far longer than the test, and
 * says so once its evaluator is busy.
 */
import { DEFAULT_LIMITS, MappingSandbox } from '../../core/src/transformations/sandbox.ts';

const sandbox = new MappingSandbox({ ...DEFAULT_LIMITS, timeoutMs: 600_000 });
void sandbox.evaluate('$match($pad("", 60, "a") & "b", /^(a+)+$/)', {});
setTimeout(() => console.log('stuck'), 300);
