/**
 * Running a transformation: every incoming value is checked against the
 * schema with its `$id`, the mapping is evaluated over an object keyed by
 * those `$id`s, and its result (an object keyed by the outgoing `$id`s) is
 * checked against the outgoing schemas before anyone sees it. A result that
 * fails is the transformation's fault, so the message says OUTPUT plainly.
 */
import { createHash } from 'node:crypto';
import { BadRequestError, checkData, isPlainObject, schemaProblems as unusable, ValidationError } from '../../../kernel/index.ts';
import type { ErrorDetail } from '../../../kernel/index.ts';
import type { IdSchema, TransformationDoc } from './document.ts';
import { MappingError } from './sandbox.ts';
import type { MappingSandbox } from './sandbox.ts';

export interface RunOptions {
  readonly extractOutput?: boolean;
}

interface Checked {
  readonly id: string;
  /** The problems of `value`, named from `where`. */
  readonly check: (value: unknown, where: string) => ErrorDetail[];
}

interface Compiled {
  readonly incoming: readonly Checked[];
  readonly outgoing: readonly Checked[];
}

const CACHE_SIZE = 100;

function summary(problems: readonly ErrorDetail[]): string {
  const shown = problems.slice(0, 5).map((d) => `${d.parameter} ${d.message}`).join('; ');
  return problems.length > 5 ? `${shown} (and ${problems.length - 5} more)` : shown;
}

/** Reads `{extractOutput}`; anything else is refused so a misspelt option is not silently ignored. */
export function readOptions(raw: unknown, at: string): RunOptions {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) throw new ValidationError(`Invalid run: ${at} must be an object`, [{ parameter: at, message: 'must be an object' }]);
  const problems: ErrorDetail[] = [];
  for (const key of Object.keys(raw)) if (key !== 'extractOutput') problems.push({ parameter: `${at}.${key}`, message: 'is not an option (options: extractOutput)' });
  const extract = raw['extractOutput'];
  if (extract !== undefined && typeof extract !== 'boolean') problems.push({ parameter: `${at}.extractOutput`, message: 'must be true or false' });
  if (problems.length > 0) throw new ValidationError(`Invalid run: ${summary(problems)}`, problems);
  return typeof extract === 'boolean' ? { extractOutput: extract } : {};
}

/**
 * A run body is `{incoming, options}` or the bare `{<$id>: value}`. It is
 * read as wrapped when its only keys are those two and `incoming` is an
 * object, unless `incoming` is itself one of the transformation's `$id`s.
 */
export function splitRunBody(doc: TransformationDoc, body: Record<string, unknown>): { incoming: Record<string, unknown>; options: RunOptions } {
  const keys = Object.keys(body);
  const wrapped =
    isPlainObject(body['incoming']) && keys.every((k) => k === 'incoming' || k === 'options') && !doc.incoming.some((s) => s.$id === 'incoming');
  if (!wrapped) return { incoming: body, options: {} };
  return { incoming: body['incoming'] as Record<string, unknown>, options: readOptions(body['options'], 'options') };
}

export class TransformationRunner {
  /** Compiled validators by transformation and schema content, oldest first. */
  private readonly compiled = new Map<string, Compiled>();

  constructor(private readonly sandbox: MappingSandbox) {}

  async run(doc: TransformationDoc, incoming: Record<string, unknown>, options: RunOptions): Promise<unknown> {
    const name = JSON.stringify(doc.name);
    if (typeof doc.mapping !== 'string') {
      throw new BadRequestError(`Transformation ${name} has no mapping to run`, [{ parameter: 'mapping', message: 'is not set' }]);
    }
    const checks = this.validators(doc);
    const input = this.checkIncoming(checks.incoming, incoming, name);
    let result: unknown;
    try {
      result = await this.sandbox.evaluate(doc.mapping, input);
    } catch (err) {
      if (!(err instanceof MappingError)) throw err;
      const verb = err.kind === 'error' ? 'failed' : 'was stopped: it';
      throw new BadRequestError(`The mapping of transformation ${name} ${verb} ${err.message}`, [{ parameter: 'mapping', message: err.message }]);
    }
    const output = this.checkOutput(checks.outgoing, result, name);
    const only = checks.outgoing.length === 1 ? checks.outgoing[0]! : null;
    return options.extractOutput === true && only ? output[only.id] : output;
  }

