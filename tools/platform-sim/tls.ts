/**
 * A throw-away certificate authority and a server certificate it signed, for
 * 127.0.0.1, ::1 and localhost, made with the `openssl` command in a
 * temporary directory that is removed at once. The platform listens on HTTPS
 * (3443 by default) and accepts Basic credentials only over TLS, so its
 * stand-in does too. `opensslMissing()` says why certificates cannot be made
 * here, so a test can skip and say so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsMaterial {
  /** PEM: the CA a client trusts (CORE_CA_FILE's content). */
  readonly ca: string;
  readonly key: string;
  readonly cert: string;
}

/** Null when openssl can be run, else why not. */
export function opensslMissing(): string | null {
  const probe = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  if (probe.error) return `openssl cannot be run (${probe.error.message})`;
  if (probe.status !== 0) return `openssl version exited with ${String(probe.status)}`;
  return null;
}

export function makeTls(): TlsMaterial {
  const dir = mkdtempSync(join(tmpdir(), 'platform-sim-tls-'));
  const run = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=platform-sim test CA']);
    run(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
    writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n');
    run(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf']);
    return { ca: readFileSync(join(dir, 'ca.pem'), 'utf8'), key: readFileSync(join(dir, 'server.key'), 'utf8'), cert: readFileSync(join(dir, 'server.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
