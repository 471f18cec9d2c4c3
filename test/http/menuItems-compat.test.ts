/**
 * Menu item answers where the comparison with the reference WordPress (npm run compat) found palimpsest apart:
 * the title a post-type item without a label of its own shows.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('menu items: compat');
let t: TestSite;
let admin: TestUser;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
});
test.after(async () => t.close());

test("a post-type item without a label shows its post's displayed (texturized) title, raw included", async () => {
  const post = (
    await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'A "quoted" post -- with dashes...', status: 'publish' },
    })
  ).body;
  const menu = (await t.request('POST', '/core/v2/menus', { as: admin, body: { name: 'Main' } })).body;
  const created = await t.request('POST', '/core/v2/menu-items', {
    as: admin,
    body: { type: 'post_type', object: 'post', object_id: post.id, menus: menu.id },
  });
  assert.is(created.status, 201);
  const displayed = 'A &#8220;quoted&#8221; post &#8212; with dashes&#8230;';
  assert.equal(created.body.title, { raw: displayed, rendered: displayed });
  const read = await t.request('GET', `/core/v2/menu-items/${created.body.id}?context=edit`, { as: admin });
  assert.is(read.body.title.raw, displayed);
  // A label of its own is kept as sent.
  const labelled = await t.request('POST', '/core/v2/menu-items', {
    as: admin,
    body: { type: 'post_type', object: 'post', object_id: post.id, menus: menu.id, title: 'My "label"' },
  });
  assert.equal(labelled.body.title, { raw: 'My "label"', rendered: 'My &#8220;label&#8221;' });
});

test.run();
