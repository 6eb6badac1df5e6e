/**
 * The stand-in's route list: the 523 routes of ipctl's 2023.2 fixture, kept
 * as data with its source, plus the platform's core routes each with theirs;
 * and the matching the stand-in refuses by.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRouteData, routeTable } from '../../../tools/platform-sim/route-table.ts';

test('the data holds the 523 routes of the fixture it names, and a source for every platform core route', () => {
  const data = loadRouteData();
  assert.equal(data.routes.length, 523);
  assert.equal(data.source.total, 523);
  assert.match(data.source.file, /testdata\/2023\.2\/authorization\/methods\/getall\.success\.json$/);
  assert.match(data.source.commit, /^[0-9a-f]{40}$/);
  for (const r of data.platformCore) assert.ok(r.source.length > 20, `${r.route} names its source`);
  assert.equal(routeTable(data).size, 523 + data.platformCore.length);
});

test('served routes match with any value in a parameter segment; the interface-only forms do not', () => {
  const table = routeTable();
  const served: Array<[string, string]> = [
    ['GET', '/operations-manager/jobs/66d3a1c2e4b0f1a2b3c4d5e6'],
    ['HEAD', '/operations-manager/jobs'],
    ['PATCH', '/authorization/roles/abc'],
    ['POST', '/operations-manager/jobs/x/continue'],
    ['GET', '/transformations'],
    ['GET', '/transformations/'],
    ['GET', '/configuration_manager/devices/actions/d&o&a'],
    ['POST', '/nso_manager/restQuery/nso1'],
    ['GET', '/health/status'],
    ['GET', '/help/openapi'],
    ['POST', '/login'],
  ];
  for (const [m, p] of served) assert.ok(table.serves(m, p), `${m} ${p} is served`);
  const refused: Array<[string, string]> = [
    ['GET', '/operations-manager/job/66d3a1c2e4b0f1a2b3c4d5e6'],
    ['POST', '/authorization/accounts'],
    ['PUT', '/authorization/accounts/x/password'],
    ['POST', '/orchestrator_manager/restQuery/nso1'],
    ['GET', '/openapi.json'],
    ['GET', '/status'],
    ['DELETE', '/operations-manager/jobs'],
    ['GET', '/operations-manager/jobs/x/extra'],
    ['GET', '/operations-manager/jobs//'],
    ['GET', '/health/%E0%A4%A'],
  ];
  for (const [m, p] of refused) assert.ok(!table.serves(m, p), `${m} ${p} is refused`);
});
