/**
 * A caller's credentials go upstream in the form the caller used, on the
 * `whoami` check and on every rewritten call, and only on that caller's
 * calls. Shown against the platform stand-in, which refuses what the
 * platform refuses: a login token as Bearer (docs/platform-sim.md). Without
 * openssl the suite says it skipped and why.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { role } from '../helpers/users.ts';
import { makeUser } from '../helpers/users.ts';
import { ADMIN_PASSWORD } from '../helpers/core.ts';
import { opensslMissing } from '../../tools/platform-sim/tls.ts';
import { startBehindPlatform, simClientToken } from '../helpers/behind-platform.ts';
import type { BehindPlatform } from '../helpers/behind-platform.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';

const missing = opensslMissing();

describe('credentials upstream', { skip: missing === null ? false : `skipped: ${missing}; the platform stand-in serves HTTPS with certificates made by openssl` }, () => {
  let env: BehindPlatform;
  let gw: RunningGateway;
  let oauthToken: string;

  before(async () => {
    env = await startBehindPlatform();
    gw = await startGateway(env.sim.url, { CORE_CA_FILE: env.caFile });
    // An OAuth client's token, handed out by the stand-in's POST /oauth/token: the one kind Bearer carries.
    oauthToken = await simClientToken(env, 'reader', role('Authorization', 'apiread'));
  });
  after(async () => {
    await gw?.close();
    await env?.close();
  });

  const forms = () =>
    [
      { form: 'query', path: `/user-management/groups?token=${env.adminToken}`, headers: {} as Record<string, string>, secret: env.adminToken },
      { form: 'cookie', path: '/user-management/groups', headers: { cookie: `token=${env.adminToken}` }, secret: env.adminToken },
      { form: 'basic', path: '/user-management/groups', headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` }, secret: Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64') },
      { form: 'bearer', path: '/user-management/groups', headers: { authorization: `Bearer ${oauthToken}` }, secret: oauthToken },
    ] as const;

  test('each form reaches the upstream as it was sent, on whoami and on the rewritten call, and is accepted there', async () => {
    for (const f of forms()) {
      const since = env.sim.requests.length;
      const res = await fetch(`${gw.url}${f.path}`, { headers: f.headers });
      assert.equal(res.status, 200, `${f.form}: ${await res.clone().text()}`);
      const seen = env.requestsSince(since);
      assert.ok(seen.some((r) => r.url.startsWith('/authorization/groups')), `${f.form}: the rewritten call was made`);
      for (const r of seen) {
        assert.equal(r.credentials, f.form, `${f.form}: ${r.method} ${r.url}`);
        assert.equal(r.refused, null, `${f.form}: ${r.refused}`);
        if (f.form !== 'basic' && f.form !== 'bearer') assert.equal(r.headers.authorization, undefined, `${f.form}: no header was made up`);
        if (f.form === 'query') assert.equal(new URL(r.url, 'https://x').searchParams.getAll('token').join(), f.secret, 'one token, the caller\'s');
        else assert.ok(!r.url.includes('token='), `${f.form}: no query token was made up: ${r.url}`);
      }
    }
  });

  test('a query token is never re-sent as Bearer, which the platform refuses for a login token', async () => {
    const since = env.sim.requests.length;
    const res = await fetch(`${gw.url}/user-management/accounts?token=${env.adminToken}`);
    assert.equal(res.status, 200);
    assert.deepEqual(env.requestsSince(since).filter((r) => r.headers.authorization !== undefined).map((r) => r.url), []);
  });

  test('callers at the same moment: every upstream call carries its own caller\'s credentials and no other\'s', async () => {
    const other = await makeUser(env.core, 'concurrent-reader', { roles: [role('Authorization', 'apiread')] });
    const since = env.sim.requests.length;
    const calls = [];
    for (let i = 0; i < 20; i += 1) {
      calls.push(fetch(`${gw.url}/user-management/groups?token=${env.adminToken}`));
      calls.push(fetch(`${gw.url}/user-management/groups`, { headers: { cookie: `token=${other.token}` } }));
      calls.push(fetch(`${gw.url}/user-management/groups`, { headers: { authorization: `Bearer ${oauthToken}` } }));
    }
    for (const res of await Promise.all(calls)) assert.equal(res.status, 200);
    const seen = env.requestsSince(since);
    assert.ok(seen.length >= 60);
    for (const r of seen) {
      const carried = [env.adminToken, other.token, oauthToken].filter((secret) => r.url.includes(secret) || String(r.headers.cookie ?? '').includes(secret) || String(r.headers.authorization ?? '').includes(secret));
      assert.equal(carried.length, 1, `${r.method} ${r.url} carries ${carried.length} callers' credentials`);
      const expected = carried[0] === env.adminToken ? 'query' : carried[0] === other.token ? 'cookie' : 'bearer';
      assert.equal(r.credentials, expected);
    }
  });
});
