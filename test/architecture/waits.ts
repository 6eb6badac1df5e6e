/**
 * Finds the waits in test files that test/README.md ("Waiting in a test")
 * does not allow:
 *
 * - a call of a function named sleep, delay, wait or pause: a bare sleep;
 * - `setTimeout` or `setImmediate` handed a promise's resolve, directly or
 *   as `() => resolve()`: a wait built by hand (a timer that does something,
 *   such as a watchdog that kills a child, is not a wait);
 * - `node:timers/promises`, whose functions are all waits;
 * - `timingSleep(ms, why)` whose `why` is not written out as a sentence.
 *
 * The code is read with its comments and strings blanked out (the
 * project's TypeScript is the native compiler, which has no syntax-tree API
 * for a test to use), so a word in a string, such as the attack payload
 * `$where: 'sleep(100)'`, is never taken for a call.
 * `test/helpers/wait.ts`, where the allowed waits are made, is not checked.
 */
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { sourceFiles } from './imports.ts';

export const WAIT_HELPER = 'test/helpers/wait.ts';
/** A reason shorter than this is a word, not a reason. */
const MIN_REASON = 20;

export interface WaitViolation {
  /** Relative to the root, with `/`. */
  readonly file: string;
  readonly line: number;
  readonly rule: 'bare sleep' | 'timer as a wait' | 'timers/promises' | 'timingSleep without a reason';
  readonly text: string;
}

interface StringLiteral {
  readonly start: number;
  readonly value: string;
}

/** The text with comments, strings, templates and regular expressions turned to spaces (lines kept), and the plain strings found. */
export function blankOut(text: string): { code: string; strings: StringLiteral[] } {
  const out = text.split('');
  const strings: StringLiteral[] = [];
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k += 1) if (out[k] !== '\n') out[k] = ' ';
  };
  /** Skips a template from its opening backtick; answers the index after its closing one. */
  const template = (i: number): number => {
    let j = i + 1;
    while (j < text.length && text[j] !== '`') {
      if (text[j] === '\\') j += 2;
      else if (text[j] === '$' && text[j + 1] === '{') j = code(j + 2, '}');
      else j += 1;
    }
    return j + 1;
  };
  /** Scans code from `i` until `end` at depth 0 (or the end of the text); answers the index after it. */
  const code = (i: number, end: string | null): number => {
    let depth = 0;
    let j = i;
    let last = '';
    while (j < text.length) {
      const c = text[j]!;
      const next = text[j + 1];
      if (c === '/' && next === '/') {
        const e = text.indexOf('\n', j);
        const stop = e < 0 ? text.length : e;
        blank(j, stop);
        j = stop;
      } else if (c === '/' && next === '*') {
        const e = text.indexOf('*/', j + 2);
        const stop = e < 0 ? text.length : e + 2;
        blank(j, stop);
        j = stop;
      } else if (c === "'" || c === '"') {
        let k = j + 1;
        while (k < text.length && text[k] !== c && text[k] !== '\n') k += text[k] === '\\' ? 2 : 1;
        strings.push({ start: j, value: text.slice(j + 1, k) });
        blank(j, k + 1);
        j = k + 1;
        last = 'x';
      } else if (c === '`') {
        const stop = template(j);
        strings.push({ start: j, value: text.slice(j + 1, stop - 1) });
        blank(j, stop);
        j = stop;
        last = 'x';
      } else if (c === '/' && (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last))) {
        // A regular expression literal: to its closing slash, outside a character class.
        let k = j + 1;
        let inClass = false;
        while (k < text.length && text[k] !== '\n' && (inClass || text[k] !== '/')) {
          if (text[k] === '\\') k += 1;
          else if (text[k] === '[') inClass = true;
          else if (text[k] === ']') inClass = false;
          k += 1;
        }
        blank(j, k + 1);
        j = k + 1;
        last = 'x';
      } else {
        if (end !== null && depth === 0 && c === end) return j + 1;
        if (c === '{' || c === '(' || c === '[') depth += 1;
        else if (c === '}' || c === ')' || c === ']') depth -= 1;
        if (!/\s/.test(c)) last = /[\w$)\]]/.test(c) ? 'x' : c;
        j += 1;
      }
    }
    return j;
  };
  code(0, null);
  return { code: out.join(''), strings };
}

const BARE_SLEEP = /(?<![\w$])(sleep|delay|wait|pause)\s*\(/g;
/** `setTimeout(resolve, ms)`, `setImmediate(r)`, `setTimeout(() => r(), ms)`, `setTimeout(() => { r(); }, ms)`. */
const TIMER_WAIT = /(?<![\w$])(?:setTimeout|setImmediate)\s*\(\s*(?:[\w$]+\s*[,)]|(?:\(\s*\)|[\w$]+)\s*=>\s*(?:[\w$]+\s*\(\s*\)|\{\s*[\w$]+\s*\(\s*\)\s*;?\s*\})\s*[,)])/g;
const TIMING_SLEEP = /(?<![\w$])timingSleep\s*\(/g;
const IMPORTER = /(?:\bfrom|\bimport|\bimport\s*\(|\brequire\s*\()\s*$/;
const TIMERS_PROMISES = /^(?:node:)?timers\/promises$/;

/** The disallowed waits in one file's text; `file` is only for the report. */
export function waitsIn(file: string, text: string): WaitViolation[] {
  const { code, strings } = blankOut(text);
  const out: WaitViolation[] = [];
  const lineOf = (at: number): number => text.slice(0, at).split('\n').length;
  const report = (at: number, rule: WaitViolation['rule']): void => {
    out.push({ file, line: lineOf(at), rule, text: text.slice(at, text.indexOf('\n', at) < 0 ? undefined : text.indexOf('\n', at)).trim().slice(0, 120) });
  };
  for (const m of code.matchAll(BARE_SLEEP)) report(m.index, 'bare sleep');
  for (const m of code.matchAll(TIMER_WAIT)) report(m.index, 'timer as a wait');
  const byStart = new Map(strings.map((s) => [s.start, s]));
  for (const s of strings) if (TIMERS_PROMISES.test(s.value) && IMPORTER.test(code.slice(Math.max(0, s.start - 40), s.start))) report(s.start, 'timers/promises');
  for (const m of code.matchAll(TIMING_SLEEP)) {
    // The second argument: after the first comma at the call's own depth.
    let depth = 0;
    let j = m.index + m[0].length;
    for (; j < code.length; j += 1) {
      const c = code[j]!;
      if (c === '(' || c === '[' || c === '{') depth += 1;
      else if (c === ')' || c === ']' || c === '}') {
        if (depth === 0) break;
        depth -= 1;
      } else if (c === ',' && depth === 0) break;
    }
    let k = j + 1;
    while (k < text.length && /\s/.test(text[k]!)) k += 1;
    const reason = code[j] === ',' ? byStart.get(k) : undefined;
    if (!reason || reason.value.replace(/\$\{[^}]*\}/g, '').trim().length < MIN_REASON) report(m.index, 'timingSleep without a reason');
  }
  return out.sort((a, b) => a.line - b.line);
}

/** Every disallowed wait under `root`/test. */
export function waitViolations(root: string): WaitViolation[] {
  const out: WaitViolation[] = [];
  for (const path of sourceFiles(`${root}${sep}test`)) {
    const file = relative(root, path).split(sep).join('/');
    if (file === WAIT_HELPER) continue;
    out.push(...waitsIn(file, readFileSync(path, 'utf8')));
  }
  return out;
}
