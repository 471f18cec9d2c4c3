/**
 * Content filtering through the API: what each role's title, content and excerpt become when saved by create,
 * update and autosave. The filtered values are those the reference WordPress 6.1.9 stores for a contributor
 * and an author given the same input (except `<img … />`, which it keeps as `<img …>`).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('content filtering');
let t: TestSite;
const users: Record<string, TestUser> = {};

const SENT = {
  title: '<script>x</script>T<b onclick="1">B</b><p>p</p>',
  content: '<!-- wp:paragraph -->\n<p onclick="x">Hi <img src=x onerror=alert(1)></p>\n<!-- /wp:paragraph -->',
  excerpt: '<a href="javascript:alert(1)" onmouseover="x">E</a>',
};
const FILTERED = {
  title: 'xT<b>B</b>p',
  content: '<!-- wp:paragraph -->\n<p>Hi <img src="x" /></p>\n<!-- /wp:paragraph -->',
  excerpt: '<a href="alert(1)">E</a>',
};

test.before(async () => {
  t = await startTestSite();
  for (const role of ['administrator', 'editor', 'author', 'contributor'] as const)
    users[role] = await t.createUser(role, role);
});
test.after(async () => t.close());

const raw = (item: any) => ({ title: item.title.raw, content: item.content.raw, excerpt: item.excerpt.raw });

test('on create: authors and contributors are filtered, editors and administrators keep their HTML', async () => {
  for (const [role, expected] of [
    ['contributor', FILTERED],
    ['author', FILTERED],
    ['editor', SENT],
    ['administrator', SENT],
  ] as const) {
    const created = await t.request('POST', '/core/v2/posts', { as: users[role], body: { ...SENT, status: 'draft' } });
    assert.is(created.status, 201, role);
    assert.equal(raw(created.body), expected, role);
    const read = await t.request('GET', `/core/v2/posts/${created.body.id}?context=edit`, { as: users.administrator });
    assert.equal(raw(read.body), expected, `${role}, read back`);
  }
});

test('the {raw} form of a field is filtered the same way', async () => {
  const created = await t.request('POST', '/core/v2/posts', {
    as: users.author,
    body: { title: { raw: SENT.title }, content: { raw: SENT.content } },
  });
  assert.is(created.body.title.raw, FILTERED.title);
  assert.is(created.body.content.raw, FILTERED.content);
});

test("on update, by whoever saves: an editor's HTML in an author's post stays; the author's own edit is filtered", async () => {
  const created = await t.request('POST', '/core/v2/posts', {
    as: users.author,
    body: { title: 'Plain', status: 'draft' },
  });
  const id = created.body.id;
  const byEditor = await t.request('POST', `/core/v2/posts/${id}`, {
    as: users.editor,
    body: { content: SENT.content },
  });
  assert.is(byEditor.body.content.raw, SENT.content);
  const byAuthor = await t.request('POST', `/core/v2/posts/${id}`, {
    as: users.author,
    body: { excerpt: SENT.excerpt, title: SENT.title },
  });
  assert.equal(
    raw(byAuthor.body),
    { title: FILTERED.title, content: SENT.content, excerpt: FILTERED.excerpt },
    'fields not sent are left as they were',
  );
});

test('pages are filtered too', async () => {
  const page = await t.request('POST', '/core/v2/pages', {
    as: users.editor,
    body: { title: 'Page', status: 'draft', author: users.author.id },
  });
  assert.is(page.status, 201);
  // Authors cannot edit pages; an editor's edit of the page keeps its HTML.
  const edited = await t.request('POST', `/core/v2/pages/${page.body.id}`, {
    as: users.editor,
    body: { content: SENT.content },
  });
  assert.is(edited.body.content.raw, SENT.content);
});

test("autosaves: a contributor's own draft saved in place, and an author's autosave of a published post, are filtered", async () => {
  const draft = await t.request('POST', '/core/v2/posts', {
    as: users.contributor,
    body: { title: 'Draft', status: 'draft' },
  });
  const inPlace = await t.request('POST', `/core/v2/posts/${draft.body.id}/autosaves`, {
    as: users.contributor,
    body: { content: '<p onclick="y">auto<script>z</script></p>' },
  });
  assert.is(inPlace.status, 200);
  assert.is(inPlace.body.content.raw, '<p>autoz</p>');
  const stored = await t.request('GET', `/core/v2/posts/${draft.body.id}?context=edit`, { as: users.contributor });
  assert.is(stored.body.content.raw, '<p>autoz</p>');

  const published = await t.request('POST', '/core/v2/posts', {
    as: users.author,
    body: { title: 'Live', content: 'c', status: 'publish' },
  });
  const autosave = await t.request('POST', `/core/v2/posts/${published.body.id}/autosaves`, {
    as: users.author,
    body: { content: '<p onclick="y">auto</p>' },
  });
  assert.is(autosave.status, 200);
  assert.is(autosave.body.parent, published.body.id);
  assert.is(autosave.body.content.raw, '<p>auto</p>');

  const byEditor = await t.request('POST', `/core/v2/posts/${published.body.id}/autosaves`, {
    as: users.editor,
    body: { content: '<p onclick="y">auto</p>' },
  });
  assert.is(byEditor.body.content.raw, '<p onclick="y">auto</p>');
});

test('content that filters down to nothing counts as empty', async () => {
  const response = await t.request('POST', '/core/v2/posts', {
    as: users.author,
    body: { content: '<iframe src="https://x"></iframe>' },
  });
  assert.equal([response.status, response.body.code], [400, 'empty_content']);
});

test.run();
