/**
 * The error codes are declared once (ERROR_CODES, kernel/errors.ts); the
 * table in docs/errors.md, the OpenAPI `ErrorCode` enum (live and in the
 * committed documents) and the error classes' statuses are made from it.
 * The drift check runs on the real sources, and, so that it is known to be
 * able to fail, on copies with one drift each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import {
  AppError,
  BadRequestError,
  ConflictError,
  DocumentTooLargeError,
  ERROR_CODES,
  errorCodeTable,
  ForbiddenError,
  NotFoundError,
  StoreFullError,
  StoreUnavailableError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationError,
} from '../../kernel/errors.ts';
import type { ErrorCodeEntry } from '../../kernel/errors.ts';
import { errorStatuses } from '../../kernel/openapi/operations.ts';
import { errorResponses, errorTexts, SCHEMAS } from '../../kernel/openapi/shapes.ts';
import type { AnyRoute } from '../../kernel/http/route.ts';

type Catalogue = Readonly<Record<string, ErrorCodeEntry>>;

interface Sources {
  readonly codes: Catalogue;
  /** The text of docs/errors.md. */
  readonly doc: string;
  /** Each place that lists the codes as an enum, by name. */
  readonly enums: Readonly<Record<string, readonly unknown[]>>;
}

const isErrorStatus = (s: unknown): boolean => Number.isInteger(s) && (s as number) >= 400 && (s as number) <= 599;

/** Everything that differs between the catalogue and what is made from it; empty when nothing does. */
function drift({ codes, doc, enums }: Sources): string[] {
  const problems: string[] = [];
  for (const [code, entry] of Object.entries(codes)) {
    if (!/^[A-Z][A-Z_]*[A-Z]$/.test(code)) problems.push(`${code}: a code is upper-case words joined by _`);
    if (typeof entry.description !== 'string' || entry.description.trim().length < 10) problems.push(`${code}: no description of what it means for a caller`);
    if (!isErrorStatus(entry.status)) problems.push(`${code}: ${String(entry.status)} is not an error status`);
    for (const other of entry.otherStatuses ?? []) {
      if (!isErrorStatus(other) || other === entry.status) problems.push(`${code}: other status ${String(other)} is not a second error status`);
    }
  }
  if (!doc.includes(errorCodeTable(codes))) problems.push('docs/errors.md: the table is not errorCodeTable(); paste it again');
  const names = Object.keys(codes);
  for (const [where, list] of Object.entries(enums)) {
    if (isDeepStrictEqual([...list], names)) continue;
    const missing = names.filter((n) => !list.includes(n));
    const extra = list.filter((n) => !names.includes(String(n)));
    problems.push(`${where}: the ErrorCode enum is not the catalogue's codes in order (missing ${missing.join(', ') || 'none'}; extra ${extra.join(', ') || 'none'}); run npm run openapi`);
  }
  return problems;
}

function committedEnum(file: string): readonly unknown[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { components: { schemas: { ErrorCode: { enum: unknown[] } } } };
  return doc.components.schemas.ErrorCode.enum;
}

function realSources(): Sources {
  return {
    codes: ERROR_CODES,
    doc: readFileSync('docs/errors.md', 'utf8'),
    enums: {
      'kernel/openapi/shapes.ts': SCHEMAS['ErrorCode']!['enum'] as unknown[],
      'docs/openapi.json': committedEnum('docs/openapi.json'),
      'docs/openapi-core.json': committedEnum('docs/openapi-core.json'),
    },
  };
}

test('the catalogue, docs/errors.md, the OpenAPI enum and the committed documents agree', () => {
  assert.deepEqual(drift(realSources()), []);
});

