/**
 * `_fields` on the site index and the namespace indexes keeps their `_links`, as WordPress 6.1 does (it adds them to
 * the response outside its data, which `_fields` filters); on a resource the links go unless `_fields` names them.
 * Expected values are the reference site's answers to the same requests.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite } from '../support/testSite';

let t: TestSite;
test.before(async () => {
  t = await startTestSite({ apiDialect: 'wordpress' });
});
test.after(() => t.close());

test('the indexes keep their links whatever _fields names', async () => {
  const index = await t.request('GET', '/wp-json/?_fields=name,description');
  assert.equal(Object.keys(index.body), ['name', 'description', '_links']);
  assert.equal(index.body._links, { help: [{ href: 'https://developer.wordpress.org/rest-api/' }] });
  const namespace = await t.request('GET', '/wp-json/wp/v2?_fields=namespace');
  assert.equal(namespace.body, { namespace: 'wp/v2', _links: { up: [{ href: `${t.url}/wp-json/` }] } });
  const core = await t.request('GET', '/core/v2?_fields=namespace');
  assert.equal(core.body, { namespace: 'core/v2', _links: { up: [{ href: `${t.url}/` }] } });
  // Nothing named that exists: the links alone.
  assert.equal(Object.keys((await t.request('GET', '/?_fields=nothing')).body), ['_links']);
});

test('a resource keeps its links only when _fields names them', async () => {
  const post = await t.request('GET', '/wp-json/wp/v2/types/post?_fields=slug');
  assert.equal(post.body, { slug: 'post' });
  const withLinks = await t.request('GET', '/wp-json/wp/v2/types/post?_fields=slug,_links');
  assert.equal(Object.keys(withLinks.body), ['slug', '_links']);
});

test.run();
