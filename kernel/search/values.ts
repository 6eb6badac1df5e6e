/**
 * Reads condition values by the field's declared type. The caller never says
 * what type a value is; the registry does. A value the type cannot read is a
 * client error, never a silent string match.
 */
import { isObjectId } from '../store/ids.ts';
import type { FieldDef } from './fields.ts';

export type Scalar = string | number | boolean;

/** Thrown for a value the field's type cannot read; the parser attaches the parameter name. */
export class ValueError extends Error {}

const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:?\d{2})?$/;
const EPOCH_MS = /^-?[0-9]{1,15}$/;

/** The value a raw query-string text means for this field. */
export function readValue(field: FieldDef, raw: string | number | boolean): Scalar {
  if (typeof raw === 'string' && raw.includes('\u0000')) throw new ValueError('must not contain a NUL character');
  switch (field.type) {
    case 'string':
      if (typeof raw !== 'string') throw new ValueError('must be a string');
      return raw;
    case 'number':
      return readNumber(raw);
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw new ValueError('must be true or false');
    case 'objectId':
      if (!isObjectId(raw)) throw new ValueError('must be an object id of exactly 24 hexadecimal characters');
      return raw.toLowerCase();
    case 'uuid':
      if (typeof raw !== 'string' || !UUID.test(raw)) throw new ValueError('must be a UUID');
      return raw.toLowerCase();
    case 'date': {
      const ms = readDate(raw);
      return field.dateEncoding === 'isoString' ? new Date(ms).toISOString() : ms;
    }
  }
}

function readNumber(raw: string | number | boolean): number {
  if (typeof raw === 'number' && Number.isFinite(raw)) return raw;
  if (typeof raw === 'string' && NUMBER.test(raw)) {
    const n = Number(raw);
    if (Number.isFinite(n)) return n;
  }
  throw new ValueError('must be a decimal number');
}

/**
 * Dates: `YYYY-MM-DD` (midnight UTC), `YYYY-MM-DDThh:mm:ss` with optional
 * fraction and offset (no offset means UTC, unlike `Date.parse`), or epoch
 * milliseconds. Impossible calendar dates such as 2024-02-30 are refused.
 */
export function readDate(raw: string | number | boolean): number {
  if (typeof raw === 'number') {
    if (Number.isSafeInteger(raw) && Math.abs(raw) <= 8.64e15) return raw;
    throw new ValueError('must be a date (YYYY-MM-DD, YYYY-MM-DDThh:mm:ss or epoch milliseconds)');
  }
  if (typeof raw !== 'string') throw new ValueError('must be a date (YYYY-MM-DD, YYYY-MM-DDThh:mm:ss or epoch milliseconds)');
  if (EPOCH_MS.test(raw)) return Number(raw);
  const d = DATE_ONLY.exec(raw);
  if (d) return calendar(+d[1]!, +d[2]!, +d[3]!, 0, 0, 0, 0, 0);
  const t = DATE_TIME.exec(raw);
  if (t) {
    const fraction = t[7] ? Math.floor(Number(`0${t[7]}`) * 1000) : 0;
    return calendar(+t[1]!, +t[2]!, +t[3]!, +t[4]!, +t[5]!, +t[6]!, fraction, offsetMinutes(t[8]));
  }
  throw new ValueError('must be a date (YYYY-MM-DD, YYYY-MM-DDThh:mm:ss or epoch milliseconds)');
}

function offsetMinutes(text: string | undefined): number {
  if (!text || text === 'Z' || text === 'z') return 0;
  const sign = text.startsWith('-') ? -1 : 1;
  const digits = text.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) throw new ValueError('has an invalid time zone offset');
  return sign * (hours * 60 + minutes);
}

function calendar(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number, offset: number): number {
  const utc = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const check = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (
    mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59 ||
    check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d
  ) {
    throw new ValueError('is not a valid calendar date');
  }
  return utc - offset * 60_000;
}
