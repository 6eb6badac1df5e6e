/** The differential write suite (writes-suite.ts) with the gateway in front of our core. */
import { writesSuite } from './writes-suite.ts';

writesSuite('core');
