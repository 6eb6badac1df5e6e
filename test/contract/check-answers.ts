/**
 * Checks recorded answers against the OpenAPI documents: each answer's
 * operation (service, method, route template) must list its status, and a
 * JSON answer must match the schema the document gives that status. An
 * Ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect) independent of the
 * generator does the matching.
 *
 * Run after the suites by scripts/run-tests.mjs over what they recorded
 * (test/helpers/contract.ts): `node --import tsx test/contract/check-answers.ts <dir>`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import type { TappedAnswer } from '../../kernel/http/observe-answers.ts';
import type { OpenApiDocument } from '../../kernel/openapi/document.ts';
import { openApiPath } from '../../kernel/openapi/shapes.ts';

/** Routes no operation stands for: a path no route matched, a call the gateway passed through (the core recorded its answer). */
const UNATTRIBUTED = new Set(['unmatched', 'passthrough']);

export interface CheckResult {
  readonly checked: number;
  readonly skipped: number;
  /** One line per distinct problem, with how many answers had it. */
  readonly problems: string[];
}

interface Response {
  readonly content?: Record<string, { schema: unknown }>;
}

function mediaBase(type: string): string {
  return type.split(';')[0]!.trim().toLowerCase();
}

export class AnswerChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly documents: Readonly<Record<TappedAnswer['service'], OpenApiDocument>>) {}

  private response(doc: OpenApiDocument, raw: unknown): Response {
    const ref = (raw as { $ref?: string }).$ref;
    if (!ref) return raw as Response;
    const name = ref.replace('#/components/responses/', '');
    return doc.components.responses[name] as Response;
  }

  private validator(service: string, key: string, doc: OpenApiDocument, schema: unknown): ValidateFunction {
    const id = `${service} ${key}`;
    let v = this.compiled.get(id);
    if (!v) {
      // The document's components travel with the schema, so its `#/components/...` references resolve.
      v = this.ajv.compile({ ...(schema as object), components: doc.components });
      this.compiled.set(id, v);
    }
    return v;
  }

  /** The problem with one answer, or null when the document describes it. */
  check(answer: TappedAnswer): string | null | 'skipped' {
    if (UNATTRIBUTED.has(answer.route)) return 'skipped';
    const doc = this.documents[answer.service];
    const method = answer.method === 'HEAD' ? 'get' : answer.method.toLowerCase();
    const path = openApiPath(answer.route);
    const op = doc.paths[path]?.[method];
    const where = `${answer.service} ${answer.method} ${answer.route}`;
    // 405: the path exists for other methods only; no operation stands for the method asked.
    if (!op && answer.status === 405 && doc.paths[path]) return 'skipped';
    if (!op) return `${where}: no such operation in the document`;
    const raw = op.responses[String(answer.status)];
    if (!raw) return `${where}: status ${answer.status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`;
    const response = this.response(doc, raw);
    if (!response.content || answer.method === 'HEAD') return null;
    const media = Object.keys(response.content).find((m) => mediaBase(m) === mediaBase(answer.contentType));
    if (!media) return `${where} ${answer.status}: content type ${answer.contentType || '(none)'} is not documented (documented: ${Object.keys(response.content).join(', ')})`;
    if (!/json/.test(media)) return null;
    const validate = this.validator(answer.service, `${method} ${path} ${answer.status} ${media}`, doc, response.content[media]!.schema);
    if (validate(answer.body)) return null;
    const e = validate.errors?.[0];
    return `${where} ${answer.status}: the body does not match the document: ${e?.instancePath || '/'} ${e?.message ?? ''} ${e?.params ? JSON.stringify(e.params) : ''}`.trim();
  }

  checkAll(answers: Iterable<TappedAnswer>): CheckResult {
    const problems = new Map<string, number>();
    let checked = 0;
    let skipped = 0;
    for (const answer of answers) {
      const problem = this.check(answer);
      if (problem === 'skipped') skipped += 1;
      else {
        checked += 1;
        if (problem) problems.set(problem, (problems.get(problem) ?? 0) + 1);
      }
    }
    return { checked, skipped, problems: [...problems].map(([p, n]) => `${p} (${n} answer${n === 1 ? '' : 's'})`).sort() };
  }
}

/** The answers recorded in a directory, one JSON line each. */
export function* recordedAnswers(dir: string): Generator<TappedAnswer> {
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.ndjson')).sort()) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) if (line) yield JSON.parse(line) as TappedAnswer;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: check-answers.ts <directory of recorded answers>');
    process.exit(2);
  }
  const { loadConfig } = await import('../../config/load.ts');
  const { buildDocuments } = await import('../../scripts/openapi-documents.ts');
  const documents = buildDocuments(await loadConfig({ env: {} }));
  const result = new AnswerChecker(documents).checkAll(recordedAnswers(dir));
  console.log(`contract: ${result.checked} answers checked against the OpenAPI documents (${result.skipped} not attributable to an operation)`);
  for (const p of result.problems) console.error(`contract: ${p}`);
  process.exit(result.problems.length > 0 || result.checked === 0 ? 1 : 0);
}
