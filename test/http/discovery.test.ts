/** The index and namespace indexes, generated from the same route definitions that serve requests. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite } from '../support/testSite';

const test = suite('discovery');
let t: TestSite;

test.before(async () => {
  // Berlin in May is UTC+2: the index shows the zone and its offset as text.
  t = await startTestSite({ timezone: 'Europe/Berlin' });
});
test.after(async () => t.close());

test('GET / describes the site with every field the interface lists', async () => {
  const { status, body } = await t.request('GET', '/');
  assert.is(status, 200);
  for (const key of [
    'name',
    'description',
    'url',
    'home',
    'gmt_offset',
    'timezone_string',
    'namespaces',
    'authentication',
    'routes',
  ]) {
    assert.ok(key in body, `missing ${key}`);
  }
  assert.is(body.name, 'Test site');
  assert.is(body.url, t.url);
  assert.is(body.gmt_offset, '2');
  assert.is(body.timezone_string, 'Europe/Berlin');
  assert.equal(body.namespaces, [
    'oembed/1.0',
    'core/v2',
    'projections/v1',
    'audit/v1',
    'hooks/v1',
    'site-health/v1',
    'block-editor/v1',
  ]);
  assert.equal(body.authentication, {
    'application-passwords': { endpoints: { authorization: `${t.url}/wp-admin/authorize-application.php` } },
  });
});

test('routes carry namespace, methods, endpoints with args, and self links only when unpatterned', async () => {
  const { body } = await t.request('GET', '/');
  const root = body.routes['/'];
  assert.is(root.namespace, '');
  assert.equal(root.methods, ['GET']);
  const collection = body.routes['/core/v2/posts'];
  assert.is(collection.namespace, 'core/v2');
  assert.equal(collection.methods, ['GET', 'POST']);
  assert.equal(collection._links, { self: [{ href: `${t.url}/core/v2/posts` }] });
  const perPage = collection.endpoints[0].args.per_page;
  assert.equal(perPage, {
    description: perPage.description,
    type: 'integer',
    default: 10,
    minimum: 1,
    maximum: 100,
    required: false,
  });
  const item = body.routes['/core/v2/posts/(?P<id>[\\d]+)'];
  assert.ok(item, 'the item route is keyed by its raw pattern');
  assert.equal(item.methods, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
  assert.is(item._links, undefined);
  assert.equal(Object.keys(item.endpoints[0].args)[0], 'id');
});

// The interface lists posts, pages and menu items; WordPress 6.1 also flags the term controllers
// (categories, tags, menus), which the interface does not describe, so those follow WordPress. Menu
// locations are not batchable.
test('allow_batch v1 appears on exactly the post, page, reusable block, menu-item and term endpoints', async () => {
  const { body } = await t.request('GET', '/');
  for (const [path, route] of Object.entries<any>(body.routes)) {
    for (const endpoint of route.endpoints) {
      const batchable =
        /^\/core\/v2\/(posts|pages|blocks|categories|tags|menu-items|menus)(\/\(\?P<id>\[\\d\]\+\))?$/.test(path);
      if (batchable) assert.equal(endpoint.allow_batch, { v1: true }, `${path} ${endpoint.methods}`);
      else assert.is(endpoint.allow_batch, undefined, `${path} ${endpoint.methods}`);
    }
  }
});

test('the args an endpoint validates are the args the index shows', async () => {
  const { body } = await t.request('GET', '/');
  const statusArg = body.routes['/core/v2/posts'].endpoints[0].args.status;
  assert.is(statusArg.default, 'publish');
  assert.is(statusArg.type, 'array');
  const rejected = await t.request('GET', '/core/v2/posts?status=teststatus');
  assert.is(rejected.status, 400);
  assert.is(rejected.body.code, 'rest_invalid_param');
  assert.ok(!statusArg.items.enum.includes('teststatus'));
});

test('namespace indexes list only their routes and link up to the root', async () => {
  const core = await t.request('GET', '/core/v2');
  assert.is(core.status, 200);
  assert.is(core.body.namespace, 'core/v2');
  assert.ok(Object.keys(core.body.routes).every((path) => path.startsWith('/core/v2')));
  assert.ok('/core/v2/posts' in core.body.routes);
  assert.equal(core.body._links, { up: [{ href: `${t.url}/` }] });
  const oembed = await t.request('GET', '/oembed/1.0');
  assert.is(oembed.status, 200);
  assert.is(oembed.body.namespace, 'oembed/1.0');
});

test('OPTIONS on a route gives its description, its schema and the methods allowed to the caller', async () => {
  const response = await t.request('OPTIONS', '/core/v2/posts');
  assert.is(response.status, 200);
  assert.is(response.body.namespace, 'core/v2');
  assert.is(response.body.schema.title, 'post');
  assert.ok('title' in response.body.schema.properties);
  assert.is(response.headers.get('allow'), 'GET');
});

test('OPTIONS judges an endpoint whose required args the request lacks on the request as sent, as WordPress does', async () => {
  const admin = await t.createUser('optionsadmin', 'administrator');
  // Creating a term, a menu, a user or an application password requires args an OPTIONS request never carries.
  const expected: Record<string, string> = {
    '/core/v2/categories': 'GET, POST',
    '/core/v2/tags': 'GET, POST',
    '/core/v2/menus': 'GET, POST',
    '/core/v2/users': 'GET, POST',
    [`/core/v2/users/${admin.id}/application-passwords`]: 'GET, POST, DELETE',
  };
  for (const [path, allow] of Object.entries(expected)) {
    const response = await t.request('OPTIONS', path, { as: admin });
    assert.is(response.status, 200, path);
    assert.is(response.headers.get('allow'), allow, path);
  }
});

test('an unknown namespace is no route', async () => {
  const { status, body } = await t.request('GET', '/nope/v1');
  assert.is(status, 404);
  assert.is(body.code, 'rest_no_route');
});

test.run();
