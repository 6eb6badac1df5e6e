/** The real-client requests (suite.ts) sent to the gateway in front of our core. */
import { realClientsSuite } from './suite.ts';

realClientsSuite('core');
