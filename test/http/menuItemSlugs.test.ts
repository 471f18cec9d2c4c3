/**
 * Menu-item slugs, black-box through the app. WordPress 6.1 (checked against the reference site on 2026-11-24)
 * names an item when it is first published: its own title made a slug (its id when it has none), unique among all
 * menu items whatever their menu, feed names starting at -2; the name then stays through retitling, drafting and
 * republishing, and goes with the item when it is deleted. The slug shows in the `slug` filter and order of
 * `/menu-items` and in the answer to an autosave of one's own draft, with the guid fixed at creation.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';

const test = suite('menu-item slugs');
let t: TestSite;
let admin: TestUser;
let menuA: number;
let menuB: number;

test.before.each(async () => {
  t = await startTestSite({ timezone: 'Europe/Berlin', now: Date.parse('2024-05-01T12:00:00Z') });
  admin = await t.createUser('admin', 'administrator');
  menuA = (await t.request('POST', '/core/v2/menus', { as: admin, body: { name: 'A' } })).body.id;
  menuB = (await t.request('POST', '/core/v2/menus', { as: admin, body: { name: 'B' } })).body.id;
});
test.after.each(async () => t.close());

async function item(body: Record<string, unknown>): Promise<number> {
  const created = await t.request('POST', '/core/v2/menu-items', {
    as: admin,
    body: { menus: menuA, status: 'publish', ...body },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return created.body.id as number;
}
const link = (title: string, body: Record<string, unknown> = {}) =>
  item({ title, url: 'https://example.com/', ...body });

async function update(id: number, body: Record<string, unknown>): Promise<void> {
  const updated = await t.request('POST', `/core/v2/menu-items/${id}`, { as: admin, body });
  assert.is(updated.status, 200, JSON.stringify(updated.body));
}

/** The ids of the items with this slug, in any status (WordPress's `slug` filter, a list of slugs). */
async function named(slug: string): Promise<number[]> {
  const found = await t.request('GET', `/core/v2/menu-items?status=publish,draft&slug=${encodeURIComponent(slug)}`, {
    as: admin,
  });
  assert.is(found.status, 200, JSON.stringify(found.body));
  return found.body.map((i: { id: number }) => i.id);
}

test('a published title becomes a slug unique among all menu items, whatever the menu', async () => {
  const first = await link('Hello World');
  const sameMenu = await link('Hello World');
  const otherMenu = await link('Hello World', { menus: menuB });
  const noMenu = await link('Hello World', { menus: 0 });
  assert.equal(await named('hello-world'), [first]);
  assert.equal(await named('hello-world-2'), [sameMenu]);
  assert.equal(await named('hello-world-3'), [otherMenu]);
  assert.equal(await named('hello-world-4'), [noMenu]);
  // The filter reads a list and sanitises each entry, as for posts.
  assert.equal(await named('HELLO-WORLD,hello-world-4'), [first, noMenu]);
  assert.equal(await named('Hello World'), [], 'split at the space: "hello" and "world"');
  assert.equal(await named(String(first)), [], 'no longer the id');

  // Deleting an item frees its name for the next one published with that title.
  const deleted = await t.request('DELETE', `/core/v2/menu-items/${sameMenu}?force=true`, { as: admin });
  assert.is(deleted.status, 200);
  const after = await link('Hello World');
  assert.equal(await named('hello-world-2'), [after]);
});

test('titles slugs change: sanitised, feed names start at -2, a title with nothing left names the item by its id', async () => {
  const chars = await link('Ça & va? <b>x</b> 日本 -- a_b  C.D');
  assert.equal(await named('ca-va-x-%e6%97%a5%e6%9c%ac-a_b-c-d'), [chars]);
  assert.equal(await named('ca-va-x-日本-a_b-c-d'), [chars]);
  const feed = await link('feed');
  const embed = await link('Embed');
  assert.equal(await named('feed'), []);
  assert.equal(await named('feed-2'), [feed]);
  assert.equal(await named('embed-2'), [embed]);
  // Only posts and pages keep numbers and `pageN` free; a menu item takes them.
  const year = await link('2024');
  const page2 = await link('page2');
  assert.equal(await named('2024'), [year]);
  assert.equal(await named('page2'), [page2]);
  const bang = await link('!!!');
  assert.equal(await named(String(bang)), [bang]);
  const long = await link('word '.repeat(60));
  assert.equal(await named('word-'.repeat(40).slice(0, -1)), [long], 'cut at 200 characters');
});

