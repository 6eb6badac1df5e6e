/**
 * A form's JSON Schema: checked when the form is stored, then used to check
 * the data of every order. No operation changes a stored form, so a compiled
 * validator is kept per form.
 */
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ValidationError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';

// addUsedSchema: false keeps a form's `$id` out of the shared instance, so two
// forms may carry the same `$id`. logger: false: unknown formats are ignored
// without writing to the console (no format plugin is installed).
const ajv = new Ajv({ allErrors: true, strict: false, addUsedSchema: false, logger: false });
const compiled = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 500;

/** Why the schema cannot be a form's schema, or null when it can. */
export function schemaProblem(schema: Record<string, unknown>): string | null {
  try {
    if (!ajv.validateSchema(schema)) return ajv.errorsText(ajv.errors, { dataVar: 'schema' });
    ajv.compile(schema);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export interface FormDoc {
  readonly _id: string;
  readonly name: string;
  readonly schema: Record<string, unknown>;
  readonly lastUpdated?: string;
}

function validatorOf(form: FormDoc): ValidateFunction {
  // lastUpdated in the key: a form rewritten in the store (an import) is compiled again.
  const key = `${form._id}:${form.lastUpdated ?? ''}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(form.schema);
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

/** `/a/0/b` → `.a[0].b`, the way input paths are written in error details. */
function dotted(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((key) => (/^\d+$/.test(key) ? `[${key}]` : `.${key}`))
    .join('');
}

function detail(where: string, e: ErrorObject): ErrorDetail {
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  // Ajv reports a missing or extra property at its parent; the detail names the property itself.
  const child = params.missingProperty ?? params.additionalProperty;
  return { parameter: `${where}${dotted(e.instancePath)}${child === undefined ? '' : `.${child}`}`, message: e.message ?? 'is not valid' };
}

/** Throws a ValidationError listing every way `data` fails the form's schema. */
export function checkFormData(form: FormDoc, data: Record<string, unknown>, where = 'body.formData'): void {
  const validate = validatorOf(form);
  if (validate(data)) return;
  const details = (validate.errors ?? []).map((e) => detail(where, e));
  throw new ValidationError(`The form data does not match the schema of form ${form.name}: ${details.map((d) => `${d.parameter} ${d.message}`).join('; ')}`, details);
}
