/** Pages: the post routes under /core/v2/pages, with parent and menu_order and without post-only fields. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('pages');
let t: TestSite;
let admin: TestUser;
let author: TestUser;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  author = await t.createUser('author', 'author');
});
test.after(async () => t.close());

test('a page has parent and menu_order, closed comments by default, and none of the post-only fields', async () => {
  const created = await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'About', status: 'publish' } });
  assert.is(created.status, 201);
  assert.match(created.headers.get('location')!, /\/core\/v2\/pages\/\d+$/);
  const page = created.body;
  assert.is(page.type, 'page');
  assert.is(page.parent, 0);
  assert.is(page.menu_order, 0);
  assert.is(page.comment_status, 'closed');
  assert.is(page.ping_status, 'closed');
  for (const field of ['format', 'sticky', 'categories', 'tags']) assert.not.ok(field in page, field);
  assert.is(page.link, `${t.url}/about/`);
  assert.is(page.guid.rendered, `${t.url}/about/`, 'a page created published keeps its permalink of then as guid');
  const draft = await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Later' } });
  assert.is(draft.body.guid.raw, `${t.url}/?page_id=${draft.body.id}`);
  const published = await t.request('PATCH', `/core/v2/pages/${draft.body.id}`, {
    as: admin,
    body: { status: 'publish' },
  });
  assert.is(published.body.guid.raw, `${t.url}/?page_id=${draft.body.id}`, 'the guid never changes');
  assert.is(published.body.link, `${t.url}/later/`);
});

test('pages may be empty, unlike posts', async () => {
  const created = await t.request('POST', '/core/v2/pages', { as: admin, body: {} });
  assert.is(created.status, 201);
  const post = await t.request('POST', '/core/v2/posts', { as: admin, body: {} });
  assert.is(post.body.code, 'empty_content');
});

test('children: parent must exist; slugs are unique among siblings only; numeric slugs are suffixed', async () => {
  const parentA = (
    await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Parent A', status: 'publish' } })
  ).body.id;
  const parentB = (
    await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Parent B', status: 'publish' } })
  ).body.id;
  const underA = await t.request('POST', '/core/v2/pages', {
    as: admin,
    body: { title: 'Child', status: 'publish', parent: parentA },
  });
  const underB = await t.request('POST', '/core/v2/pages', {
    as: admin,
    body: { title: 'Child', status: 'publish', parent: parentB },
  });
  const againUnderA = await t.request('POST', '/core/v2/pages', {
    as: admin,
    body: { title: 'Child', status: 'publish', parent: parentA },
  });
  assert.equal([underA.body.slug, underB.body.slug, againUnderA.body.slug], ['child', 'child', 'child-2']);
  assert.equal(underA.body._links.up, [{ embeddable: true, href: `${t.url}/core/v2/pages/${parentA}` }]);
  const orphan = await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Orphan', parent: 999999 } });
  assert.equal([orphan.status, orphan.body.code], [400, 'rest_post_invalid_id']);
  const negative = await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Orphan', parent: -1 } });
  assert.is(negative.status, 400);
  const numeric = await t.request('POST', '/core/v2/pages', { as: admin, body: { title: '2024', status: 'publish' } });
  assert.is(numeric.body.slug, '2024-2');
  const reset = await t.request('PATCH', `/core/v2/pages/${underA.body.id}`, { as: admin, body: { parent: 0 } });
  assert.is(reset.body.parent, 0);
});

test('list: parent, parent_exclude, menu_order filters and orderby menu_order', async () => {
  const root = (await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Root', status: 'publish' } }))
    .body.id;
  const ids: number[] = [];
  for (const [title, order] of [
    ['Third', 3],
    ['First', 1],
    ['Second', 2],
  ] as const) {
    ids.push(
      (
        await t.request('POST', '/core/v2/pages', {
          as: admin,
          body: { title, status: 'publish', parent: root, menu_order: order },
        })
      ).body.id,
    );
  }
  const children = await t.request('GET', `/core/v2/pages?parent=${root}&orderby=menu_order&order=asc`);
  assert.equal(
    children.body.map((p: any) => p.title.rendered),
    ['First', 'Second', 'Third'],
  );
  assert.is(children.headers.get('x-wp-total'), '3');
  const second = await t.request('GET', `/core/v2/pages?parent=${root}&menu_order=2`);
  assert.equal(
    second.body.map((p: any) => p.title.rendered),
    ['Second'],
  );
  const notChildren = await t.request('GET', `/core/v2/pages?parent_exclude=${root}&per_page=100`);
  assert.ok(notChildren.body.every((p: any) => p.parent !== root));
  const postOnly = await t.request('GET', '/core/v2/pages?sticky=true');
  assert.is(postOnly.status, 200, 'unregistered params are ignored');
});

test('page capabilities: authors cannot create pages', async () => {
  const refused = await t.request('POST', '/core/v2/pages', { as: author, body: { title: 'Mine' } });
  assert.equal([refused.status, refused.body.code], [403, 'rest_cannot_create']);
});

test('a page id on the posts routes (and the reverse) is an invalid id', async () => {
  const page = (
    await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Only a page', status: 'publish' } })
  ).body.id;
  const asPost = await t.request('GET', `/core/v2/posts/${page}`);
  assert.equal([asPost.status, asPost.body.code], [404, 'rest_post_invalid_id']);
  const post = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Only a post', status: 'publish' } })
  ).body.id;
  const asPage = await t.request('GET', `/core/v2/pages/${post}`);
  assert.equal([asPage.status, asPage.body.code], [404, 'rest_post_invalid_id']);
});

test('pages have revisions and autosaves too', async () => {
  const id = (
    await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Revised page', status: 'publish' } })
  ).body.id;
  await t.request('PATCH', `/core/v2/pages/${id}`, { as: admin, body: { content: 'new' } });
  const revisions = await t.request('GET', `/core/v2/pages/${id}/revisions`, { as: admin });
  assert.is(revisions.body.length, 1);
  assert.equal(revisions.body[0]._links.parent, [{ href: `${t.url}/core/v2/pages/${id}` }]);
});

test.run();
