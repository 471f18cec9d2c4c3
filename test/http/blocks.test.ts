/**
 * /core/v2/blocks: reusable blocks (the wp_block post type), with their revisions, autosaves and history. Shapes,
 * contexts and refusals are those the reference WordPress 6.1 answers (recorded from `GET /wp-json/wp/v2/blocks…`
 * on it, ids aside).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('reusable blocks');
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let author: TestUser;
let contributor: TestUser;
let subscriber: TestUser;

test.before(async () => {
  t = await startTestSite({ timezone: 'Europe/Berlin' });
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  author = await t.createUser('author', 'author');
  contributor = await t.createUser('contributor', 'contributor');
  subscriber = await t.createUser('subscriber', 'subscriber');
});
test.after(async () => t.close());

const MARKUP = '<!-- wp:paragraph -->\n<p>Hello "quoted"</p>\n<!-- /wp:paragraph -->';
const create = (body: Record<string, unknown>, as: TestUser = admin) =>
  t.request('POST', '/core/v2/blocks', { as, body });

test('created: the block fields only, title and content raw, with the links of a block', async () => {
  const { status, body, headers } = await create({ title: 'Greeting', content: MARKUP, status: 'publish' });
  assert.is(status, 201);
  assert.is(headers.get('location'), `${t.url}/core/v2/blocks/${body.id}`);
  assert.equal(Object.keys(body), [
    'id',
    'date',
    'date_gmt',
    'guid',
    'modified',
    'modified_gmt',
    'password',
    'slug',
    'status',
    'type',
    'link',
    'title',
    'content',
    'template',
    '_links',
  ]);
  assert.equal(
    [body.type, body.slug, body.status, body.link],
    ['wp_block', 'greeting', 'publish', `${t.url}/greeting/`],
  );
  assert.equal(body.title, { raw: 'Greeting' });
  assert.equal(body.content, { raw: MARKUP, protected: false, block_version: 1 });
  assert.equal(Object.keys(body._links), [
    'self',
    'collection',
    'about',
    'version-history',
    'wp:attachment',
    'wp:action-publish',
    'wp:action-unfiltered-html',
    'curies',
  ]);
  assert.equal(body._links.about, [{ href: `${t.url}/core/v2/types/wp_block` }]);
});

test('view and embed contexts: raw in view (never rendered), an empty title list in embed', async () => {
  const { body: made } = await create({ title: 'Contexts', content: MARKUP, status: 'publish' });
  const view = await t.request('GET', `/core/v2/blocks/${made.id}`, { as: author });
  assert.is(view.status, 200);
  assert.equal(Object.keys(view.body), [
    'id',
    'date',
    'date_gmt',
    'guid',
    'modified',
    'modified_gmt',
    'slug',
    'status',
    'type',
    'link',
    'title',
    'content',
    'template',
    '_links',
  ]);
  assert.equal(view.body.guid, { rendered: `${t.url}/contexts/` });
  assert.equal(view.body.content, { raw: MARKUP, protected: false });
  const embed = await t.request('GET', `/core/v2/blocks/${made.id}?context=embed`, { as: author });
  assert.equal(Object.keys(embed.body), ['id', 'date', 'slug', 'type', 'link', 'title', '_links']);
  assert.equal(embed.body.title, []);
});

test('reading takes edit_posts: anonymous 401 and subscriber 403 on an item; lists keep counting what they leave out', async () => {
  const { body: made } = await create({ title: 'Hidden from readers', content: 'x', status: 'publish' });
  const anonymous = await t.request('GET', `/core/v2/blocks/${made.id}`);
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_forbidden']);
  const sub = await t.request('GET', `/core/v2/blocks/${made.id}`, { as: subscriber });
  assert.equal([sub.status, sub.body.code], [403, 'rest_forbidden']);
  for (const who of [null, subscriber]) {
    const list = await t.request('GET', `/core/v2/blocks?include=${made.id}`, { as: who });
    assert.equal([list.status, list.body, list.headers.get('x-wp-total')], [200, [], '1']);
  }
  const readers = await t.request('GET', `/core/v2/blocks?include=${made.id}`, { as: contributor });
  assert.equal(
    readers.body.map((b: any) => b.id),
    [made.id],
  );
  const edit = await t.request('GET', '/core/v2/blocks?context=edit');
  assert.equal(
    [edit.status, edit.body.code, edit.body.message],
    [401, 'rest_forbidden_context', 'Sorry, you are not allowed to edit posts in this post type.'],
  );
});

test('the edit context lists only the blocks the caller may edit, and refuses an item to others', async () => {
  const { body: made } = await create({ title: 'Administrators only', content: 'x', status: 'publish' });
  for (const [who, listed] of [
    [contributor, false],
    [author, false],
    [editor, true],
    [admin, true],
  ] as const) {
    const list = await t.request('GET', `/core/v2/blocks?context=edit&per_page=100&include=${made.id}`, { as: who });
    assert.is(
      list.body.some((b: any) => b.id === made.id),
      listed,
      who.login,
    );
    assert.is(list.headers.get('x-wp-total'), '1');
  }
  const refused = await t.request('GET', `/core/v2/blocks/${made.id}?context=edit`, { as: author });
  assert.equal(
    [refused.status, refused.body.code, refused.body.message],
    [403, 'rest_forbidden_context', 'Sorry, you are not allowed to edit this post.'],
  );
});

test('creating takes publish_posts: contributors, subscribers and anonymous callers are refused', async () => {
  for (const [who, status] of [
    [contributor, 403],
    [subscriber, 403],
  ] as const) {
    const refused = await create({ title: 'No', content: 'x' }, who);
    assert.equal([refused.status, refused.body.code], [status, 'rest_cannot_create']);
  }
  const anonymous = await t.request('POST', '/core/v2/blocks', { body: { title: 'No' } });
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  const byAuthor = await create({ title: 'Mine', content: 'x', status: 'publish' }, author);
  assert.is(byAuthor.status, 201);
  // An author has no unfiltered HTML.
  assert.equal(
    Object.keys(byAuthor.body._links).filter((rel) => rel.startsWith('wp:action')),
    ['wp:action-publish'],
  );
});

test('an empty block may be saved; fields of other types are not arguments', async () => {
  const empty = await create({ title: '', content: '' });
  assert.equal(
    [empty.status, empty.body.status, empty.body.slug, empty.body.link],
    [201, 'draft', '', `${t.url}/?p=${empty.body.id}`],
  );
  const extra = await create({
    title: 'Extra',
    content: 'x',
    author: editor.id,
    excerpt: 'e',
    sticky: true,
    categories: [1],
  });
  assert.is(extra.status, 201);
  assert.equal(
    ['author', 'excerpt', 'sticky', 'categories'].filter((field) => field in extra.body),
    [],
  );
  const options = await t.request('OPTIONS', '/core/v2/blocks', { as: admin });
  assert.equal(Object.keys(options.body.endpoints[1].args), [
    'date',
    'date_gmt',
    'slug',
    'status',
    'password',
    'title',
    'content',
    'template',
  ]);
  assert.equal(Object.keys(options.body.endpoints[0].args), [
    'context',
    'page',
    'per_page',
    'search',
    'after',
    'modified_after',
    'before',
    'modified_before',
    'exclude',
    'include',
    'offset',
    'order',
    'orderby',
    'slug',
    'status',
  ]);
  assert.equal(
    options.body.schema.links.map((link: any) => link.rel),
    ['https://api.w.org/action-publish', 'https://api.w.org/action-unfiltered-html'],
  );
});

test('hostile input: wrong types, unknown statuses, ids out of range, are 400 or 404, never 500', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ title: { raw: 5 } }, 'rest_invalid_param'],
    [{ status: 'inherit' }, 'rest_invalid_param'],
    [{ date: 'yesterday' }, 'rest_invalid_param'],
    [{ template: 'no-such-template.php' }, 'rest_invalid_param'],
  ];
  for (const [body, code] of cases) {
    const refused = await create(body);
    assert.equal([refused.status, refused.body.code], [400, code], JSON.stringify(body));
  }
  // A list where text is expected is read as an object without `raw`, as WordPress reads it: nothing is set.
  const list = await create({ title: 'List content', content: ['x'] });
  assert.equal([list.status, list.body.content.raw], [201, '']);
  for (const path of ['/core/v2/blocks/99999999', '/core/v2/blocks/99999999999999999999999']) {
    const missing = await t.request('GET', path, { as: admin });
    assert.equal([missing.status, missing.body.code], [404, 'rest_post_invalid_id'], path);
  }
  const { body: post } = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'A post', status: 'publish' },
  });
  const notABlock = await t.request('GET', `/core/v2/blocks/${post.id}`, { as: admin });
  assert.equal([notABlock.status, notABlock.body.code], [404, 'rest_post_invalid_id']);
  const { body: block } = await create({ title: 'Not a post', content: 'x', status: 'publish' });
  assert.is((await t.request('GET', `/core/v2/posts/${block.id}`, { as: admin })).status, 404);
  const badList = await t.request('GET', '/core/v2/blocks?per_page=1000', { as: admin });
  assert.equal([badList.status, badList.body.code], [400, 'rest_invalid_param']);
});

test('saving with the method override (as the block editor does) makes a revision; autosaves and history as for posts', async () => {
  const { body: made } = await create({ title: 'Versioned', content: MARKUP, status: 'publish' });
  const saved = await t.request('POST', `/core/v2/blocks/${made.id}`, {
    as: admin,
    headers: { 'X-HTTP-Method-Override': 'PUT' },
    body: { content: '<p>Changed</p>' },
  });
  assert.equal([saved.status, saved.body.content.raw], [200, '<p>Changed</p>']);
  assert.is(saved.body._links['version-history'][0].count, 1);
  const revisions = await t.request('GET', `/core/v2/blocks/${made.id}/revisions?per_page=100&context=edit`, {
    as: admin,
  });
  assert.is(revisions.status, 200);
  assert.is(revisions.body.length, 1);
  const [revision] = revisions.body;
  assert.equal(Object.keys(revision), [
    'author',
    'date',
    'date_gmt',
    'guid',
    'id',
    'modified',
    'modified_gmt',
    'parent',
    'slug',
    'title',
    'content',
    '_links',
  ]);
  assert.equal(
    [revision.parent, revision.slug, revision.title, revision.content.raw],
    [made.id, `${made.id}-revision-v1`, { raw: 'Versioned', rendered: 'Versioned' }, '<p>Changed</p>'],
  );
  // In the view context too, the block's title and content are raw.
  const view = await t.request('GET', `/core/v2/blocks/${made.id}/revisions`, { as: admin });
  assert.equal(view.body[0].title, { raw: 'Versioned', rendered: 'Versioned' });
  assert.equal(view.body[0].guid, { rendered: `${t.url}/?p=${revision.id}` });

  const autosave = await t.request('POST', `/core/v2/blocks/${made.id}/autosaves`, {
    as: admin,
    body: { title: 'Draft title', content: 'autosaved' },
  });
  assert.is(autosave.status, 200);
  assert.equal(
    [autosave.body.slug, autosave.body.preview_link, 'excerpt' in autosave.body],
    [`${made.id}-autosave-v1`, '', false],
  );
  const autosaves = await t.request('GET', `/core/v2/blocks/${made.id}/autosaves`, { as: admin });
  assert.equal(
    autosaves.body.map((a: any) => a.content.raw),
    ['autosaved'],
  );
  const refused = await t.request('GET', `/core/v2/blocks/${made.id}/revisions`, { as: author });
  assert.equal([refused.status, refused.body.code], [403, 'rest_cannot_read']);

  const history = await t.request('GET', `/core/v2/blocks/${made.id}/history`, { as: admin });
  assert.equal(
    history.body.map((entry: any) => entry.type),
    ['PostCreated', 'PostUpdated', 'PostRevised', 'PostAutosaved'],
  );
  const restored = await t.request('POST', `/core/v2/blocks/${made.id}/revisions/${revision.id}/restore`, {
    as: admin,
  });
  assert.equal([restored.status, restored.body.content.raw], [200, '<p>Changed</p>']);
});

test('trash and delete; the slug is freed and reused', async () => {
  const { body: made } = await create({ title: 'Short lived', content: 'x', status: 'publish' });
  const trashed = await t.request('DELETE', `/core/v2/blocks/${made.id}`, { as: admin });
  assert.equal([trashed.status, trashed.body.status], [200, 'trash']);
  const deleted = await t.request('DELETE', `/core/v2/blocks/${made.id}?force=true`, { as: admin });
  assert.equal([deleted.status, deleted.body.deleted, deleted.body.previous.id], [200, true, made.id]);
  const again = await create({ title: 'Short lived', content: 'y', status: 'publish' });
  assert.is(again.body.slug, 'short-lived');
  const byAuthor = await t.request('DELETE', `/core/v2/blocks/${again.body.id}`, { as: author });
  assert.equal([byAuthor.status, byAuthor.body.code], [403, 'rest_cannot_delete']);
});

test("WordPress 6.1's block capabilities: nobody deletes their own unpublished block or reads another's private one", async () => {
  const { body: draft } = await create({ title: 'Own draft', content: 'x', status: 'draft' }, editor);
  const own = await t.request('DELETE', `/core/v2/blocks/${draft.id}`, { as: editor });
  assert.equal([own.status, own.body.code], [403, 'rest_cannot_delete']);
  // Someone else's draft takes delete_others_posts only.
  assert.is((await t.request('DELETE', `/core/v2/blocks/${draft.id}`, { as: admin })).status, 200);
  const { body: secret } = await create({ title: 'Private block', content: 'x', status: 'private' }, editor);
  for (const [method, code] of [
    ['GET', 'rest_forbidden'],
    ['POST', 'rest_cannot_edit'],
    ['DELETE', 'rest_cannot_delete'],
  ] as const) {
    const refused = await t.request(method, `/core/v2/blocks/${secret.id}`, {
      as: admin,
      ...(method === 'POST' ? { body: { title: 'x' } } : {}),
    });
    assert.equal([refused.status, refused.body.code], [403, code], method);
  }
  const listed = await t.request('GET', `/core/v2/blocks?status=private&include=${secret.id}`, { as: admin });
  assert.equal([listed.body, listed.headers.get('x-wp-total')], [[], '1']);
  assert.equal(
    (await t.request('GET', `/core/v2/blocks?status=private&include=${secret.id}`, { as: editor })).body.map(
      (b: any) => b.id,
    ),
    [secret.id],
  );
});

test('under /wp-json/ the links and the type say wp/v2, and the types list has wp_block', async () => {
  const { body: made } = await create({ title: 'Dialect', content: 'x', status: 'publish' });
  const read = await t.request('GET', `/wp-json/wp/v2/blocks/${made.id}?_locale=user`, { as: admin });
  assert.equal(read.body._links.self, [{ href: `${t.url}/wp-json/wp/v2/blocks/${made.id}` }]);
  const types = await t.request('GET', '/wp-json/wp/v2/types?context=view&_locale=user', { as: admin });
  assert.equal([types.body.wp_block.rest_base, types.body.wp_block.rest_namespace], ['blocks', 'wp/v2']);
});

test.run();
