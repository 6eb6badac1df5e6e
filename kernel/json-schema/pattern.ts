/**
 * Patterns users write (JSON Schema `pattern` and `patternProperties`) run on
 * RE2, whose time is linear in the input, instead of V8's backtracking
 * engine, where `^(a+)+$` against 33 `a`s and a `!` takes minutes. JSON
 * Schema's dialect is ECMA-262 with the `u` flag, unanchored; this module
 * translates that dialect into RE2's so both match the same strings, and
 * refuses what RE2 cannot run (backreferences, lookaround). See
 * docs/json-schema.md.
 */
import { RE2JS } from 're2js';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';

/** Longest pattern accepted; real patterns are a few dozen characters. */
export const MAX_PATTERN_LENGTH = 1000;
/** RE2's own ceiling on `{n,m}`. */
const MAX_REPEAT = 1000;
const WHY = 'patterns must run in linear time';

// ECMA-262 WhiteSpace and LineTerminator: what `\s` means in JavaScript (RE2's `\s` is ASCII only).
const SPACE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const hex = (cp: number): string => `\\x{${cp.toString(16)}}`;
const rangeText = (ranges: ReadonlyArray<readonly [number, number]>): string => ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join('');
const SPACE = rangeText(SPACE_RANGES);
const NOT_SPACE = rangeText(
  SPACE_RANGES.reduce<Array<[number, number]>>((out, [a, b], i) => {
    const from = i === 0 ? 0 : SPACE_RANGES[i - 1]![1] + 1;
    if (from < a) out.push([from, a - 1]);
    if (i === SPACE_RANGES.length - 1 && b < 0x10ffff) out.push([b + 1, 0x10ffff]);
    return out;
  }, []),
);
/** `.` in JavaScript without the `s` flag: anything but a line terminator. */
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

// Long General_Category names RE2 does not know, to the short ones it does.
const CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  Letter: 'L', Cased_Letter: 'L', Uppercase_Letter: 'Lu', Lowercase_Letter: 'Ll', Titlecase_Letter: 'Lt', Modifier_Letter: 'Lm', Other_Letter: 'Lo',
  Mark: 'M', Number: 'N', Decimal_Number: 'Nd', digit: 'Nd', Letter_Number: 'Nl', Other_Number: 'No',
  Punctuation: 'P', punct: 'P', Symbol: 'S', Separator: 'Z', Space_Separator: 'Zs', Other: 'C', Control: 'Cc', cntrl: 'Cc',
};

class Refused extends Error {}

/** What RE2 makes of JavaScript's `\…` escape at `i` (just after the backslash). */
interface Escape {
  readonly text: string;
  readonly next: number;
}

function propertyEscape(src: string, i: number, negated: boolean): Escape {
  const close = src.indexOf('}', i);
  const body = src.slice(i + 1, close);
  const [name, value] = body.includes('=') ? (body.split('=') as [string, string]) : [null, body];
  let re2: string;
  if (name === 'Script' || name === 'sc' || name === 'General_Category' || name === 'gc') re2 = CATEGORY_ALIASES[value] ?? value;
  else if (name !== null) throw new Refused(`the Unicode property \\p{${body}} is not supported`);
  else re2 = CATEGORY_ALIASES[value] ?? value;
  try {
    RE2JS.compile(`\\p{${re2}}`);
  } catch {
    throw new Refused(`the Unicode property \\p{${body}} is not supported`);
  }
  return { text: `\\${negated ? 'P' : 'p'}{${re2}}`, next: close + 1 };
}

