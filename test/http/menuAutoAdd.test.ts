/**
 * A menu's auto_add, as WordPress does on publishing a page: a page that becomes published at the top level
 * joins every menu with auto_add on, as a MenuItemCreated on its own menu-item stream.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('menu auto_add');
let t: TestSite;
let admin: TestUser;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
});
test.after(async () => t.close());

const itemsOf = async (menu: number) =>
  (await t.request('GET', `/core/v2/menu-items?menus=${menu}&context=edit&status=publish,draft`, { as: admin }))
    .body as any[];

test('published top-level pages join auto_add menus only, once, at the end', async () => {
  const auto = (await t.request('POST', '/core/v2/menus', { as: admin, body: { name: 'Auto', auto_add: true } })).body;
  const manual = (await t.request('POST', '/core/v2/menus', { as: admin, body: { name: 'Manual' } })).body;
  const first = (
    await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'About us', status: 'publish' } })
  ).body;
  let items = await itemsOf(auto.id);
  assert.equal(
    items.map((item) => [item.type, item.object, item.object_id, item.status, item.menu_order, item.parent, item.url]),
    [['post_type', 'page', first.id, 'publish', 0, 0, first.link]],
  );
  assert.is(items[0].title.rendered, 'About us');
  assert.equal(await itemsOf(manual.id), []);
  // Its stream has the creation event, by the publisher.
  const stream = await t.site.store.readStream(`menu-item-${items[0].id}`);
  assert.equal(
    stream.map((event) => [event.type, event.metadata.userId]),
    [['MenuItemCreated', admin.id]],
  );

  const second = (
    await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Contact', status: 'publish' } })
  ).body;
  items = await itemsOf(auto.id);
  assert.equal(items.find((item) => item.object_id === second.id)?.menu_order, 2);

  // Not for drafts, child pages, posts, or an update of an already published page.
  const draft = (await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Later', status: 'draft' } }))
    .body;
  await t.request('POST', '/core/v2/pages', {
    as: admin,
    body: { title: 'Team', status: 'publish', parent: first.id },
  });
  await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'News', status: 'publish' } });
  await t.request('POST', `/core/v2/pages/${first.id}`, { as: admin, body: { title: 'About' } });
  assert.is((await itemsOf(auto.id)).length, 2);
  // A draft published later joins then.
  await t.request('POST', `/core/v2/pages/${draft.id}`, { as: admin, body: { status: 'publish' } });
  items = await itemsOf(auto.id);
  assert.equal(items.map((item) => item.object_id).sort(), [first.id, second.id, draft.id].sort());
  // Unpublished and published again: the page is already in the menu, so it is not added twice.
  await t.request('POST', `/core/v2/pages/${draft.id}`, { as: admin, body: { status: 'draft' } });
  await t.request('POST', `/core/v2/pages/${draft.id}`, { as: admin, body: { status: 'publish' } });
  assert.is((await itemsOf(auto.id)).length, 3);
});

test.run();
