/**
 * How the index and OPTIONS describe the posts and pages routes, as WordPress 6.1 does: write args show the
 * field's schema (not the shape input is checked against), OPTIONS shows the public schema with its
 * hyper-schema links, and a route without parameters links to itself.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite } from '../support/testSite';

const test = suite('discovery: posts and pages');
let t: TestSite;

test.before(async () => {
  t = await startTestSite();
});
test.after(async () => t.close());

test('write args of title, content and excerpt show the schema of the field, in the index and in OPTIONS', async () => {
  const index = await t.request('GET', '/');
  const create = index.body.routes['/core/v2/posts'].endpoints[1];
  assert.equal(create.methods, ['POST']);
  for (const field of ['title', 'content', 'excerpt']) {
    const arg = create.args[field];
    assert.is(arg.type, 'object', field);
    assert.is(arg.required, false);
    assert.equal(arg.properties.raw.context, ['edit']);
    assert.is(arg.properties.rendered.readonly, true);
  }
  assert.equal(Object.keys(create.args.content.properties).sort(), ['block_version', 'protected', 'raw', 'rendered']);
  assert.equal(Object.keys(create.args.excerpt.properties).sort(), ['protected', 'raw', 'rendered']);
  const options = await t.request('OPTIONS', '/core/v2/pages/1');
  assert.is(options.body.endpoints[1].args.title.type, 'object');
});

test('title, content and excerpt still take a string or {raw}, and refuse anything else', async () => {
  const admin = await t.createUser('admin', 'administrator');
  const created = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Plain', content: { raw: 'Raw' } },
  });
  assert.is(created.status, 201, created.text);
  assert.is(created.body.title.raw, 'Plain');
  assert.is(created.body.content.raw, 'Raw');
  const refused = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 5 } });
  assert.is(refused.status, 400);
  assert.is(refused.body.code, 'rest_invalid_param');
});

test('OPTIONS shows the public schema: no arg_options, the action links, and links a parameterless route to itself', async () => {
  const response = await t.request('OPTIONS', '/core/v2/posts');
  const schema = response.body.schema;
  for (const field of ['title', 'content', 'excerpt'])
    assert.is(schema.properties[field].arg_options, undefined, field);
  assert.equal(schema.properties.content.properties.protected.context, ['view', 'edit', 'embed']);
  assert.equal(
    schema.links.map((link: { rel: string }) => link.rel.replace('https://api.w.org/action-', '')),
    [
      'publish',
      'unfiltered-html',
      'sticky',
      'assign-author',
      'assign-categories',
      'create-categories',
      'assign-tags',
      'create-tags',
    ],
  );
  assert.is(schema.links[0].href, `${t.url}/core/v2/posts/{id}`);
  assert.equal(schema.links[0].targetSchema, {
    type: 'object',
    properties: { status: { type: 'string', enum: ['publish', 'future'] } },
  });
  assert.equal(response.body._links, { self: [{ href: `${t.url}/core/v2/posts` }] });
  const pages = await t.request('OPTIONS', '/core/v2/pages');
  assert.equal(
    pages.body.schema.links.map((link: { rel: string }) => link.rel.replace('https://api.w.org/action-', '')),
    ['publish', 'unfiltered-html', 'assign-author'],
  );
  const item = await t.request('OPTIONS', '/core/v2/posts/1');
  assert.is(item.body._links, undefined);
});

test.run();