test('an explicit slug is not an argument of menu items: ignored, the title decides', async () => {
  const id = await link('With Slug Arg', { slug: 'my-explicit' });
  assert.equal(await named('my-explicit'), []);
  assert.equal(await named('with-slug-arg'), [id]);
});

test('a draft has no slug until first published, then takes its title of that moment and keeps it', async () => {
  const draft = await link('Draft Title', { status: 'draft' });
  assert.equal(await named('draft-title'), []);
  const retitled = await link('First Name', { status: 'draft' });
  await update(retitled, { title: 'Second Name' });
  await update(retitled, { status: 'publish', title: 'Third Name' });
  assert.equal(await named('third-name'), [retitled]);
  assert.equal(await named('first-name,second-name'), []);

  // Retitling a published item keeps its name; so do drafting and republishing it under yet another title.
  const published = await link('Original Title');
  await update(published, { title: 'Changed Title' });
  await update(published, { status: 'draft', title: 'Toggled Draft' });
  await update(published, { status: 'publish', title: 'Toggled Again' });
  assert.equal(await named('original-title'), [published]);
  assert.equal(await named('changed-title,toggled-draft,toggled-again'), []);

  // An entry of the filter with nothing left after sanitising is the empty slug: the drafts never named.
  assert.equal(await named('!!!'), [draft]);
  // A draft sorts first by slug (an empty one), numbers before letters.
  const untitled = await item({ type: 'taxonomy', object: 'category', object_id: 1 });
  const order = await t.request('GET', '/core/v2/menu-items?status=publish,draft&orderby=slug&order=asc', {
    as: admin,
  });
  assert.equal(
    order.body.map((i: { id: number }) => i.id),
    [draft, untitled, published, retitled],
  );
});

test("items linking to an object: their own title if given, else the id (the object's title is not used)", async () => {
  const post = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Linked Post', status: 'publish' },
  });
  assert.is(post.status, 201);
  const untitledPost = await item({ type: 'post_type', object: 'post', object_id: post.body.id });
  const titledPost = await item({
    type: 'post_type',
    object: 'post',
    object_id: post.body.id,
    title: 'Custom For Post',
  });
  const untitledTerm = await item({ type: 'taxonomy', object: 'category', object_id: 1 });
  const archive = await item({ type: 'post_type_archive', object: 'post' });
  assert.equal(await named(String(untitledPost)), [untitledPost]);
  assert.equal(await named('linked-post'), []);
  assert.equal(await named('custom-for-post'), [titledPost]);
  assert.equal(await named(String(untitledTerm)), [untitledTerm]);
  assert.equal(await named(String(archive)), [archive]);
  // Titled after publication: still its id.
  await update(untitledTerm, { title: 'Now Titled' });
  assert.equal(await named(String(untitledTerm)), [untitledTerm]);
  // Drafted untitled, titled as it is published: the title names it.
  const later = await item({ type: 'taxonomy', object: 'category', object_id: 1, status: 'draft' });
  await update(later, { status: 'publish', title: 'Given At Publish' });
  assert.equal(await named('given-at-publish'), [later]);
});

test("an object item given exactly its object's title keeps none of its own: named by its id, not found by that title", async () => {
  const post = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Hello world!', status: 'publish' },
  });
  const category = await t.request('POST', '/core/v2/categories', { as: admin, body: { name: 'Parent & Child' } });
  const postEqual = await item({ type: 'post_type', object: 'post', object_id: post.body.id, title: 'Hello world!' });
  const termEqual = await item({
    type: 'taxonomy',
    object: 'category',
    object_id: category.body.id,
    title: 'Parent & Child',
  });
  const archiveEqual = await item({ type: 'post_type_archive', object: 'post', title: 'Post Archives' });
  // Set to it by an update, while a draft, then published.
  const updatedEqual = await item({
    type: 'post_type',
    object: 'post',
    object_id: post.body.id,
    title: 'Something Else',
    status: 'draft',
  });
  await update(updatedEqual, { title: 'Hello world!', status: 'publish' });
  // Compared exactly: another case is a title of its own.
  const otherCase = await item({ type: 'post_type', object: 'post', object_id: post.body.id, title: 'hello world!' });
  for (const id of [postEqual, termEqual, archiveEqual, updatedEqual]) assert.equal(await named(String(id)), [id]);
  assert.equal(await named('hello-world'), [otherCase]);
  // It still shows its object's title, and follows it.
  const shown = await t.request('GET', `/core/v2/menu-items/${postEqual}?context=edit`, { as: admin });
  assert.equal(shown.body.title, { raw: 'Hello world!', rendered: 'Hello world!' });
  const searched = await t.request('GET', '/core/v2/menu-items?search=Hello%20world', { as: admin });
  assert.equal(
    searched.body.map((i: { id: number }) => i.id),
    [otherCase],
  );
});

