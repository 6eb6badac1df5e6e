/** Every platform-core golden case in front of the platform stand-in (platform-dialect.ts says what is checked). */
import { describe, test } from 'node:test';
import { casesOf, missing, runInFrontOfPlatform } from './platform-dialect.ts';

describe('platform-core golden cases in front of the platform stand-in', { skip: missing === null ? false : `skipped: ${missing}` }, () => {
  for (const { file, c, form } of casesOf('platform-core')) {
    test(`${c.entry}: only platform routes, bodies and filters reach the upstream (${file}, ${form})`, () => runInFrontOfPlatform(c, form));
  }
});
