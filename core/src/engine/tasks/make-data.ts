/**
 * `makeData`: fills `<!name!>` placeholders of the `input` text with entries
 * of `variables` and reads the result as `outputType` (`string`, `json`,
 * `number` or `boolean`). Outgoing `output`.
 *
 * A string value is inserted as it is (so a JSON template quotes it itself:
 * `{"host": "<!host!>"}`); any other value is inserted as its JSON text, so
 * objects and arrays drop into a JSON template whole. A placeholder without a
 * value, or a result that does not read as the outputType, throws a
 * TaskError; the engine turns it into an `error` outcome with that message.
 */
import { TaskError } from '../types.ts';
import type { TaskHandler } from '../types.ts';
import { optionalObject, ownValue, pureTask } from './shared.ts';

const PLACEHOLDER = /<!(.+?)!>/g;
const OUTPUT_TYPES = ['string', 'json', 'number', 'boolean'] as const;
type OutputType = (typeof OUTPUT_TYPES)[number];

function isOutputType(value: unknown): value is OutputType {
  return typeof value === 'string' && (OUTPUT_TYPES as readonly string[]).includes(value);
}

function fill(input: string, variables: Record<string, unknown>): string {
  return input.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = ownValue(variables, name);
    if (value === undefined) throw new TaskError(`variables has no value for placeholder <!${name}!>`);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function read(text: string, outputType: OutputType): unknown {
  switch (outputType) {
    case 'string':
      return text;
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch (err) {
        throw new TaskError(`output is not valid JSON (${err instanceof Error ? err.message : String(err)}): ${text}`);
      }
    case 'number': {
      const trimmed = text.trim();
      const number = trimmed.length === 0 ? NaN : Number(trimmed);
      if (!Number.isFinite(number)) throw new TaskError(`output is not a number: ${JSON.stringify(text)}`);
      return number;
    }
    case 'boolean': {
      const trimmed = text.trim().toLowerCase();
      if (trimmed === 'true') return true;
      if (trimmed === 'false') return false;
      throw new TaskError(`output is not true or false: ${JSON.stringify(text)}`);
    }
  }
}

export const makeData: TaskHandler = pureTask({
  name: 'makeData',
  type: 'automatic',
  incoming: ['input', 'outputType', 'variables'],
  outgoing: ['output'],
  run(ctx) {
    const input = ctx.incoming['input'];
    if (typeof input !== 'string') throw new TaskError('input must be a string');
    const outputType = ctx.incoming['outputType'];
    if (!isOutputType(outputType)) throw new TaskError(`outputType must be one of ${OUTPUT_TYPES.join(', ')}`);
    const variables = optionalObject(ctx.incoming, 'variables');
    return { finishState: 'success', outgoing: { output: read(fill(input, variables), outputType) } };
  },
});
