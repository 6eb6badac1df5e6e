/**
 * Patterns on RE2 match what JavaScript's RegExp (the dialect JSON Schema
 * names) matches, with V8 as the oracle over generated strings; what RE2
 * cannot run is refused with the reason; catastrophic patterns answer at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { linearPattern, translatePattern } from '../../../kernel/json-schema/pattern.ts';

// Ordinary patterns from real input schemas: host and interface names, addresses, classes and escapes.
const ORDINARY = [
  '^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$',
  '^Gi\\d+/\\d+$',
  '^(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)$',
  '^(Gi|Te|Fa)\\d+(/\\d+){1,2}(\\.\\d+)?$',
  '\\d', '\\D+', '\\w+', '^\\W', '\\s', '\\S\\s\\S', '[\\s\\d]', '[^\\s]', '[\\S]',
  '^[a-f0-9]{2}(:[a-f0-9]{2}){5}$', 'ab|cd', '^$', '.', '^.+$', 'a.c', '\\bGi', 'i\\b', '\\Bx',
  '[a-c-]', '[-x]', '[^a-c]', '[\\]\\[]', '[\\^a]', '\\.', '\\/', '\\$', '\\u00e9', '\\x41', '\\u{1F600}',
  '[\\u0041-\\u005a]+', '\\p{L}+', '\\p{Lu}', '\\P{L}', '\\p{Script=Greek}', '\\p{Letter}', '\\t|\\n', '[\\b]',
  '(?<name>x)y', '(?:ab)+c', 'a{2,3}', 'a{2,}', 'x*?y', 'x+?', '^a?b??$', '[]', '[^]', '\\0', '\\cJ', '^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$',
];
// Characters the patterns above care about, plus the ones where the dialects differ (line and space separators, NBSP, BOM, astral).
const ALPHABET = ['a', 'b', 'c', 'd', 'x', 'y', 'A', 'Z', 'G', 'i', 'T', 'e', '0', '1', '2', '5', '9', '/', '.', ':', '-', '_', '@', ' ', '\t', '\n', '\r', '\u000b', '\u00a0', '\u2028', '\u2029', '\ufeff', '\u00e9', 'λ', '😀', '\u0008', '[', ']', '^', '$'];
const strings = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 24 }).map((chars) => chars.join(''));

test('ordinary patterns match exactly the strings JavaScript RegExp matches', () => {
  for (const source of ORDINARY) {
    const re2 = linearPattern(source);
    const js = new RegExp(source, 'u');
    const samples = ['', 'Gi0/1', 'Gi10/20', 'gi0/1', 'Te1/0/3.100', '10.0.0.1', '256.1.1.1', 'core-rtr-07.atl', 'aa:bb:cc:dd:ee:ff', 'x@y.io', 'é', '😀', 'Ελλάδα'];
    for (const s of samples) assert.equal(re2.test(s), js.test(s), `${source} on ${JSON.stringify(s)}`);
    fc.assert(
      fc.property(strings, (s) => re2.test(s) === js.test(s)),
      { numRuns: 300 },
    );
  }
});

test('backreferences and lookaround are refused with the reason', () => {
  const refused: Array<[string, RegExp]> = [
    ['(?<=a)b', /^lookbehind is not supported \(patterns must run in linear time\)$/],
    ['(?<!a)b', /^lookbehind is not supported/],
    ['a(?=b)', /^lookahead is not supported/],
    ['a(?!b)', /^lookahead is not supported/],
    ['(a)\\1', /^backreferences are not supported/],
    ['(?<x>a)\\k<x>', /^backreferences are not supported/],
    ['a{1001}', /^repetition counts above 1000 are not supported/],
    ['(', /^is not a valid regular expression/],
    ['\\p{Script_Extensions=Latin}', /^the Unicode property/],
    ['x'.repeat(1001), /^is longer than 1000 characters/],
  ];
  for (const [source, reason] of refused) {
    const t = translatePattern(source);
    assert.ok('problem' in t, `${source} is refused`);
    assert.match(t.problem, reason, source);
    assert.throws(() => linearPattern(source), reason.source.startsWith('^') ? new RegExp(reason.source.slice(1)) : reason);
  }
});

test('catastrophic patterns answer in linear time', () => {
  const hostile: Array<[string, string]> = [
    ['^(a+)+$', `${'a'.repeat(33)}!`],
    ['^(a|a)*$', `${'a'.repeat(40)}!`],
    ['^(a|aa)+$', `${'a'.repeat(60)}!`],
    ['(.*a){20}', 'a'.repeat(19) + 'b'.repeat(20_000)],
    ['^(\\w+\\s?)*$', `${'word '.repeat(5_000)}!`],
  ];
  for (const [source, input] of hostile) {
    const re = linearPattern(source);
    const started = performance.now();
    assert.equal(re.test(input), false);
    // Generous: the backtracking engine takes minutes on these; RE2 takes milliseconds.
    assert.ok(performance.now() - started < 500, `${source} took ${Math.round(performance.now() - started)} ms`);
  }
});
