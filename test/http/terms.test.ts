/**
 * /core/v2/categories and /core/v2/tags, black-box through the app. Expected values follow WordPress 6.1 (checked
 * against the reference site). The list and count suites run on both read models.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import type { ReadModel } from '../../src/ports/readModel';
import { Projector } from '../../src/projection/runner';
import builtInProjections from '../../projections/index';
import { Dispatcher } from '../../src/rest/dispatch';
import { termRoutes } from '../../src/resources/terms/routes';
import {
  DEFAULT_CATEGORY_ID,
  descendantCategoryIds,
  ensureDefaultCategory,
  existingTermIds,
  termCounts,
} from '../../src/resources/terms/operations';

async function startSite(readModel?: ReadModel): Promise<TestSite> {
  const t = await startTestSite(readModel ? { readModel } : {});
  const { position } = await ensureDefaultCategory(t.site);
  await t.site.settle(position);
  return t;
}

const ids = (response: TestResponse): number[] => (response.body as { id: number }[]).map((item) => item.id);

/** Creates a term as `user` and returns its body, failing the test on anything but 201. */
async function make(
  t: TestSite,
  user: TestUser,
  base: 'categories' | 'tags',
  body: Record<string, unknown>,
): Promise<any> {
  const response = await t.request('POST', `/core/v2/${base}`, { as: user, body });
  assert.is(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

// ---------------------------------------------------------------------------------------------------------------
// Writes, permissions and single items (in-memory read model)

const writes = suite('terms: writes and permissions');
let w: TestSite;
let admin: TestUser;
let editor: TestUser;
let author: TestUser;
let contributor: TestUser;
let subscriber: TestUser;

writes.before.each(async () => {
  w = await startSite();
  admin = await w.createUser('admin', 'administrator');
  editor = await w.createUser('editor', 'editor');
  author = await w.createUser('author', 'author');
  contributor = await w.createUser('contributor', 'contributor');
  subscriber = await w.createUser('subscriber', 'subscriber');
});
writes.after.each(async () => w.close());

writes('the default category exists: Uncategorized, id 1, and bootstrapping again changes nothing', async () => {
  const again = await ensureDefaultCategory(w.site);
  assert.equal(again, { created: false, position: 0 });
  const { status, body } = await w.request('GET', `/core/v2/categories/${DEFAULT_CATEGORY_ID}`);
  assert.is(status, 200);
  assert.equal(
    {
      id: body.id,
      name: body.name,
      slug: body.slug,
      parent: body.parent,
      count: body.count,
      description: body.description,
    },
    { id: 1, name: 'Uncategorized', slug: 'uncategorized', parent: 0, count: 0, description: '' },
  );
  assert.is(body.link, `${w.site.settings.siteUrl}/category/uncategorized/`);
});

writes('several processes bootstrapping at once create the default category exactly once', async () => {
  const t = await startTestSite();
  try {
    const results = await Promise.all(Array.from({ length: 5 }, () => ensureDefaultCategory(t.site)));
    assert.is(results.filter((r) => r.created).length, 1);
    const events = await t.site.store.readStream('term-1');
    assert.is(events.length, 1);
    await t.site.settle(Math.max(...results.map((r) => r.position)));
    const other = await make(t, await t.createUser('boss', 'administrator'), 'categories', { name: 'Second' });
    assert.ok(other.id > 1, 'id 1 is never handed out again');
  } finally {
    await t.close();
  }
});

writes('create a category: 201, Location, the edit-context item with links', async () => {
  const response = await w.request('POST', '/core/v2/categories', {
    as: admin,
    body: { name: 'News', description: 'All the news.' },
  });
  assert.is(response.status, 201);
  const { body } = response;
  assert.is(response.headers.get('location'), `${w.site.apiRoot}core/v2/categories/${body.id}`);
  assert.equal(Object.keys(body), [
    'id',
    'count',
    'description',
    'link',
    'name',
    'slug',
    'taxonomy',
    'parent',
    'meta',
    '_links',
  ]);
  assert.equal(
    {
      count: body.count,
      description: body.description,
      name: body.name,
      slug: body.slug,
      taxonomy: body.taxonomy,
      parent: body.parent,
      meta: body.meta,
    },
    { count: 0, description: 'All the news.', name: 'News', slug: 'news', taxonomy: 'category', parent: 0, meta: [] },
  );
  assert.is(body.link, `${w.site.settings.siteUrl}/category/news/`);
  const root = w.site.apiRoot;
  assert.equal(body._links, {
    self: [{ href: `${root}core/v2/categories/${body.id}` }],
    collection: [{ href: `${root}core/v2/categories` }],
    about: [{ href: `${root}core/v2/taxonomies/category` }],
    'wp:post_type': [{ href: `${root}core/v2/posts?categories=${body.id}` }],
    curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
  });
});

writes(
  'a child category: up link, a link through its ancestors, and a slug suffixed with the parent slug',
  async () => {
    const parent = await make(w, admin, 'categories', { name: 'Sport' });
    const child = await make(w, admin, 'categories', { name: 'Football', parent: parent.id });
    const grandchild = await make(w, admin, 'categories', { name: 'Cups', parent: child.id });
    assert.is(grandchild.link, `${w.site.settings.siteUrl}/category/sport/football/cups/`);
    assert.equal(child._links.up, [{ embeddable: true, href: `${w.site.apiRoot}core/v2/categories/${parent.id}` }]);
    // The slug "sport" is taken: under a parent, WordPress first tries "sport-<parent slug>".
    const clash = await make(w, admin, 'categories', { name: 'Another', slug: 'sport', parent: child.id });
    assert.is(clash.slug, 'sport-football');
    const clash2 = await make(w, admin, 'categories', { name: 'Yet another', slug: 'sport', parent: child.id });
    assert.is(clash2.slug, 'sport-football-sport');
    const clash3 = await make(w, admin, 'categories', { name: 'And another', slug: 'sport', parent: child.id });
    assert.is(clash3.slug, 'sport-football-sport-2');
  },
);

writes('tags: slugs de-duplicated with -2 within the taxonomy only; a tag may share a category slug', async () => {
  const first = await make(w, admin, 'tags', { name: 'Blue' });
  const second = await make(w, admin, 'tags', { name: 'Navy', slug: 'blue' });
  assert.equal([first.slug, second.slug], ['blue', 'blue-2']);
  assert.is(first.link, `${w.site.settings.siteUrl}/tag/blue/`);
  assert.not.ok('parent' in first);
  const category = await make(w, admin, 'categories', { name: 'Blue' });
  assert.is(category.slug, 'blue');
});

writes('names and descriptions are stored as WordPress stores them', async () => {
  const body = await make(w, admin, 'tags', {
    name: ' Rock & <b>Roll</b> ',
    description: '<p>Loud</p> <em>music</em> <script>x</script>',
  });
  assert.is(body.name, 'Rock &amp; Roll');
  assert.is(body.slug, 'rock-roll');
  assert.is(body.description, 'Loud <em>music</em> x');
  // A name that leaves no slug gets the id.
  const symbols = await make(w, admin, 'tags', { name: '!!!' });
  assert.is(symbols.slug, String(symbols.id));
});

writes(
  "duplicate names: term_exists with the existing id, case-insensitive; a free slug of one's own allows it (categories)",
  async () => {
    const news = await make(w, admin, 'categories', { name: 'News' });
    const again = await w.request('POST', '/core/v2/categories', { as: admin, body: { name: 'news' } });
    assert.is(again.status, 400);
    assert.equal(again.body, {
      code: 'term_exists',
      message: 'A term with the name provided already exists with this parent.',
      data: { status: 400, term_id: news.id },
      additional_data: [news.id, news.id],
    });
    const ownSlug = await make(w, admin, 'categories', { name: 'News', slug: 'news-desk' });
    assert.is(ownSlug.slug, 'news-desk');
    // The same name under another parent is fine.
    const nested = await make(w, admin, 'categories', { name: 'News', parent: ownSlug.id });
    assert.is(nested.slug, 'news-news-desk');

    const tag = await make(w, admin, 'tags', { name: 'Green' });
    const tagAgain = await w.request('POST', '/core/v2/tags', { as: admin, body: { name: 'GREEN' } });
    assert.is(tagAgain.status, 400);
    assert.is(tagAgain.body.message, 'A term with the name provided already exists in this taxonomy.');
    assert.is(tagAgain.body.data.term_id, tag.id);
  },
);

writes('missing, empty and malformed names', async () => {
  const missing = await w.request('POST', '/core/v2/categories', { as: admin, body: { description: 'x' } });
  assert.equal(
    [missing.status, missing.body.code, missing.body.data.params],
    [400, 'rest_missing_callback_param', ['name']],
  );
  const empty = await w.request('POST', '/core/v2/tags', { as: admin, body: { name: '  ' } });
  assert.is(empty.status, 400);
  assert.equal(empty.body, {
    code: 'empty_term_name',
    message: 'A name is required for this term.',
    data: { status: 400 },
  });
  const notString = await w.request('POST', '/core/v2/tags', { as: admin, body: { name: ['x'] } });
  assert.equal([notString.status, notString.body.code], [400, 'rest_invalid_param']);
});

writes('parents: must be an existing category; tags take none', async () => {
  const tag = await make(w, admin, 'tags', { name: 'Orange' });
  for (const parent of [999, tag.id]) {
    const response = await w.request('POST', '/core/v2/categories', { as: admin, body: { name: 'Orphan', parent } });
    assert.equal(
      [response.status, response.body],
      [400, { code: 'rest_term_invalid', message: 'Parent term does not exist.', data: { status: 400 } }],
    );
  }
  const zero = await make(w, admin, 'categories', { name: 'Top', parent: 0 });
  assert.is(zero.parent, 0);
  const tagParent = await w.request('POST', '/core/v2/tags', { as: admin, body: { name: 'Child tag', parent: 0 } });
  assert.equal(
    [tagParent.status, tagParent.body.code, tagParent.body.message],
    [400, 'rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.'],
  );
  const tagUpdate = await w.request('POST', `/core/v2/tags/${tag.id}`, { as: admin, body: { parent: 1 } });
  assert.is(tagUpdate.body.code, 'rest_taxonomy_not_hierarchical');
});

writes('create permissions: categories need manage_categories, tags only edit_posts', async () => {
  const anonymous = await w.request('POST', '/core/v2/categories', { body: { name: 'X' } });
  assert.equal(
    [anonymous.status, anonymous.body.code, anonymous.body.message],
    [401, 'rest_cannot_create', 'Sorry, you are not allowed to create terms in this taxonomy.'],
  );
  const byAuthor = await w.request('POST', '/core/v2/categories', { as: author, body: { name: 'X' } });
  assert.equal([byAuthor.status, byAuthor.body.code], [403, 'rest_cannot_create']);
  await make(w, editor, 'categories', { name: 'By editor' });
  await make(w, author, 'tags', { name: 'By author' });
  await make(w, contributor, 'tags', { name: 'By contributor' });
  const bySubscriber = await w.request('POST', '/core/v2/tags', { as: subscriber, body: { name: 'X' } });
  assert.equal([bySubscriber.status, bySubscriber.body.code], [403, 'rest_cannot_create']);
});

writes('update and delete permissions, and the edit context, need manage_categories for both taxonomies', async () => {
  const tag = await make(w, author, 'tags', { name: 'Mine' });
  const update = await w.request('POST', `/core/v2/tags/${tag.id}`, { as: author, body: { name: 'Renamed' } });
  assert.equal(
    [update.status, update.body.code, update.body.message],
    [403, 'rest_cannot_update', 'Sorry, you are not allowed to edit this term.'],
  );
  const anonymousUpdate = await w.request('PUT', `/core/v2/tags/${tag.id}`, { body: { name: 'Renamed' } });
  assert.equal([anonymousUpdate.status, anonymousUpdate.body.code], [401, 'rest_cannot_update']);
  const remove = await w.request('DELETE', `/core/v2/tags/${tag.id}?force=true`, { as: author });
  assert.equal(
    [remove.status, remove.body.code, remove.body.message],
    [403, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this term.'],
  );
  const editItem = await w.request('GET', `/core/v2/tags/${tag.id}?context=edit`, { as: author });
  assert.equal(
    [editItem.status, editItem.body.code, editItem.body.message],
    [403, 'rest_forbidden_context', 'Sorry, you are not allowed to edit this term.'],
  );
  const editList = await w.request('GET', '/core/v2/tags?context=edit', { as: contributor });
  assert.equal(
    [editList.status, editList.body.code, editList.body.message],
    [403, 'rest_forbidden_context', 'Sorry, you are not allowed to edit terms in this taxonomy.'],
  );
  const byEditor = await w.request('PATCH', `/core/v2/tags/${tag.id}`, { as: editor, body: { name: 'Renamed' } });
  assert.equal([byEditor.status, byEditor.body.name, byEditor.body.slug], [200, 'Renamed', 'mine']);
  assert.is((await w.request('GET', `/core/v2/tags/${tag.id}?context=edit`, { as: editor })).status, 200);
});

writes('unknown ids, id 0 and ids of the other taxonomy are rest_term_invalid 404', async () => {
  const tag = await make(w, admin, 'tags', { name: 'Lonely' });
  for (const path of [
    '/core/v2/categories/999',
    '/core/v2/categories/0',
    `/core/v2/categories/${tag.id}`,
    '/core/v2/tags/1',
  ]) {
    const response = await w.request('GET', path);
    assert.equal(
      [response.status, response.body],
      [404, { code: 'rest_term_invalid', message: 'Term does not exist.', data: { status: 404 } }],
      path,
    );
  }
  const update = await w.request('POST', '/core/v2/tags/999', { as: admin, body: { name: 'x' } });
  assert.equal([update.status, update.body.code], [404, 'rest_term_invalid']);
  const remove = await w.request('DELETE', '/core/v2/tags/999?force=true', { as: admin });
  assert.equal([remove.status, remove.body.code], [404, 'rest_term_invalid']);
});

writes('update: only what is sent changes; the answer is the edit-context item', async () => {
  const term = await make(w, admin, 'categories', { name: 'Old', description: 'keep' });
  const response = await w.request('POST', `/core/v2/categories/${term.id}`, {
    as: admin,
    body: { name: 'New & improved' },
  });
  assert.is(response.status, 200);
  assert.is(response.headers.get('location'), null);
  assert.equal(
    [response.body.name, response.body.slug, response.body.description],
    ['New &amp; improved', 'old', 'keep'],
  );
  const nothing = await w.request('PUT', `/core/v2/categories/${term.id}`, { as: admin, body: {} });
  assert.equal([nothing.status, nothing.body.name], [200, 'New &amp; improved']);
  const description = await w.request('PUT', `/core/v2/categories/${term.id}`, {
    as: admin,
    body: { description: '<div>d</div>' },
  });
  assert.is(description.body.description, 'd');
});

writes(
  'update slugs: a taken slug is a 400 duplicate_term_slug (WordPress: 500); an empty slug is rebuilt from the name',
  async () => {
    const a = await make(w, admin, 'categories', { name: 'Alpha' });
    const b = await make(w, admin, 'categories', { name: 'Beta' });
    const taken = await w.request('POST', `/core/v2/categories/${b.id}`, { as: admin, body: { slug: 'alpha' } });
    assert.is(taken.status, 400);
    assert.equal(taken.body, {
      code: 'duplicate_term_slug',
      message: 'The slug &#8220;alpha&#8221; is already in use by another term.',
      data: { status: 400 },
    });
    const renamed = await w.request('POST', `/core/v2/categories/${b.id}`, {
      as: admin,
      body: { name: 'Alpha', slug: '' },
    });
    assert.equal([renamed.status, renamed.body.slug], [200, 'alpha-2']);
    // The old slug was released: another term can take it.
    const beta = await make(w, admin, 'categories', { name: 'Beta again', slug: 'beta' });
    assert.is(beta.slug, 'beta');
    // Moving under a parent with a taken slug de-duplicates instead of failing.
    const moved = await w.request('POST', `/core/v2/categories/${b.id}`, {
      as: admin,
      body: { slug: 'alpha', parent: a.id },
    });
    assert.equal([moved.status, moved.body.slug, moved.body.parent], [200, 'alpha-alpha', a.id]);
  },
);

writes('update parents: a loop makes the term top-level; a missing parent is refused', async () => {
  const top = await make(w, admin, 'categories', { name: 'Top' });
  const middle = await make(w, admin, 'categories', { name: 'Middle', parent: top.id });
  const bottom = await make(w, admin, 'categories', { name: 'Bottom', parent: middle.id });
  const self = await w.request('POST', `/core/v2/categories/${middle.id}`, { as: admin, body: { parent: middle.id } });
  assert.is(self.body.parent, 0);
  const loop = await w.request('POST', `/core/v2/categories/${top.id}`, { as: admin, body: { parent: bottom.id } });
  assert.is(loop.body.parent, bottom.id, 'no loop any more: middle was made top-level');
  const middleAgain = await w.request('POST', `/core/v2/categories/${middle.id}`, {
    as: admin,
    body: { parent: top.id },
  });
  assert.is(middleAgain.body.parent, 0, 'top sits under bottom, which sits under middle');
  const missing = await w.request('POST', `/core/v2/categories/${top.id}`, { as: admin, body: { parent: 9999 } });
  assert.equal([missing.status, missing.body.code], [400, 'rest_term_invalid']);
});

writes('delete: force is required; the answer is the term as it was, without links', async () => {
  const term = await make(w, admin, 'tags', { name: 'Temporary' });
  const soft = await w.request('DELETE', `/core/v2/tags/${term.id}`, { as: admin });
  assert.equal(
    [soft.status, soft.body],
    [
      501,
      {
        code: 'rest_trash_not_supported',
        message: "Terms do not support trashing. Set 'force=true' to delete.",
        data: { status: 501 },
      },
    ],
  );
  const hard = await w.request('DELETE', `/core/v2/tags/${term.id}?force=true`, { as: admin });
  assert.is(hard.status, 200);
  assert.equal(hard.body, {
    deleted: true,
    previous: {
      id: term.id,
      count: 0,
      description: '',
      link: term.link,
      name: 'Temporary',
      slug: 'temporary',
      taxonomy: 'post_tag',
      meta: [],
    },
  });
  assert.is((await w.request('GET', `/core/v2/tags/${term.id}`)).status, 404);
  const reused = await make(w, admin, 'tags', { name: 'Temporary' });
  assert.is(reused.slug, 'temporary', 'the slug was freed');
});

writes('the default category cannot be deleted, by anyone', async () => {
  const byAdmin = await w.request('DELETE', '/core/v2/categories/1?force=true', { as: admin });
  assert.equal([byAdmin.status, byAdmin.body.code], [403, 'rest_cannot_delete']);
  const anonymous = await w.request('DELETE', '/core/v2/categories/1?force=true');
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_delete']);
});

writes('deleting a category moves its children up to its parent', async () => {
  const top = await make(w, admin, 'categories', { name: 'Top' });
  const middle = await make(w, admin, 'categories', { name: 'Middle', parent: top.id });
  const left = await make(w, admin, 'categories', { name: 'Left', parent: middle.id });
  const right = await make(w, admin, 'categories', { name: 'Right', parent: middle.id });
  const removed = await w.request('DELETE', `/core/v2/categories/${middle.id}?force=true`, { as: admin });
  assert.is(removed.body.previous.parent, top.id);
  const children = await w.request('GET', `/core/v2/categories?parent=${top.id}`);
  assert.equal(ids(children), [left.id, right.id]);
  assert.is(children.body[0].link, `${w.site.settings.siteUrl}/category/top/left/`);
});

writes('after a delete, the afterDelete hook runs with the term, the caller and the request', async () => {
  const term = await make(w, admin, 'tags', { name: 'Hooked' });
  const calls: unknown[] = [];
  const dispatcher = new Dispatcher(
    termRoutes(w.site, {
      afterDelete: async (...args) => {
        calls.push(args);
        return 0;
      },
    }),
    { apiRoot: w.site.apiRoot },
  );
  const actor = { id: admin.id, roles: ['administrator' as const] };
  const request = {
    method: 'DELETE',
    path: `/core/v2/tags/${term.id}`,
    query: { force: 'true' },
    json: null,
    form: null,
    headers: {},
    actor,
    requestId: 'req-1',
  };
  const result = await dispatcher.dispatch(request);
  assert.is(result.status, 200);
  assert.equal(calls, [['post_tag', term.id, actor, 'req-1']]);
});

writes('terms are batchable: the index says so and /batch/v1 runs them', async () => {
  const index = await w.request('GET', '/core/v2');
  for (const route of [
    '/core/v2/categories',
    '/core/v2/categories/(?P<id>[\\d]+)',
    '/core/v2/tags',
    '/core/v2/tags/(?P<id>[\\d]+)',
  ]) {
    for (const endpoint of index.body.routes[route].endpoints) assert.equal(endpoint.allow_batch, { v1: true }, route);
  }
  const batch = await w.request('POST', '/batch/v1', {
    as: admin,
    body: {
      requests: [
        { path: '/core/v2/tags', body: { name: 'One' } },
        { path: '/core/v2/tags', body: { name: 'one' } },
      ],
    },
  });
  assert.is(batch.status, 207);
  assert.equal(
    batch.body.responses.map((r: { status: number }) => r.status),
    [201, 400],
  );
});

writes('parallel creates get distinct ids and slugs', async () => {
  const responses = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      w.request('POST', '/core/v2/tags', { as: admin, body: { name: `Same ${i}`, slug: 'same' } }),
    ),
  );
  assert.ok(responses.every((r) => r.status === 201));
  const slugs = new Set(responses.map((r) => r.body.slug));
  const created = new Set(responses.map((r) => r.body.id));
  assert.is(slugs.size, 12);
  assert.is(created.size, 12);
  assert.ok(slugs.has('same') && slugs.has('same-12'));
});

writes('the read model rebuilt from the log equals the live one', async () => {
  const parent = await make(w, admin, 'categories', { name: 'P' });
  await make(w, admin, 'categories', { name: 'C', parent: parent.id });
  const tag = await make(w, admin, 'tags', { name: 'T' });
  await w.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'x', status: 'publish', categories: [parent.id], tags: [tag.id] },
  });
  await w.request('DELETE', `/core/v2/categories/${parent.id}?force=true`, { as: admin });
  const rebuilt = createMemoryReadModel();
  const projector = new Projector({ store: w.site.store, readModel: rebuilt, projections: builtInProjections });
  await projector.start();
  for (const collection of ['term', 'term_membership']) {
    const plan = {
      filters: [],
      order: { kind: 'field', field: 'id', direction: 'asc' } as const,
      offset: 0,
      limit: null,
    };
    assert.equal(
      (await rebuilt.query(collection, plan)).items,
      (await w.site.readModel.query(collection, plan)).items,
      collection,
    );
  }
  await projector.stop();
});

