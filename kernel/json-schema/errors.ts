/**
 * Ajv's errors as the core's error details: the input path written the way
 * clients write it (`body.formData.hosts[2].name`), a missing or unexpected
 * property named as the property itself, and at most MAX_DETAILS of them so a
 * 20,000-item array of mistakes is not echoed back whole.
 */
import type { ErrorObject } from 'ajv';
import type { ErrorDetail } from '../errors.ts';

export const MAX_DETAILS = 50;

/** `/a/0/b` (Ajv's instance path) → `.a[0].b`. */
export function dotted(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`))
    .join('');
}

export function errorDetails(where: string, errors: readonly ErrorObject[] | null | undefined): ErrorDetail[] {
  return (errors ?? []).slice(0, MAX_DETAILS).map((e) => {
    const params = e.params as { missingProperty?: string; additionalProperty?: string };
    // Ajv reports a missing or extra property at its parent; the detail names the property itself.
    const child = params.missingProperty ?? params.additionalProperty;
    return { parameter: `${where}${dotted(e.instancePath)}${child === undefined ? '' : `.${child}`}`, message: e.message ?? 'is not valid' };
  });
}

/** The details in one line, for an error's message. */
export function summary(details: readonly ErrorDetail[], shown = 5): string {
  const text = details.slice(0, shown).map((d) => `${d.parameter} ${d.message}`).join('; ');
  return details.length > shown ? `${text} (and ${details.length - shown} more)` : text;
}