test("the answer to an autosave of one's own draft shows its slug and the guid it was created with", async () => {
  const autosaved = async (id: number) => {
    const saved = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
    assert.is(saved.status, 200, JSON.stringify(saved.body));
    assert.is(saved.body.id, id, 'the item itself');
    return [saved.body.slug, saved.body.guid.raw, saved.body.guid.rendered];
  };
  const createdPublished = await link('Auto Save Me');
  await update(createdPublished, { status: 'draft' });
  assert.equal(await autosaved(createdPublished), ['auto-save-me', `${t.url}/auto-save-me/`, `${t.url}/auto-save-me/`]);

  const createdDraft = await link('Draft Pub Draft', { status: 'draft' });
  await update(createdDraft, { status: 'publish' });
  await update(createdDraft, { status: 'draft' });
  assert.equal(await autosaved(createdDraft), [
    'draft-pub-draft',
    `${t.url}/?p=${createdDraft}`,
    `${t.url}/?p=${createdDraft}`,
  ]);

  const neverPublished = await link('Never Published', { status: 'draft' });
  assert.equal(await autosaved(neverPublished), ['', `${t.url}/?p=${neverPublished}`, `${t.url}/?p=${neverPublished}`]);

  const untitled = await item({ type: 'taxonomy', object: 'category', object_id: 1 });
  await update(untitled, { status: 'draft' });
  assert.equal(await autosaved(untitled), [String(untitled), `${t.url}/${untitled}/`, `${t.url}/${untitled}/`]);
});

test('the slug filter of posts sanitises its entries the same way', async () => {
  const post = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Hello World', status: 'publish' },
  });
  assert.is(post.status, 201);
  const found = await t.request('GET', '/core/v2/posts?slug=HELLO-WORLD', { as: admin });
  assert.equal(
    found.body.map((p: { id: number }) => p.id),
    [post.body.id],
  );
  const ordered = await t.request('GET', '/core/v2/posts?slug=Nope,HELLO-world&orderby=include_slugs', { as: admin });
  assert.equal(
    ordered.body.map((p: { id: number }) => p.id),
    [post.body.id],
  );
});

test('a failed write leaves no name taken', async () => {
  const refused = await t.request('POST', '/core/v2/menu-items', {
    as: admin,
    body: { title: 'Taken?', url: 'https://example.com/', status: 'publish', menus: 999 },
  });
  assert.is(refused.status, 400);
  assert.is(refused.body.code, 'invalid_menu_id');
  const id = await link('Taken?');
  assert.equal(await named('taken'), [id]);
});

test.run();

const onRedis = suite('menu-item slugs (redis read model)');
onRedis('the slug filter and order on the Redis read model', async () => {
  const opened = testRedisReadModel();
  const site = await startTestSite({ readModel: opened.readModel });
  try {
    const me = await site.createUser('admin', 'administrator');
    const make = async (body: Record<string, unknown>) =>
      (await site.request('POST', '/core/v2/menu-items', { as: me, body: { url: 'https://example.com/', ...body } }))
        .body.id as number;
    const first = await make({ title: 'Home' });
    const second = await make({ title: 'Home' });
    const draft = await make({ title: 'Home', status: 'draft' });
    const bySlug = await site.request('GET', '/core/v2/menu-items?status=publish,draft&slug=home-2,home', { as: me });
    assert.equal(bySlug.body.map((i: { id: number }) => i.id).sort(), [first, second].sort());
    const ordered = await site.request('GET', '/core/v2/menu-items?status=publish,draft&orderby=slug&order=desc', {
      as: me,
    });
    assert.equal(
      ordered.body.map((i: { id: number }) => i.id),
      [second, first, draft],
    );
  } finally {
    await site.close();
    await opened.cleanup();
  }
});
onRedis.run();
