/**
 * The issue-13 requests (issue-13-suite.ts) with the gateway over HTTPS in
 * front of the platform stand-in, told PLATFORM_RELEASE=2023.1 and
 * GATEWAY_SERVE_UNTIL=2024.1 (test/helpers/in-front-of-platform.ts).
 */
import { describe } from 'node:test';
import { platformMissing } from '../../helpers/in-front-of-platform.ts';
import { issue13Suite } from './issue-13-suite.ts';

describe('issue 13 in front of the platform stand-in', { skip: platformMissing ?? false }, () => issue13Suite('platform'));
