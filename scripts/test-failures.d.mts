/** Types of scripts/test-failures.mjs, for the test that runs it. */
export declare const LOG_REPORTERS: readonly string[];
export default function failures(source: AsyncIterable<unknown>): AsyncGenerator<string>;
