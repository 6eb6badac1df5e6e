/**
 * The comparison operators of the `evaluation` task. Like the platform, they
 * read a string that spells a number or a boolean as that value before
 * comparing, because form inputs and adapter results often carry `"5"` where
 * a workflow compares with `5`. Objects and arrays compare by content.
 */
import { TaskError } from '../types.ts';
import { isPlainObject } from '../../../../kernel/index.ts';

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

export const OPERATORS = ['==', '!=', '<', '<=', '>', '>=', 'contains', '!contains'] as const;
export type Operator = (typeof OPERATORS)[number];

export function isOperator(value: unknown): value is Operator {
  return typeof value === 'string' && (OPERATORS as readonly string[]).includes(value);
}

function infer(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (JSON_NUMBER.test(value)) {
    const number = Number(value);
    if (Number.isFinite(number)) return number;
  }
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

function looseEqual(a: unknown, b: unknown): boolean {
  return deepEqual(a, b) || deepEqual(infer(a), infer(b));
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function order(operator: Operator, a: unknown, b: unknown): number {
  const x = infer(a);
  const y = infer(b);
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  if (typeof x === 'string' && typeof y === 'string') return x < y ? -1 : x > y ? 1 : 0;
  throw new TaskError(`operator "${operator}" compares two numbers or two strings, not ${kind(a)} and ${kind(b)}`);
}

function contains(haystack: unknown, needle: unknown): boolean {
  if (typeof haystack === 'string') {
    if (typeof needle === 'string' || typeof needle === 'number' || typeof needle === 'boolean') return haystack.includes(String(needle));
    throw new TaskError(`operator "contains" looks for a string, number or boolean in a string, not ${kind(needle)}`);
  }
  if (Array.isArray(haystack)) return haystack.some((item: unknown) => looseEqual(item, needle));
  throw new TaskError(`operator "contains" needs a string or an array as operand_1, not ${kind(haystack)}`);
}

export function compare(operator: Operator, a: unknown, b: unknown): boolean {
  switch (operator) {
    case '==':
      return looseEqual(a, b);
    case '!=':
      return !looseEqual(a, b);
    case '<':
      return order(operator, a, b) < 0;
    case '<=':
      return order(operator, a, b) <= 0;
    case '>':
      return order(operator, a, b) > 0;
    case '>=':
      return order(operator, a, b) >= 0;
    case 'contains':
      return contains(a, b);
    case '!contains':
      return !contains(a, b);
  }
}
