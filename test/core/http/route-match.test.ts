/**
 * The indexed route match answers what @koa/router's own match answers, for
 * every route of the core and for paths built to slip between the branches
 * of its tree: other cases, trailing slashes, encoded segments, parameters
 * at any depth, lookalike characters that lower-case to ASCII.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Router from '@koa/router';
import { createCoreApp } from '../../../core/src/app.ts';
import { mountRoutes } from '../../../core/src/http/mount.ts';
import { indexRouteMatch } from '../../../core/src/http/route-match.ts';
import { createLogger } from '../../../kernel/logger.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { testConfig } from '../../helpers/core.ts';

type Match = ReturnType<Router['match']>;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'get'];

function summary(m: Match): string {
  return JSON.stringify({ path: m.path.map((l) => String(l.path)), pathAndMethod: m.pathAndMethod.map((l) => String(l.path)), route: m.route });
}

/** Paths a route's template leads to, and near misses of them. */
function pathsOf(template: string): string[] {
  const filled = template.replace(/:[A-Za-z_]+/g, '0123456789abcdef01234567');
  const first = filled.split('/')[1] ?? '';
  return [
    filled,
    `${filled}/`,
    filled.toUpperCase(),
    `${filled}/extra`,
    filled.replace(first, `%${first.charCodeAt(0).toString(16)}${first.slice(1)}`),
    filled.replace(first, `${first}x`),
    // The Kelvin sign lower-cases to k, the dotted capital I to i and a combining dot: neither may match.
    filled.replace(/k/i, '\u212a'),
    filled.replace(/i/i, '\u0130'),
    filled.slice(0, -1),
    // The last segment's first character percent-encoded, and a segment doubled.
    filled.replace(/\/([a-z])([^/]*)$/i, (_, c: string, rest: string) => `/%${c.charCodeAt(0).toString(16)}${rest}`),
    filled.replace(/^(\/[^/]+)/, '$1$1'),
  ];
}

test('the indexed match answers as the router does for every core route and its near misses', async () => {
  const store = await openTestStore();
  const { routes } = createCoreApp({ store, config: await testConfig(), logger: createLogger({ level: 'error', service: 'test', silent: true }) });
  const indexed = mountRoutes(routes);
  const plain = mountRoutes(routes);
  // The router's own match, as the prototype has it.
  plain.match = Object.getPrototypeOf(plain).match as Router['match'];
  const paths = [...new Set(['/', '', '//', '/x', '/%2F', 'operations-manager/jobs', ...routes.flatMap((r) => pathsOf(r.path))])];
  let matched = 0;
  for (const path of paths) {
    for (const method of METHODS) {
      const a = summary(plain.match(path, method));
      assert.equal(summary(indexed.match(path, method)), a, `${method} ${path}`);
      if (plain.match(path, method).route) matched += 1;
    }
  }
  // Something matched: the comparison is not of empty answers alone.
  assert.ok(matched > routes.length, `only ${matched} matches`);
});

test('routes are tried in declared order, those whose segments hold parameters or wildcards wherever these may match', () => {
  const router = new Router();
  const seen: string[] = [];
  router.get('/fixed/a', () => void seen.push('fixed'));
  router.get('/:any/a', () => void seen.push('param'));
  router.get('/Fixed/:id', () => void seen.push('fixed-param'));
  router.get('/x-{:opt}/b', () => void seen.push('optional'));
  router.get('/deep/a/b', () => void seen.push('deep'));
  router.get('/deep/:p/b', () => void seen.push('deep-param'));
  router.get('/deep/a/:q', () => void seen.push('deep-q'));
  router.get('/deep/a/b/c', () => void seen.push('deeper'));
  router.get('/deep', () => void seen.push('top'));
  const plain = new Router();
  plain.stack.push(...router.stack);
  indexRouteMatch(router);
  const paths = ['/fixed/a', '/FIXED/a', '/other/a', '/x-/b', '/x-y/b', '/fixed/b', '/x-y/a', '/deep', '/deep/', '/DEEP/A/B', '/deep/a/b/', '/deep/z/b', '/deep/a/z', '/deep/a/b/c', '/deep/a/b/c/', '/deep//b', '/deep/a/b/c/d', '//deep/a'];
  for (const path of paths) {
    assert.equal(summary(router.match(path, 'GET')), summary(plain.match(path, 'GET')), path);
  }
  assert.deepEqual(router.match('/fixed/a', 'GET').pathAndMethod.map((l) => l.path), ['/fixed/a', '/:any/a', '/Fixed/:id']);
});

test('a route declared after the router was indexed is refused rather than silently unmatched', () => {
  const router = new Router();
  router.get('/a', () => undefined);
  indexRouteMatch(router);
  router.get('/b', () => undefined);
  assert.throws(() => router.match('/b', 'GET'), /declared after the router was indexed/);
});
