/**
 * A form's JSON Schema: checked when the form is stored, then used to check
 * the data of every order (docs/json-schema.md has the rules both follow).
 */
import { BadRequestError, checkData, summary, ValidationError } from '../../../kernel/index.ts';

export interface FormDoc {
  readonly _id: string;
  readonly name: string;
  readonly schema: Record<string, unknown>;
  readonly lastUpdated?: string;
}

/** Throws a ValidationError listing every way `data` fails the form's schema. */
export function checkFormData(form: FormDoc, data: Record<string, unknown>, where = 'body.formData'): void {
  const result = checkData(form.schema, data, where, 'schema');
  if (result.ok) return;
  if ('unusable' in result) throw new BadRequestError(`The schema of form ${form.name} cannot be used; store the form again with it corrected: ${summary(result.unusable)}`, result.unusable);
  throw new ValidationError(`The form data does not match the schema of form ${form.name}: ${summary(result.details, result.details.length)}`, result.details);
}
