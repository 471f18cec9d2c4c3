/**
 * The route patterns written so that clients reading the index can parse them match exactly the paths WordPress 6.1's
 * own patterns match, and a client's parser (wpapi's discovery) reads every route of the index.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileRoutePattern } from '../../src/rest/dispatch';
import { TEMPLATE_ID } from '../../src/resources/themes/routes';
import { VARIATIONS_STYLESHEET } from '../../src/resources/globalStyles/routes';
import { startTestSite } from '../support/testSite';

const test = suite('route patterns for clients');

/** WordPress 6.1's patterns, as its index lists them. */
const WORDPRESS_TEMPLATE_ID = '([^\\/:<>\\*\\?"\\|]+(?:\\/[^\\/:<>\\*\\?"\\|]+)?)[\\/\\w-]+';
const WORDPRESS_VARIATIONS_STYLESHEET = '[\\/\\s%\\w\\.\\(\\)\\[\\]\\@_\\-]+';

/** Strings over characters each pattern treats apart (slashes, word characters, punctuation, refused ones). */
const pathLike = fc.string({
  unit: fc.constantFrom('a', 'B', '7', '_', '-', '/', '.', ' ', '%', '(', ')', '[', ']', '@', ':', '?', '"', '|', 'é'),
  minLength: 0,
  maxLength: 12,
});

test("a template id matches where WordPress's pattern does", () => {
  const ours = compileRoutePattern(TEMPLATE_ID);
  const theirs = compileRoutePattern(WORDPRESS_TEMPLATE_ID);
  for (const id of [
    'twentytwentythree//home',
    'parent/child//single-post',
    'a.b//x',
    'a/b.c//x',
    'a/b/c.d/e',
    '/a//b',
    'a',
    'a?b',
  ]) {
    assert.is(ours.test(id), theirs.test(id), id);
  }
  fc.assert(
    fc.property(pathLike, (id) => ours.test(id) === theirs.test(id)),
    { numRuns: 20_000 },
  );
});

test("a variations stylesheet matches where WordPress's pattern does", () => {
  const ours = compileRoutePattern(VARIATIONS_STYLESHEET);
  const theirs = compileRoutePattern(WORDPRESS_VARIATIONS_STYLESHEET);
  fc.assert(
    fc.property(pathLike, (stylesheet) => ours.test(stylesheet) === theirs.test(stylesheet)),
    { numRuns: 20_000 },
  );
});

test('wpapi reads every route of the index, in both dialects', async () => {
  const require = createRequire(import.meta.url);
  const routeTree = require('wpapi/lib/route-tree.js') as { build(routes: Record<string, unknown>): unknown };
  const t = await startTestSite();
  try {
    for (const path of ['/', '/wp-json/']) {
      const { body } = await t.request('GET', path);
      const unreadable = Object.entries(body.routes as Record<string, unknown>).filter(([route, description]) => {
        try {
          routeTree.build({ [route]: description });
          return false;
        } catch {
          return true;
        }
      });
      assert.equal(
        unreadable.map(([route]) => route),
        [],
        path,
      );
    }
  } finally {
    await t.close();
  }
});

test.run();
