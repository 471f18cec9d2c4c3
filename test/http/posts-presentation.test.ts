/**
 * Fields and links of a post or page that depend on more than the item itself, as WordPress 6.1 builds them:
 * `generated_slug` (the title's slug, unique), a child page's permalink under its ancestors, the permalink
 * template of trashed items, the `wp:action-*` links of the edit context, and the trash's `__trashed` slug.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import type { EventStore } from '../../src/ports/eventStore';

const test = suite('posts and pages: derived fields and links');
let t: TestSite;
let admin: TestUser;
let author: TestUser;
let contributor: TestUser;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  author = await t.createUser('author', 'author');
  contributor = await t.createUser('contributor', 'contributor');
});
test.after(async () => t.close());

async function make(path: string, as: TestUser, body: Record<string, unknown>): Promise<any> {
  const response = await t.request('POST', `/core/v2/${path}`, { as, body });
  assert.is(response.status, 201, response.text);
  return response.body;
}

test('generated_slug is the slug the title would give, made unique, whatever the actual slug', async () => {
  const first = await make('posts', admin, { title: 'Shared Title', status: 'publish' });
  assert.is(first.slug, 'shared-title');
  assert.is(first.generated_slug, 'shared-title');
  const explicit = await make('posts', admin, { title: 'Shared Title', slug: 'something-else', status: 'publish' });
  assert.is(explicit.slug, 'something-else');
  // "shared-title" belongs to the first post.
  assert.is(explicit.generated_slug, 'shared-title-2');
  const renamed = await t.request('POST', `/core/v2/posts/${explicit.id}`, {
    as: admin,
    body: { title: 'A New Name' },
  });
  assert.is(renamed.body.slug, 'something-else');
  assert.is(renamed.body.generated_slug, 'a-new-name');
  // Not in the view context.
  const view = await t.request('GET', `/core/v2/posts/${explicit.id}`);
  assert.is(view.body.generated_slug, undefined);
});

test('a trashed item: its title slug again (its own is freed), `__trashed` even without a slug, a plain permalink_template for posts', async () => {
  const post = await make('posts', admin, { title: 'Going Away', status: 'publish' });
  const trashed = await t.request('DELETE', `/core/v2/posts/${post.id}`, { as: admin });
  assert.is(trashed.body.slug, 'going-away__trashed');
  assert.is(trashed.body.generated_slug, 'going-away');
  assert.is(trashed.body.permalink_template, `${t.url}/?p=${post.id}`);

  const pending = await make('posts', contributor, { title: 'Pending', status: 'pending' });
  assert.is(pending.slug, '');
  const gone = await t.request('DELETE', `/core/v2/posts/${pending.id}`, { as: contributor });
  assert.is(gone.body.slug, '__trashed');

  const page = await make('pages', admin, { title: 'Trashed page', status: 'draft' });
  const trashedPage = await t.request('DELETE', `/core/v2/pages/${page.id}`, { as: admin });
  assert.is(trashedPage.body.slug, '__trashed');
  // A page keeps its pattern in the trash.
  assert.is(trashedPage.body.permalink_template, `${t.url}/%pagename%/`);
});

test('an untitled page: generated_slug is its id with a suffix, since a number alone is a reserved page slug', async () => {
  const page = await make('pages', admin, {});
  assert.is(page.generated_slug, `${page.id}-2`);
  const post = await make('posts', admin, { content: 'Body only' });
  assert.is(post.generated_slug, String(post.id));
});

test("a child page's link, guid, permalink_template and Link header are under its ancestors' slugs", async () => {
  const top = await make('pages', admin, { title: 'Top', status: 'publish' });
  const middle = await make('pages', admin, { title: 'Middle', status: 'publish', parent: top.id });
  const leaf = await make('pages', admin, { title: 'Leaf', status: 'publish', parent: middle.id });
  assert.is(middle.link, `${t.url}/top/middle/`);
  assert.is(leaf.link, `${t.url}/top/middle/leaf/`);
  assert.is(leaf.guid.raw, `${t.url}/top/middle/leaf/`);
  assert.is(leaf.permalink_template, `${t.url}/top/middle/%pagename%/`);
  const read = await t.request('GET', `/core/v2/pages/${leaf.id}`);
  assert.is(read.headers.get('link'), `<${t.url}/top/middle/leaf/>; rel="alternate"; type=text/html`);
  const listed = await t.request('GET', `/core/v2/pages?include=${leaf.id}`);
  assert.is(listed.body[0].link, `${t.url}/top/middle/leaf/`);
  // Moved to the top level, the link follows; the guid stays as created.
  const moved = await t.request('POST', `/core/v2/pages/${leaf.id}`, { as: admin, body: { parent: 0 } });
  assert.is(moved.body.link, `${t.url}/leaf/`);
  assert.is(moved.body.guid.raw, `${t.url}/top/middle/leaf/`);
});

test('edit context carries the wp:action-* links the caller has; view context none', async () => {
  const actionsOf = (item: { _links: Record<string, unknown> }) =>
    Object.keys(item._links)
      .filter((rel) => rel.startsWith('wp:action-'))
      .sort();
  const byAdmin = await make('posts', admin, { title: 'Actions' });
  assert.equal(
    actionsOf(byAdmin),
    [
      'assign-author',
      'assign-categories',
      'assign-tags',
      'create-categories',
      'create-tags',
      'publish',
      'sticky',
      'unfiltered-html',
    ].map((a) => `wp:action-${a}`),
  );
  assert.equal(byAdmin._links['wp:action-publish'], [{ href: `${t.url}/core/v2/posts/${byAdmin.id}` }]);
  const byAuthor = await make('posts', author, { title: 'Actions' });
  assert.equal(
    actionsOf(byAuthor),
    ['assign-categories', 'assign-tags', 'create-tags', 'publish'].map((a) => `wp:action-${a}`),
  );
  const byContributor = await make('posts', contributor, { title: 'Actions' });
  assert.equal(
    actionsOf(byContributor),
    ['assign-categories', 'assign-tags', 'create-tags'].map((a) => `wp:action-${a}`),
  );
  const page = await make('pages', admin, { title: 'Actions' });
  assert.equal(
    actionsOf(page),
    ['assign-author', 'publish', 'unfiltered-html'].map((a) => `wp:action-${a}`),
  );
  const view = await t.request('GET', `/core/v2/posts/${byAdmin.id}`, { as: admin });
  assert.equal(actionsOf(view.body), []);
});

test('sticky on a post that is already protected has its own message', async () => {
  const post = await make('posts', admin, { title: 'Protected', password: 'secret', status: 'publish' });
  const later = await t.request('POST', `/core/v2/posts/${post.id}`, { as: admin, body: { sticky: true } });
  assert.is(later.status, 400);
  assert.equal(later.body, {
    code: 'rest_invalid_field',
    message: 'A password protected post can not be set to sticky.',
    data: { status: 400 },
  });
  const both = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Both', password: 'secret', sticky: true },
  });
  assert.is(both.body.message, 'A post can not be sticky and have a password.');
});

test.run();

// --- generated_slug on lists ---------------------------------------------------------------------------------------

const lists = suite('generated_slug on edit-context lists');

lists(
  'each item shows its own unique title slug, following other items taking and freeing it, without a claim lookup per item',
  async () => {
    const claimReads: string[] = [];
    const store = createMemoryEventStore();
    const countingStore: EventStore = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== 'readStream') return typeof value === 'function' ? value.bind(target) : value;
        return (streamId: string, options?: unknown) => {
          if (streamId.startsWith('name-')) claimReads.push(streamId);
          return (value as EventStore['readStream']).call(target, streamId, options as never);
        };
      },
    });
    const s = await startTestSite({ store: countingStore });
    try {
      const editor = await s.createUser('editor', 'editor');
      const create = async (path: string, body: Record<string, unknown>) => {
        const response = await s.request('POST', `/core/v2/${path}`, {
          as: editor,
          body: { title: 'Same Title', ...body },
        });
        assert.is(response.status, 201, response.text);
        return response.body.id as number;
      };
      const holder = await create('posts', { status: 'publish' });
      const holder2 = await create('posts', { status: 'publish' });
      const drafts: number[] = [];
      for (let i = 0; i < 30; i++) drafts.push(await create('posts', { status: 'draft' }));
      const parentA = await create('pages', { title: 'Parent A', status: 'publish' });
      const childA = await create('pages', { title: 'Child', status: 'publish', parent: parentA });
      const childB = await create('pages', { title: 'Child', status: 'draft', parent: parentA });
      const parentB = await create('pages', { title: 'Parent B', status: 'publish' });
      const otherParentChild = await create('pages', { title: 'Child', status: 'draft', parent: parentB });

      const list = async (path: string) => {
        claimReads.length = 0;
        const response = await s.request('GET', `/core/v2/${path}`, { as: editor });
        assert.is(response.status, 200, response.text);
        return new Map<number, string>(response.body.map((item: any) => [item.id, item.generated_slug]));
      };
      let slugs = await list('posts?context=edit&per_page=100&status=publish,draft');
      assert.is(claimReads.length, 0, `claim lookups: ${claimReads.length}`);
      assert.is(slugs.get(holder), 'same-title');
      assert.is(slugs.get(holder2), 'same-title-2');
      // Drafts hold no slug: each would be the third.
      for (const id of drafts) assert.is(slugs.get(id), 'same-title-3');

      const pages = await list('pages?context=edit&per_page=100&status=publish,draft');
      assert.is(pages.get(childA), 'child');
      // Unique among its siblings only.
      assert.is(pages.get(childB), 'child-2');
      assert.is(pages.get(otherParentChild), 'child');

      // Another item taking "same-title-3" moves the drafts on; the holder freeing "same-title" gives it back.
      await create('posts', { status: 'publish', slug: 'same-title-3' });
      slugs = await list('posts?context=edit&per_page=100&status=publish,draft');
      for (const id of drafts) assert.is(slugs.get(id), 'same-title-4');
      const deleted = await s.request('DELETE', `/core/v2/posts/${holder}?force=true`, { as: editor });
      assert.is(deleted.status, 200, deleted.text);
      slugs = await list('posts?context=edit&per_page=100&status=publish,draft');
      for (const id of drafts) assert.is(slugs.get(id), 'same-title');
      // Its own slug is no obstacle: the second holder's title slug is free again too.
      assert.is(slugs.get(holder2), 'same-title');
    } finally {
      await s.close();
    }
  },
);

lists.run();