function codeUnitEscape(src: string, i: number): Escape {
  if (src[i] === '{') {
    const close = src.indexOf('}', i);
    return { text: hex(parseInt(src.slice(i + 1, close), 16)), next: close + 1 };
  }
  const unit = parseInt(src.slice(i, i + 4), 16);
  // A surrogate pair written as two escapes is one code point.
  if (unit >= 0xd800 && unit <= 0xdbff && src.startsWith('\\u', i + 4)) {
    const low = parseInt(src.slice(i + 6, i + 10), 16);
    if (low >= 0xdc00 && low <= 0xdfff) return { text: hex((unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000), next: i + 10 };
  }
  if (unit >= 0xd800 && unit <= 0xdfff) throw new Refused('a lone surrogate (\\u' + src.slice(i, i + 4) + ') is not supported');
  return { text: hex(unit), next: i + 4 };
}

/** An escape, `i` just after the backslash. `inClass`: inside `[...]`. */
function escape(src: string, i: number, inClass: boolean): Escape {
  const c = src[i]!;
  switch (c) {
    case 'd': case 'D': case 'w': case 'W':
      return { text: `\\${c}`, next: i + 1 };
    case 'b': case 'B':
      return { text: inClass ? hex(8) : `\\${c}`, next: i + 1 };
    case 's':
      return { text: inClass ? SPACE : `[${SPACE}]`, next: i + 1 };
    case 'S':
      return { text: inClass ? NOT_SPACE : `[^${SPACE}]`, next: i + 1 };
    case 't': return { text: hex(9), next: i + 1 };
    case 'n': return { text: hex(10), next: i + 1 };
    case 'v': return { text: hex(11), next: i + 1 };
    case 'f': return { text: hex(12), next: i + 1 };
    case 'r': return { text: hex(13), next: i + 1 };
    case '0': return { text: hex(0), next: i + 1 };
    case 'c': return { text: hex(src.charCodeAt(i + 1) % 32), next: i + 2 };
    case 'x': return { text: hex(parseInt(src.slice(i + 1, i + 3), 16)), next: i + 3 };
    case 'u': return codeUnitEscape(src, i + 1);
    case 'p': case 'P':
      return propertyEscape(src, i + 1, c === 'P');
    case 'k':
      throw new Refused(`backreferences are not supported (${WHY})`);
    default:
      if (c >= '1' && c <= '9') throw new Refused(`backreferences are not supported (${WHY})`);
      // What remains under the u flag is an escaped syntax character (or `-` in a class): RE2 reads it the same.
      return { text: `\\${c}`, next: i + 1 };
  }
}

/** A character class starting at `i` (on the `[`). */
function charClass(src: string, i: number): Escape {
  let j = i + 1;
  const negated = src[j] === '^';
  if (negated) j++;
  let out = '';
  while (src[j] !== ']') {
    if (src[j] === '\\') {
      const e = escape(src, j + 1, true);
      out += e.text;
      j = e.next;
    } else {
      const cp = src.codePointAt(j)!;
      const ch = String.fromCodePoint(cp);
      // `[` would open a POSIX class (`[[:alpha:]]`) in RE2; in JavaScript it is a literal.
      out += ch === '[' || ch === '^' ? `\\${ch}` : ch;
      j += ch.length;
    }
  }
  // `[]` matches nothing and `[^]` anything in JavaScript; RE2 has no empty class.
  if (out === '') return { text: negated ? '[\\x{0}-\\x{10ffff}]' : '[^\\x{0}-\\x{10ffff}]', next: j + 1 };
  return { text: `[${negated ? '^' : ''}${out}]`, next: j + 1 };
}

function group(src: string, i: number): Escape {
  if (src.startsWith('(?=', i) || src.startsWith('(?!', i)) throw new Refused(`lookahead is not supported (${WHY})`);
  if (src.startsWith('(?<=', i) || src.startsWith('(?<!', i)) throw new Refused(`lookbehind is not supported (${WHY})`);
  // Captures mean nothing to a test; a named group becomes a plain one.
  if (src.startsWith('(?<', i)) return { text: '(?:', next: src.indexOf('>', i) + 1 };
  if (src.startsWith('(?:', i)) return { text: '(?:', next: i + 3 };
  return { text: '(?:', next: i + 1 };
}

function repeat(src: string, i: number): Escape {
  const close = src.indexOf('}', i);
  const counts = src.slice(i + 1, close).split(',').filter((n) => n !== '').map(Number);
  if (counts.some((n) => n > MAX_REPEAT)) throw new Refused(`repetition counts above ${MAX_REPEAT} are not supported`);
  return { text: src.slice(i, close + 1), next: close + 1 };
}

/** The RE2 text of a JavaScript (`u` flag) pattern, or why it cannot have one. */
export function translatePattern(src: string): { source: string } | { problem: string } {
  if (src.length > MAX_PATTERN_LENGTH) return { problem: `is longer than ${MAX_PATTERN_LENGTH} characters` };
  try {
    // Construction parses without running, so a catastrophic pattern costs nothing here; it settles the syntax.
    new RegExp(src, 'u');
  } catch (err) {
    return { problem: `is not a valid regular expression: ${(err as Error).message}` };
  }
  try {
    let out = '';
    let i = 0;
    while (i < src.length) {
      const c = src[i]!;
      let e: Escape;
      if (c === '\\') e = escape(src, i + 1, false);
      else if (c === '[') e = charClass(src, i);
      else if (c === '(') e = group(src, i);
      else if (c === '{') e = repeat(src, i);
      else if (c === '.') e = { text: DOT, next: i + 1 };
      else e = { text: String.fromCodePoint(src.codePointAt(i)!), next: i + String.fromCodePoint(src.codePointAt(i)!).length };
      out += e.text;
      i = e.next;
    }
    RE2JS.compile(out);
    return { source: out };
  } catch (err) {
    if (err instanceof Refused) return { problem: err.message };
    return { problem: `cannot be run in linear time: ${(err as Error).message}` };
  }
}

/** A pattern compiled for RE2; throws (naming the reason) on one it cannot run. */
export function linearPattern(src: string): RegExpLike {
  const translated = translatePattern(src);
  if ('problem' in translated) throw new Error(`pattern ${JSON.stringify(src)} ${translated.problem}`);
  const re = RE2JS.compile(translated.source);
  // Ajv keys compiled patterns by toString() within an instance; the source keeps distinct patterns apart.
  return { test: (s: string) => re.test(s), toString: () => `re2:${src}` } as RegExpLike;
}

/** Ajv's `code.regExp` option. */
export const linearRegExp: RegExpEngine = Object.assign((pattern: string) => linearPattern(pattern), { code: 'linearPattern' });
