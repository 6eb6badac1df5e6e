/**
 * The platform-core differential suite (platform-core-suite.ts) with the
 * gateway over HTTPS in front of the platform stand-in, told
 * PLATFORM_RELEASE=2023.1 and GATEWAY_SERVE_UNTIL=2024.1
 * (test/helpers/in-front-of-platform.ts).
 */
import { describe } from 'node:test';
import { platformMissing } from '../../helpers/in-front-of-platform.ts';
import { platformCoreSuite } from './platform-core-suite.ts';

describe('differential platform-core lists in front of the platform stand-in', { skip: platformMissing ?? false }, () => platformCoreSuite('platform'));
