/** The issue-13 requests (issue-13-suite.ts) with the gateway in front of our core. */
import { issue13Suite } from './issue-13-suite.ts';

issue13Suite('core');