writes.run();

// ---------------------------------------------------------------------------------------------------------------
// Lists, counts and the posts slice's questions, on both read models

const adapters: [string, () => { readModel: ReadModel; cleanup(): Promise<void> }][] = [
  ['memory', () => ({ readModel: createMemoryReadModel(), cleanup: async () => {} })],
  ['redis', testRedisReadModel],
];

for (const [adapterName, open] of adapters) {
  const lists = suite(`terms: lists and counts (${adapterName} read model)`);
  let t: TestSite;
  let boss: TestUser;
  let cleanup: () => Promise<void>;
  /** Categories: Apple, Banana (child of Apple), cherry, Date (child of Banana); tags: Red, green, Blue. */
  let cat: Record<string, number>;
  let tag: Record<string, number>;

  lists.before.each(async () => {
    const opened = open();
    cleanup = opened.cleanup;
    t = await startSite(opened.readModel);
    boss = await t.createUser('boss', 'administrator');
    const apple = await make(t, boss, 'categories', { name: 'Apple', description: 'b' });
    const banana = await make(t, boss, 'categories', { name: 'Banana', parent: apple.id, description: 'a' });
    const cherry = await make(t, boss, 'categories', { name: 'cherry', description: 'b' });
    const date = await make(t, boss, 'categories', { name: 'Date', parent: banana.id });
    cat = { apple: apple.id, banana: banana.id, cherry: cherry.id, date: date.id };
    const red = await make(t, boss, 'tags', { name: 'Red' });
    const green = await make(t, boss, 'tags', { name: 'green', slug: 'leaf' });
    const blue = await make(t, boss, 'tags', { name: 'Blue' });
    tag = { red: red.id, green: green.id, blue: blue.id };
  });
  lists.after.each(async () => {
    await t.close();
    await cleanup();
  });

  const post = async (body: Record<string, unknown>) => {
    const response = await t.request('POST', '/core/v2/posts', { as: boss, body: { title: 'A post', ...body } });
    assert.is(response.status, 201, JSON.stringify(response.body));
    return response.body.id as number;
  };

  lists('default list: by name ascending (case-insensitively), 10 a page, with totals', async () => {
    const response = await t.request('GET', '/core/v2/categories');
    assert.equal(ids(response), [cat.apple, cat.banana, cat.cherry, cat.date, 1]);
    assert.is(response.headers.get('x-wp-total'), '5');
    assert.is(response.headers.get('x-wp-totalpages'), '1');
    const tags = await t.request('GET', '/core/v2/tags');
    assert.equal(ids(tags), [tag.blue, tag.green, tag.red]);
  });

  lists('an offset or page beyond 2^53 is an empty page; a parent of "1e400" is 0, the top level', async () => {
    for (const query of [
      'tags?offset=9007199254740993',
      'tags?page=9007199254740993',
      'categories?page=9007199254740993',
    ]) {
      const response = await t.request('GET', `/core/v2/${query}&_fields=id`);
      assert.equal([response.status, response.body], [200, []], query);
    }
    // "1e400" overflows to 0, as PHP casts it: the first page.
    const first = await t.request('GET', '/core/v2/tags?offset=1e400&_fields=id');
    assert.equal(first.body, (await t.request('GET', '/core/v2/tags?_fields=id')).body);
    const top = await t.request('GET', '/core/v2/categories?parent=1e400&_fields=id');
    const zero = await t.request('GET', '/core/v2/categories?parent=0&_fields=id');
    assert.is(top.status, 200);
    assert.equal(top.body, zero.body);
  });

  lists('paging: Link headers, and a page past the end is an empty 200 (terms have no page error)', async () => {
    const second = await t.request('GET', '/core/v2/categories?per_page=2&page=2');
    assert.equal(ids(second), [cat.cherry, cat.date]);
    assert.is(second.headers.get('x-wp-totalpages'), '3');
    const base = `${t.site.apiRoot}core/v2/categories`;
    assert.is(
      second.headers.get('link'),
      `<${base}?per_page=2&page=1>; rel="prev", <${base}?per_page=2&page=3>; rel="next"`,
    );
    const beyond = await t.request('GET', '/core/v2/categories?per_page=2&page=9');
    assert.equal([beyond.status, beyond.body], [200, []]);
    assert.is(beyond.headers.get('x-wp-total'), '5');
    assert.is(beyond.headers.get('link'), `<${base}?per_page=2&page=3>; rel="prev"`);
    const written = await t.request('GET', `/core/v2/tags?include=${tag.red},${tag.blue}&per_page=1&hide_empty=false`);
    assert.is(
      written.headers.get('link'),
      `<${t.site.apiRoot}core/v2/tags?include%5B0%5D=${tag.red}&include%5B1%5D=${tag.blue}&per_page=1&hide_empty&page=2>; rel="next"`,
      'parameters are repeated as validated, as WordPress does',
    );
    const tooMany = await t.request('GET', '/core/v2/tags?per_page=101');
    assert.equal([tooMany.status, tooMany.body.code], [400, 'rest_invalid_param']);
  });

  lists('offset: tags take it (and report the page it falls in); categories ignore it', async () => {
    const tags = await t.request('GET', '/core/v2/tags?offset=1&per_page=1');
    assert.equal(ids(tags), [tag.green]);
    const base = `${t.site.apiRoot}core/v2/tags`;
    assert.is(
      tags.headers.get('link'),
      `<${base}?offset=1&per_page=1&page=1>; rel="prev", <${base}?offset=1&per_page=1&page=3>; rel="next"`,
    );
    const categories = await t.request('GET', '/core/v2/categories?offset=1&per_page=2');
    assert.equal(ids(categories), [cat.apple, cat.banana]);
  });

  lists('orders: id, slug, name and description both ways, with ties by ascending id', async () => {
    const order = async (query: string) => ids(await t.request('GET', `/core/v2/categories?${query}`));
    assert.equal(await order('orderby=id&order=desc'), [cat.date, cat.cherry, cat.banana, cat.apple, 1]);
    assert.equal(await order('orderby=slug&order=desc'), [1, cat.date, cat.cherry, cat.banana, cat.apple]);
    assert.equal(await order('orderby=name&order=desc'), [1, cat.date, cat.cherry, cat.banana, cat.apple]);
    // Descriptions: "" (1, date), "a" (banana), "b" (apple, cherry).
    assert.equal(await order('orderby=description'), [1, cat.date, cat.banana, cat.apple, cat.cherry]);
    assert.equal(await order('orderby=description&order=desc'), [cat.apple, cat.cherry, cat.banana, 1, cat.date]);
    assert.equal(await order('orderby=term_group&order=desc'), [1, cat.apple, cat.banana, cat.cherry, cat.date]);
  });

  lists('include (with its order, reversed by desc), exclude (ignored with include), include_slugs, slug', async () => {
    const get = async (query: string) => ids(await t.request('GET', `/core/v2/categories?${query}`));
    assert.equal(await get(`include=${cat.cherry},1,${cat.apple}&orderby=include`), [cat.cherry, 1, cat.apple]);
    assert.equal(await get(`include=${cat.cherry},1,${cat.apple}&orderby=include&order=desc`), [
      cat.apple,
      1,
      cat.cherry,
    ]);
    assert.equal(await get(`include=${cat.cherry},1&exclude=1`), [cat.cherry, 1]);
    assert.equal(await get(`exclude=1,${cat.apple}`), [cat.banana, cat.cherry, cat.date]);
    assert.equal(await get('orderby=include'), [cat.apple, cat.banana, cat.cherry, cat.date, 1], 'no include: by name');
    assert.equal(await get('slug=date,apple&orderby=include_slugs'), [cat.date, cat.apple]);
    assert.equal(await get('slug[]=Cherry&slug[]=nothing'), [cat.cherry]);
  });

  lists('search: a case-insensitive substring of the name or the slug', async () => {
    assert.equal(ids(await t.request('GET', '/core/v2/tags?search=GRE')), [tag.green]);
    assert.equal(ids(await t.request('GET', '/core/v2/tags?search=lea')), [tag.green], 'by slug');
    assert.equal(ids(await t.request('GET', '/core/v2/categories?search=an')), [cat.banana]);
    assert.equal(
      ids(await t.request('GET', '/core/v2/categories?search=%20')),
      [cat.apple, cat.banana, cat.cherry, cat.date, 1],
      'blank: no filter',
    );
  });

  lists('parent: 0 lists top-level categories, an id its direct children', async () => {
    assert.equal(ids(await t.request('GET', '/core/v2/categories?parent=0')), [cat.apple, cat.cherry, 1]);
    assert.equal(ids(await t.request('GET', `/core/v2/categories?parent=${cat.apple}`)), [cat.banana]);
    const none = await t.request('GET', '/core/v2/categories?parent=999');
    assert.equal([none.body, none.headers.get('x-wp-total'), none.headers.get('x-wp-totalpages')], [[], '0', '0']);
  });

  lists('counts: published posts only, following status and term changes', async () => {
    const count = async (base: string, id: number) =>
      (await t.request('GET', `/core/v2/${base}/${id}`)).body.count as number;
    const published = await post({ status: 'publish', categories: [cat.apple, cat.cherry], tags: [tag.red] });
    await post({ status: 'draft', categories: [cat.apple], tags: [tag.red] });
    await post({ status: 'private', categories: [cat.apple] });
    assert.equal(
      [await count('categories', cat.apple), await count('categories', cat.cherry), await count('tags', tag.red)],
      [1, 1, 1],
    );
    await t.request('POST', `/core/v2/posts/${published}`, { as: boss, body: { categories: [cat.banana] } });
    assert.equal(
      [await count('categories', cat.apple), await count('categories', cat.banana), await count('tags', tag.red)],
      [0, 1, 1],
    );
    await t.request('POST', `/core/v2/posts/${published}`, { as: boss, body: { status: 'draft' } });
    assert.is(await count('categories', cat.banana), 0);
    await t.request('POST', `/core/v2/posts/${published}`, { as: boss, body: { status: 'publish' } });
    assert.is(await count('categories', cat.banana), 1);
    await t.request('DELETE', `/core/v2/posts/${published}`, { as: boss });
    assert.is(await count('categories', cat.banana), 0, 'trashed');
    const other = await post({ status: 'publish', tags: [tag.blue] });
    assert.is(await count('tags', tag.blue), 1);
    await t.request('DELETE', `/core/v2/posts/${other}?force=true`, { as: boss });
    assert.is(await count('tags', tag.blue), 0, 'deleted');
    await post({ status: 'publish', tags: [tag.red] });
    const list = await t.request('GET', '/core/v2/tags');
    assert.equal(
      list.body.map((item: { count: number }) => item.count),
      [0, 0, 1],
    );
  });

  lists('orderby=count: by published posts, ties by ascending id in both directions', async () => {
    await post({ status: 'publish', categories: [cat.cherry] });
    await post({ status: 'publish', categories: [cat.cherry, cat.date] });
    const desc = await t.request('GET', '/core/v2/categories?orderby=count&order=desc&per_page=3');
    assert.equal(ids(desc), [cat.cherry, cat.date, 1]);
    assert.is(desc.headers.get('x-wp-total'), '5');
    const asc = await t.request('GET', '/core/v2/categories?orderby=count&per_page=3&page=2');
    assert.equal(ids(asc), [cat.date, cat.cherry]);
  });

  lists(
    'hide_empty: empty tags go; an empty category stays while a descendant has posts, but only counted ones are totalled',
    async () => {
      await post({ status: 'publish', categories: [cat.date], tags: [tag.green] });
      await post({ status: 'draft', tags: [tag.red] });
      const tags = await t.request('GET', '/core/v2/tags?hide_empty=true');
      assert.equal([ids(tags), tags.headers.get('x-wp-total')], [[tag.green], '1']);
      const categories = await t.request('GET', '/core/v2/categories?hide_empty=1');
      assert.equal(ids(categories), [cat.apple, cat.banana, cat.date]);
      assert.is(categories.headers.get('x-wp-total'), '1');
    },
  );

  lists('post: the terms of one post, readable by whoever may read the post', async () => {
    const published = await post({ status: 'publish', categories: [cat.cherry, cat.apple], tags: [tag.red, tag.blue] });
    const terms = await t.request('GET', `/core/v2/categories?post=${published}`);
    assert.equal([ids(terms), terms.headers.get('x-wp-total')], [[cat.apple, cat.cherry], '2']);
    assert.equal(ids(await t.request('GET', `/core/v2/tags?post=${published}&orderby=id&order=desc`)), [
      tag.blue,
      tag.red,
    ]);
    assert.equal(
      ids(await t.request('GET', `/core/v2/categories?post=${published}&hide_empty=true`)),
      [cat.apple, cat.cherry],
      'hide_empty does not apply',
    );
    const draft = await post({ status: 'draft', categories: [cat.apple] });
    const hidden = await t.request('GET', `/core/v2/categories?post=${draft}`);
    assert.equal(
      [hidden.status, hidden.body.code, hidden.body.message],
      [401, 'rest_forbidden_context', 'Sorry, you are not allowed to view terms for this post.'],
    );
    assert.equal(ids(await t.request('GET', `/core/v2/categories?post=${draft}`, { as: boss })), [cat.apple]);
    const missing = await t.request('GET', '/core/v2/categories?post=99999');
    assert.equal(
      [missing.status, missing.body],
      [400, { code: 'rest_post_invalid_id', message: 'Invalid post ID.', data: { status: 400 } }],
    );
    const page = await t.request('POST', '/core/v2/pages', { as: boss, body: { title: 'A page', status: 'publish' } });
    const ofPage = await t.request('GET', `/core/v2/tags?post=${page.body.id}`, { as: boss });
    assert.equal([ofPage.status, ofPage.body.code], [403, 'rest_forbidden_context']);
    assert.is((await t.request('GET', '/core/v2/tags?post=0')).headers.get('x-wp-total'), '3', 'post=0: no filter');
  });

  lists('contexts: embed keeps id, link, name, slug, taxonomy; edit is for managers', async () => {
    const embed = await t.request('GET', `/core/v2/categories/${cat.banana}?context=embed`);
    assert.equal(Object.keys(embed.body), ['id', 'link', 'name', 'slug', 'taxonomy', '_links']);
    const edit = await t.request('GET', '/core/v2/tags?context=edit', { as: boss });
    assert.equal(Object.keys(edit.body[0]), [
      'id',
      'count',
      'description',
      'link',
      'name',
      'slug',
      'taxonomy',
      'meta',
      '_links',
    ]);
    const fields = await t.request('GET', `/core/v2/categories?_fields=id,parent&include=${cat.banana}`);
    assert.equal(fields.body, [{ id: cat.banana, parent: cat.apple }]);
  });

  lists('what the posts slice asks: existing ids (by name), descendants, counts', async () => {
    assert.equal(await existingTermIds(t.site, 'category', [cat.cherry, 999, tag.red, cat.apple, cat.cherry]), [
      cat.apple,
      cat.cherry,
    ]);
    assert.equal(await existingTermIds(t.site, 'post_tag', [tag.red, cat.apple, tag.blue]), [tag.blue, tag.red]);
    assert.equal(await existingTermIds(t.site, 'post_tag', []), []);
    assert.equal(await descendantCategoryIds(t.site, [cat.apple]), [cat.apple, cat.banana, cat.date]);
    assert.equal(await descendantCategoryIds(t.site, [cat.banana, cat.cherry, cat.banana]), [
      cat.banana,
      cat.cherry,
      cat.date,
    ]);
    await post({ status: 'publish', categories: [cat.apple], tags: [tag.red] });
    const counts = await termCounts(t.site, 'category', [cat.apple, cat.banana]);
    assert.equal(
      [...counts],
      [
        [cat.apple, 1],
        [cat.banana, 0],
      ],
    );
  });

  lists.run();
}