  private checkIncoming(checks: readonly Checked[], incoming: Record<string, unknown>, name: string): Record<string, unknown> {
    const problems: ErrorDetail[] = [];
    const ids = checks.map((c) => c.id);
    for (const key of Object.keys(incoming)) {
      if (!ids.includes(key)) problems.push({ parameter: `incoming.${key}`, message: `is not an incoming $id of this transformation (its incoming $ids: ${ids.join(', ') || 'none'})` });
    }
    for (const { id, check } of checks) {
      if (!Object.hasOwn(incoming, id)) problems.push({ parameter: `incoming.${id}`, message: `is missing: incoming schema ${JSON.stringify(id)} needs a value` });
      else problems.push(...check(incoming[id], `incoming.${id}`));
    }
    if (problems.length > 0) throw new ValidationError(`Invalid incoming values for transformation ${name}: ${summary(problems)}`, problems);
    // fromEntries defines own properties, so no key can reach the prototype.
    return Object.fromEntries(ids.map((id) => [id, incoming[id]]));
  }

  private checkOutput(checks: readonly Checked[], result: unknown, name: string): Record<string, unknown> {
    const ids = checks.map((c) => c.id);
    const expected = `an object keyed by the outgoing $ids (${ids.join(', ') || 'none'})`;
    if (!isPlainObject(result)) {
      const got = result === undefined ? 'nothing' : Array.isArray(result) ? 'an array' : result === null ? 'null' : `a ${typeof result}`;
      const problems = [{ parameter: 'output', message: `is ${got}, not ${expected}` }];
      throw new ValidationError(`The OUTPUT of transformation ${name} is invalid: the mapping produced ${got}, not ${expected}`, problems);
    }
    const problems: ErrorDetail[] = [];
    for (const key of Object.keys(result)) if (!ids.includes(key)) problems.push({ parameter: `output.${key}`, message: 'is not an outgoing $id of this transformation' });
    for (const { id, check } of checks) {
      if (!Object.hasOwn(result, id)) problems.push({ parameter: `output.${id}`, message: `is missing: the mapping gave no value for outgoing schema ${JSON.stringify(id)}` });
      else problems.push(...check(result[id], `output.${id}`).map((d) => ({ ...d, message: `${d.message} (outgoing schema ${JSON.stringify(id)})` })));
    }
    if (problems.length > 0) throw new ValidationError(`The OUTPUT of transformation ${name} does not match its outgoing schemas: ${summary(problems)}`, problems);
    return Object.fromEntries(ids.map((id) => [id, result[id]]));
  }

  /** Compiling costs milliseconds; runs of an unchanged transformation reuse the validators. */
  private validators(doc: TransformationDoc): Compiled {
    const key = `${doc._id}:${createHash('sha256').update(JSON.stringify([doc.incoming, doc.outgoing])).digest('base64url')}`;
    const hit = this.compiled.get(key);
    if (hit) {
      this.compiled.delete(key);
      this.compiled.set(key, hit);
      return hit;
    }
    const compiled = { incoming: compileList(doc.incoming, 'incoming'), outgoing: compileList(doc.outgoing, 'outgoing') };
    this.compiled.set(key, compiled);
    if (this.compiled.size > CACHE_SIZE) this.compiled.delete(this.compiled.keys().next().value!);
    return compiled;
  }
}

function compileList(schemas: readonly IdSchema[], at: string): Checked[] {
  return schemas.map((schema, i) => {
    // CASE: a document stored before its schemas' patterns and limits were checked, or by other means than this module's checks.
    const problems = unusable(schema, `${at}[${i}]`);
    if (problems.length > 0) throw new BadRequestError(`Transformation's ${at}[${i}] cannot be used; save the transformation again with it corrected: ${summary(problems)}`, problems);
    return {
      id: schema.$id,
      check: (value, where) => {
        const result = checkData(schema, value, where, `${at}[${i}]`);
        if (result.ok) return [];
        return 'details' in result ? result.details : result.unusable;
      },
    };
  });
}