test('a code added without a description fails the check, and so does one whose table was not pasted again', () => {
  const real = realSources();
  const undescribed = drift({ ...real, codes: { ...ERROR_CODES, NEW_REFUSAL: { status: 400, description: '' } } });
  assert.ok(undescribed.includes('NEW_REFUSAL: no description of what it means for a caller'), undescribed.join('\n'));

  // Described, and in every enum, but docs/errors.md still has the old table.
  const codes = { ...ERROR_CODES, NEW_REFUSAL: { status: 400, description: 'a refusal the catalogue knows and the document does not' } };
  const names = Object.keys(codes);
  const undocumented = drift({ codes, doc: real.doc, enums: { live: names, committed: names } });
  assert.deepEqual(undocumented, ['docs/errors.md: the table is not errorCodeTable(); paste it again']);
});

test('an enum that differs from the catalogue fails the check, naming the code: the hand copy that lacked DOCUMENT_TOO_LARGE', () => {
  // kernel/openapi/shapes.ts before the catalogue, verbatim.
  const handCopy = ['VALIDATION_FAILED', 'BAD_REQUEST', 'INVALID_JSON', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'CONFLICT', 'TOO_MANY_REQUESTS', 'GONE', 'PAYLOAD_TOO_LARGE', 'UPSTREAM_FAILED', 'UPSTREAM_TIMEOUT', 'STORE_UNAVAILABLE', 'STORE_FULL', 'INTERNAL'];
  const problems = drift({ ...realSources(), enums: { 'hand copy': handCopy } });
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0]!, /^hand copy: .*missing [A-Z_, ]*DOCUMENT_TOO_LARGE/);
  // Reordered only: still drift, since the enum is made from the catalogue in its order.
  const names = Object.keys(ERROR_CODES);
  assert.equal(drift({ ...realSources(), enums: { reordered: [...names].reverse() } }).length, 1);
});

test('a table edited by hand fails the check', () => {
  const real = realSources();
  const edited = real.doc.replace('| `NOT_FOUND` | 404 |', '| `NOT_FOUND` | 410 |');
  assert.notEqual(edited, real.doc);
  assert.deepEqual(drift({ ...real, doc: edited }), ['docs/errors.md: the table is not errorCodeTable(); paste it again']);
});

test('every error class answers the status the catalogue gives its code', () => {
  const errors: AppError[] = [
    new BadRequestError('b'),
    new ValidationError('v', []),
    new NotFoundError('n'),
    new ConflictError('c'),
    new UnauthenticatedError(),
    new ForbiddenError('f'),
    new TooManyRequestsError('t', 1),
    new StoreUnavailableError('s'),
    new StoreFullError(),
    new DocumentTooLargeError('jobs', 2, 1),
    new AppError('GONE', 'removed'),
    new AppError('LEGACY_FAILED', 'cannot be rewritten'),
  ];
  for (const err of errors) assert.equal(err.status, ERROR_CODES[err.code].status, `${err.name} (${err.code})`);
  // A surface that keeps the platform's status says so explicitly.
  assert.equal(new AppError(400, 'CONFLICT', 'taken').status, 400);
});

test('the catalogue cannot be changed at run time', () => {
  assert.ok(Object.isFrozen(ERROR_CODES));
  for (const entry of Object.values(ERROR_CODES)) assert.ok(Object.isFrozen(entry));
  assert.ok(Object.isFrozen(ERROR_CODES.BAD_REQUEST.otherStatuses));
});

test('every status an operation may list has a shared answer, described by the codes answered with it', () => {
  const route = { roles: ['admin'], input: { body: {} } } as unknown as AnyRoute;
  const responses = errorResponses();
  for (const status of errorStatuses(route)) {
    for (const shape of ['Plain', 'OperationsManager', 'OAuth']) assert.ok(responses[`${shape}${status}`], `${shape}${status} is referenced but not defined`);
  }
  const texts = errorTexts();
  // The 413 a store answers for a document too large is described (it was not before the catalogue).
  assert.match(texts.get(413)!, /PAYLOAD_TOO_LARGE: .*DOCUMENT_TOO_LARGE: /);
  assert.match(texts.get(415)!, /^BAD_REQUEST: /);
  assert.match(texts.get(400)!, /CONFLICT: /);
  // Codes only legacy operations answer are not among the core's answers.
  assert.equal(texts.has(410), false);
  assert.doesNotMatch(texts.get(500)!, /LEGACY_FAILED/);
});
