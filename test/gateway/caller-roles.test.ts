/**
 * Administrators (the audit report) and metrics readers (`/metrics`) are
 * recognised by their roles' names, in front of the platform stand-in, whose
 * role ids are ObjectIds of its own as on a real platform: an administrator
 * is recognised whatever its admin role's id, and a caller whose role id
 * happens to equal the id our core would derive for the admin role is not an
 * administrator. Without openssl the suite says it skipped and why.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { role } from '../helpers/users.ts';
import { simCall } from '../../tools/platform-sim/client.ts';
import { opensslMissing } from '../../tools/platform-sim/tls.ts';
import { startBehindPlatform, simClientToken } from '../helpers/behind-platform.ts';
import type { BehindPlatform } from '../helpers/behind-platform.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';

const missing = opensslMissing();
const REPORT = '/gateway/audit/report';

describe('roles recognised by name', { skip: missing === null ? false : `skipped: ${missing}; the platform stand-in serves HTTPS with certificates made by openssl` }, () => {
  let env: BehindPlatform;
  let gw: RunningGateway;
  let scraperToken: string;

  before(async () => {
    // The stand-in gives the scraper's role (Metrics.read) the very id our core derives for Authorization.admin.
    env = await startBehindPlatform({ roleIds: new Map([[role('Metrics', 'read'), role('Authorization', 'admin')]]) });
    gw = await startGateway(env.sim.url, { CORE_CA_FILE: env.caFile });
    scraperToken = await simClientToken(env, 'prometheus', role('Metrics', 'read'));
  });
  after(async () => {
    await gw?.close();
    await env?.close();
  });

  test('the upstream gives role ids that are not ours, and the one we would derive for the admin role belongs to the scraper', async () => {
    const admin = await simCall(`${env.sim.url}/whoami?token=${env.adminToken}`, { ca: env.sim.ca });
    assert.ok(!(admin.json as { roles: string[] }).roles.includes(role('Authorization', 'admin')));
    const scraper = await simCall(`${env.sim.url}/whoami`, { ca: env.sim.ca, headers: { authorization: `Bearer ${scraperToken}` } });
    assert.deepEqual((scraper.json as { roles: string[] }).roles, [role('Authorization', 'admin')]);
  });

  test('an administrator gets the audit report and the metrics, found by the names of its roles', async () => {
    assert.equal((await fetch(`${gw.url}${REPORT}?token=${env.adminToken}`)).status, 200);
    assert.equal((await fetch(`${gw.url}/metrics?token=${env.adminToken}`)).status, 200);
  });

  test('a scraper whose role id collides with the derived admin id is no administrator, and still reads the metrics', async () => {
    const report = await fetch(`${gw.url}${REPORT}`, { headers: { authorization: `Bearer ${scraperToken}` } });
    assert.equal(report.status, 403);
    assert.doesNotMatch(await report.text(), /"rows"/);
    const metrics = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${scraperToken}` } });
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /iap_audit_backlog/);
  });
});
