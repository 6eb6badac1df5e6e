/**
 * `npm run platform-sim`: runs the Itential Platform stand-in
 * (tools/platform-sim) in the foreground, in front of a core that is already
 * running, so the gateway can be tried against a platform's dialect over
 * HTTPS. It writes the CA that signed its certificate to a file, for
 * CORE_CA_FILE. See docs/platform-sim.md.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startPlatformSim } from '../tools/platform-sim/server.ts';
import { opensslMissing } from '../tools/platform-sim/tls.ts';
import { closeOnSignals } from './close-on-signals.ts';

const usage = 'usage: npm run platform-sim -- [--core http://127.0.0.1:3001] [--port 3443] [--host 127.0.0.1] [--page-cap 100] [--plain-port 3000] [--ca-file platform-sim-ca.pem]';
const options = {
  core: { type: 'string', default: 'http://127.0.0.1:3001' },
  port: { type: 'string', default: '3443' },
  host: { type: 'string', default: '127.0.0.1' },
  'page-cap': { type: 'string', default: '100' },
  'plain-port': { type: 'string' },
  'ca-file': { type: 'string', default: 'platform-sim-ca.pem' },
  help: { type: 'boolean', default: false },
} as const;

function fail(message: string, code = 2): never {
  console.error(`${message}\n${usage}`);
  process.exit(code);
}

let values: ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];
try {
  values = parseArgs({ options }).values;
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const port = (name: string, text: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) fail(`--${name} must be 0..65535`);
  return n;
};
const pageCap = Number(values['page-cap']);
if (!Number.isInteger(pageCap) || pageCap < 1) fail('--page-cap must be an integer of at least 1');
const missing = opensslMissing();
if (missing) fail(`platform-sim makes its certificates with openssl: ${missing}`, 1);

const sim = await startPlatformSim({
  coreUrl: values.core,
  port: port('port', values.port),
  host: values.host,
  pageCap,
  plainPort: values['plain-port'] === undefined ? null : port('plain-port', values['plain-port']),
}).catch((error: unknown) => fail(`platform-sim could not listen on ${values.host}: ${error instanceof Error ? error.message : String(error)}`, 1));
writeFileSync(values['ca-file'], sim.ca);
console.log(`platform-sim listening on ${sim.url}${sim.plainUrl ? ` and ${sim.plainUrl}` : ''} in front of ${values.core} (page cap ${pageCap}); its CA is in ${values['ca-file']} (CORE_CA_FILE)`);

closeOnSignals(() => sim.close());
