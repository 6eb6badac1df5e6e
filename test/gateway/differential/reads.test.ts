/** The differential read suite (reads-suite.ts) with the gateway in front of our core. */
import { readsSuite } from './reads-suite.ts';

readsSuite('core');
