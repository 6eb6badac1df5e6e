/** The platform-core differential suite (platform-core-suite.ts) with the gateway in front of our core. */
import { platformCoreSuite } from './platform-core-suite.ts';

platformCoreSuite('core');
