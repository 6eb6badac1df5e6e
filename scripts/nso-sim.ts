/**
 * `npm run nso-sim`: runs the NSO stand-in (tools/nso-sim) in the
 * foreground, so the platform's relay can be tried without a real NSO.
 * See docs/nso-sim.md.
 */
import { parseArgs } from 'node:util';
import { startNsoSim } from '../tools/nso-sim/server.ts';
import { closeOnSignals } from './close-on-signals.ts';

const usage = 'usage: npm run nso-sim -- [--port 8080] [--host 127.0.0.1] [--username admin] [--password admin] [--empty]';
const options = {
  port: { type: 'string', default: '8080' },
  host: { type: 'string', default: '127.0.0.1' },
  username: { type: 'string', default: 'admin' },
  password: { type: 'string', default: 'admin' },
  empty: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

function parse(): ReturnType<typeof parseArgs<{ options: typeof options }>>['values'] {
  try {
    return parseArgs({ options }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
}

const values = parse();
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be 0..65535\n${usage}`);
  process.exit(2);
}

const sim = await startNsoSim({ port, host: values.host, username: values.username, password: values.password, seed: !values.empty }).catch((error: unknown) => {
  // Most often the port is taken; the message says so without a stack trace.
  console.error(`nso-sim could not listen on ${values.host}:${port}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
console.log(`nso-sim listening on ${sim.url} (RESTCONF at ${sim.url}/restconf, legacy REST at ${sim.url}/api; user ${values.username}; ${values.empty ? 'no devices' : 'devices ce0, ce1, pe0'})`);

closeOnSignals(() => sim.close());
