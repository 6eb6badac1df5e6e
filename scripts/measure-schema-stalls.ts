/**
 * The two stalls of issue 17, before (Ajv as the core configured it, V8's
 * RegExp and Ajv's own uniqueItems) and after (kernel/json-schema/).
 * `tsx scripts/measure-schema-stalls.ts`; figures go to RELIABILITY.md.
 * The backtracking pattern doubles with each `a`, so "before" is timed up to
 * 26 `a`s and the 33 of the report extrapolated from the last doubling.
 */
import { Ajv } from 'ajv';
import { checkData, schemaProblems } from '../kernel/json-schema/index.ts';

const ms = (since: number): number => Math.round((performance.now() - since) * 10) / 10;
const before = new Ajv({ allErrors: true, strict: false });
const pattern = { type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } };
const oldPattern = before.compile(pattern);
let last = 0;
for (const n of [22, 24, 26]) {
  const t = performance.now();
  oldPattern({ v: `${'a'.repeat(n)}!` });
  last = ms(t);
  console.log(`before: ^(a+)+$ on ${n} a + !: ${last} ms`);
}
console.log(`before: ^(a+)+$ on 33 a + !: about ${Math.round((last * 2 ** 7) / 1000)} s (extrapolated)`);
schemaProblems(pattern, 's');
let t = performance.now();
checkData(pattern, { v: `${'a'.repeat(33)}!` }, 'v', 's');
console.log(`after:  ^(a+)+$ on 33 a + !: ${ms(t)} ms`);

const unique = { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } };
const list = Array.from({ length: 20_000 }, (_, i) => ({ id: i, up: i % 2 === 0 }));
console.log(`body: ${JSON.stringify({ workflow: 'w', options: { variables: { list } } }).length} bytes`);
const oldUnique = before.compile(unique);
t = performance.now();
oldUnique({ list });
console.log(`before: uniqueItems over 20,000 objects: ${ms(t)} ms`);
schemaProblems(unique, 's');
for (let i = 0; i < 3; i++) {
  t = performance.now();
  checkData(unique, { list }, 'v', 's');
  console.log(`after:  uniqueItems over 20,000 objects: ${ms(t)} ms`);
}
