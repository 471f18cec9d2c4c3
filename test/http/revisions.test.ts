/** Revisions and autosaves, falling out of each post's event stream, as WordPress 6.1 shows them. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('revisions and autosaves');
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let contributor: TestUser;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  contributor = await t.createUser('contributor', 'contributor');
});
test.after(async () => t.close());

async function publish(title: string, as = admin): Promise<number> {
  const created = await t.request('POST', '/core/v2/posts', {
    as,
    body: { title, content: 'Body', status: 'publish' },
  });
  assert.is(created.status, 201);
  return created.body.id as number;
}

test('no revision on create; the first update always makes one; later ones only when text changes', async () => {
  const id = await publish('Versioned');
  let list = await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin });
  assert.is(list.status, 200);
  assert.equal(list.body, []);
  assert.is(list.headers.get('x-wp-total'), '0');

  t.clock.advance(60_000);
  await t.request('POST', `/core/v2/posts/${id}`, { as: admin, body: { comment_status: 'closed' } });
  t.clock.advance(60_000);
  await t.request('POST', `/core/v2/posts/${id}`, { as: admin, body: { ping_status: 'closed' } });
  t.clock.advance(60_000);
  await t.request('POST', `/core/v2/posts/${id}`, { as: editor, body: { title: 'Versioned again' } });

  list = await t.request('GET', `/core/v2/posts/${id}/revisions?context=edit`, { as: admin });
  assert.is(list.body.length, 2);
  assert.is(list.headers.get('x-wp-total'), '2');
  assert.is(list.headers.get('x-wp-totalpages'), '1');
  const [newest, oldest] = list.body;
  assert.is(newest.title.raw, 'Versioned again');
  assert.is(newest.author, editor.id);
  assert.is(oldest.title.raw, 'Versioned');
  assert.is(newest.parent, id);
  assert.is(newest.slug, `${id}-revision-v1`);
  assert.ok(newest.id > oldest.id);
  assert.equal(newest._links, { parent: [{ href: `${t.url}/core/v2/posts/${id}` }] });

  const post = await t.request('GET', `/core/v2/posts/${id}`);
  assert.equal(post.body._links['version-history'], [{ count: 2, href: `${t.url}/core/v2/posts/${id}/revisions` }]);
  assert.equal(post.body._links['predecessor-version'], [
    { id: newest.id, href: `${t.url}/core/v2/posts/${id}/revisions/${newest.id}` },
  ]);
});

test('view and embed contexts, single revision, and its errors', async () => {
  const id = await publish('Single');
  await t.request('PATCH', `/core/v2/posts/${id}`, { as: admin, body: { content: 'Changed' } });
  const [revision] = (await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin })).body;
  assert.equal(Object.keys(revision).sort(), [
    '_links',
    'author',
    'content',
    'date',
    'date_gmt',
    'excerpt',
    'guid',
    'id',
    'modified',
    'modified_gmt',
    'parent',
    'slug',
    'title',
  ]);
  assert.is(revision.title.raw, undefined);
  const embed = await t.request('GET', `/core/v2/posts/${id}/revisions/${revision.id}?context=embed`, { as: admin });
  assert.equal(Object.keys(embed.body).sort(), [
    '_links',
    'author',
    'date',
    'excerpt',
    'id',
    'parent',
    'slug',
    'title',
  ]);
  const missing = await t.request('GET', `/core/v2/posts/${id}/revisions/999999`, { as: admin });
  assert.equal([missing.status, missing.body.code], [404, 'rest_post_invalid_id']);
  const noParent = await t.request('GET', '/core/v2/posts/999999/revisions', { as: admin });
  assert.equal([noParent.status, noParent.body.code], [404, 'rest_post_invalid_parent']);
  const anonymous = await t.request('GET', `/core/v2/posts/${id}/revisions`);
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_read']);
  const notTheirs = await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: contributor });
  assert.equal([notTheirs.status, notTheirs.body.code], [403, 'rest_cannot_read']);
  const posted = await t.request('POST', `/core/v2/posts/${id}/revisions`, { as: admin });
  assert.equal([posted.status, posted.body.code], [404, 'rest_no_route']);
});

test('paging a revision list: all by default, per_page and offset with their range errors', async () => {
  const id = await publish('Paged');
  for (let i = 0; i < 5; i++) {
    t.clock.advance(1000);
    await t.request('PATCH', `/core/v2/posts/${id}`, { as: admin, body: { content: `v${i}` } });
  }
  const all = await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin });
  assert.is(all.body.length, 5);
  const page = await t.request('GET', `/core/v2/posts/${id}/revisions?per_page=2&page=3`, { as: admin });
  assert.is(page.body.length, 1);
  assert.is(page.headers.get('x-wp-totalpages'), '3');
  const beyond = await t.request('GET', `/core/v2/posts/${id}/revisions?per_page=2&page=4`, { as: admin });
  assert.equal([beyond.status, beyond.body.code], [400, 'rest_revision_invalid_page_number']);
  const offset = await t.request('GET', `/core/v2/posts/${id}/revisions?per_page=2&offset=5`, { as: admin });
  assert.equal([offset.status, offset.body.code], [400, 'rest_revision_invalid_offset_number']);
  const ascending = await t.request('GET', `/core/v2/posts/${id}/revisions?order=asc&context=edit`, { as: admin });
  assert.is(ascending.body[0].content.raw, 'v0');
  const search = await t.request('GET', `/core/v2/posts/${id}/revisions?search=v3&context=edit`, { as: admin });
  assert.equal(
    search.body.map((r: any) => r.content.raw),
    ['v3'],
  );
});

test('revision lists carry Link headers from the query as sent; a page past the last is refused even without per_page', async () => {
  const id = await publish('Linked');
  for (let i = 0; i < 3; i++) {
    t.clock.advance(1000);
    await t.request('PATCH', `/core/v2/posts/${id}`, { as: admin, body: { content: `w${i}` } });
  }
  const base = `${t.url}/core/v2/posts/${id}/revisions`;
  const first = await t.request('GET', `/core/v2/posts/${id}/revisions?per_page=1`, { as: admin });
  assert.is(first.headers.get('x-wp-totalpages'), '3');
  assert.match(first.headers.get('link')!, `<${base}?per_page=1&page=2>; rel="next"`);
  assert.not.match(first.headers.get('link')!, 'rel="prev"');
  const middle = await t.request('GET', `/core/v2/posts/${id}/revisions?per_page=1&page=2&_fields=id`, { as: admin });
  assert.match(
    middle.headers.get('link')!,
    `<${base}?per_page=1&page=1&_fields=id>; rel="prev", <${base}?per_page=1&page=3&_fields=id>; rel="next"`,
  );
  const last = await t.request('GET', `/core/v2/posts/${id}/revisions?page=3&per_page=1`, { as: admin });
  assert.match(last.headers.get('link')!, `<${base}?page=2&per_page=1>; rel="prev"`);
  assert.not.match(last.headers.get('link')!, 'rel="next"');
  const all = await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin });
  assert.not.match(all.headers.get('link') ?? '', 'rel="next"');
  assert.is(all.headers.get('x-wp-totalpages'), '1');
  for (const query of ['page=2', 'per_page=1&page=4&offset=0']) {
    const refused = await t.request('GET', `/core/v2/posts/${id}/revisions?${query}`, { as: admin });
    assert.equal([refused.status, refused.body.code], [400, 'rest_revision_invalid_page_number'], query);
  }
  const offsetAlone = await t.request('GET', `/core/v2/posts/${id}/revisions?offset=3`, { as: admin });
  assert.equal([offsetAlone.status, offsetAlone.body.code], [400, 'rest_revision_invalid_offset_number']);
  // Without per_page an offset only matters for that check: everything is listed.
  assert.is((await t.request('GET', `/core/v2/posts/${id}/revisions?offset=2`, { as: admin })).body.length, 3);
  assert.is(
    (await t.request('GET', `/core/v2/posts/${id}/revisions?per_page=2&offset=2`, { as: admin })).body.length,
    1,
  );
});

test('revision and autosave excerpts are the stored excerpt, never generated from the content', async () => {
  const id = await publish('Excerpts');
  await t.request('PATCH', `/core/v2/posts/${id}`, { as: admin, body: { content: 'Long body text' } });
  t.clock.advance(1000);
  await t.request('PATCH', `/core/v2/posts/${id}`, { as: admin, body: { excerpt: 'Hand "made"' } });
  const [withExcerpt, without] = (await t.request('GET', `/core/v2/posts/${id}/revisions?context=edit`, { as: admin }))
    .body;
  assert.equal(without.excerpt, { raw: '', rendered: '' });
  assert.equal(withExcerpt.excerpt, { raw: 'Hand "made"', rendered: '<p>Hand &#8220;made&#8221;</p>\n' });
  const autosave = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: editor,
    body: { title: 'Excerpts', content: 'Autosaved content.' },
  });
  assert.equal(autosave.body.excerpt, { raw: '', rendered: '' });
  assert.is(autosave.body.content.rendered, '<p>Autosaved content.</p>\n');
  // The item itself still generates its excerpt.
  const post = await t.request('GET', `/core/v2/posts/${id}`, { as: admin });
  assert.is(post.body.excerpt.rendered, '<p>Hand &#8220;made&#8221;</p>\n');
});

test('autosave of your own floating draft answers with the draft: null dates, its empty slug, its guid, no links', async () => {
  const draft = await t.request('POST', '/core/v2/pages', {
    as: editor,
    body: { title: 'Page draft', content: 'one', password: 'secret' },
  });
  const id = draft.body.id as number;
  t.clock.advance(5000);
  const saved = await t.request('POST', `/core/v2/pages/${id}/autosaves`, {
    as: editor,
    body: { title: 'Page draft 2', content: 'two' },
  });
  assert.is(saved.status, 200);
  assert.equal(Object.keys(saved.body).sort(), [
    'author',
    'content',
    'date',
    'date_gmt',
    'excerpt',
    'guid',
    'id',
    'modified',
    'modified_gmt',
    'parent',
    'preview_link',
    'slug',
    'title',
  ]);
  assert.is(saved.body.date, null);
  assert.is(saved.body.date_gmt, null);
  assert.is(Date.parse(`${saved.body.modified_gmt}Z`) - Date.parse(`${draft.body.modified_gmt}Z`), 5000);
  assert.is(saved.body.slug, '');
  assert.is(saved.body.parent, 0);
  assert.equal(saved.body.guid, { rendered: `${t.url}/?page_id=${id}`, raw: `${t.url}/?page_id=${id}` });
  assert.equal(saved.body.title, { raw: 'Page draft 2', rendered: 'Protected: Page draft 2' });
  assert.equal(saved.body.excerpt, { raw: '', rendered: '' });
  assert.is(saved.body.preview_link, `${t.url}/?page_id=${id}&preview=true`);

  // A dated draft keeps its dates; a child page links its parent page.
  const parentPage = await t.request('POST', '/core/v2/pages', {
    as: editor,
    body: { title: 'Parent', status: 'publish' },
  });
  const child = await t.request('POST', '/core/v2/pages', {
    as: editor,
    body: { title: 'Child', parent: parentPage.body.id, date: '2024-04-01T10:00:00' },
  });
  const childSaved = await t.request('POST', `/core/v2/pages/${child.body.id}/autosaves`, {
    as: editor,
    body: { content: 'child text' },
  });
  assert.is(childSaved.body.date, '2024-04-01T10:00:00');
  assert.is(childSaved.body.date_gmt, '2024-04-01T10:00:00');
  assert.is(childSaved.body.parent, parentPage.body.id);
  assert.equal(childSaved.body._links, { parent: [{ href: `${t.url}/core/v2/pages/${parentPage.body.id}` }] });
});

test('the preview link of an autosave is the item link with preview_id and preview=true', async () => {
  const id = await publish('Previewed');
  const autosave = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: editor,
    body: { title: 'Previewed', content: 'edits' },
  });
  const post = await t.request('GET', `/core/v2/posts/${id}`);
  assert.is(autosave.body.preview_link, `${post.body.link}?preview_id=${id}&preview=true`);
});

test('orderby slug puts revisions before autosaves (descending) or after (ascending); orderby id and title', async () => {
  const id = await publish('Sorted');
  await t.request('PATCH', `/core/v2/posts/${id}`, { as: admin, body: { title: 'B sorted' } });
  t.clock.advance(1000);
  const autosave = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: editor,
    body: { title: 'A autosave', content: 'x' },
  });
  t.clock.advance(1000);
  await t.request('PATCH', `/core/v2/posts/${id}`, { as: admin, body: { title: 'C sorted' } });
  const slugs = async (query: string) =>
    (await t.request('GET', `/core/v2/posts/${id}/revisions?${query}`, { as: admin })).body.map((r: any) => r.slug);
  assert.equal(await slugs('orderby=slug'), [`${id}-revision-v1`, `${id}-revision-v1`, `${id}-autosave-v1`]);
  assert.equal(await slugs('orderby=slug&order=asc'), [`${id}-autosave-v1`, `${id}-revision-v1`, `${id}-revision-v1`]);
  const titles = async (query: string) =>
    (await t.request('GET', `/core/v2/posts/${id}/revisions?${query}`, { as: admin })).body.map(
      (r: any) => r.title.rendered,
    );
  assert.equal(await titles('orderby=title&order=asc'), ['A autosave', 'B sorted', 'C sorted']);
  assert.equal(await titles('orderby=title'), ['C sorted', 'B sorted', 'A autosave']);
  const ids = (await t.request('GET', `/core/v2/posts/${id}/revisions?orderby=id&order=asc`, { as: admin })).body.map(
    (r: any) => r.id,
  );
  assert.equal(
    ids,
    [...ids].sort((a: number, b: number) => a - b),
  );
  assert.ok(ids.includes(autosave.body.id));
});

test('orderby relevance: one term ranks title matches first; several rank the title, then excerpt, then content', async () => {
  const id = await publish('Relevance');
  const edits = [
    { title: 'Plain', content: 'mentions walrus tusk here' },
    { title: 'Walrus title', content: 'other' },
    { title: 'Plain again', content: 'x', excerpt: 'a walrus tusk excerpt' },
  ];
  for (const body of edits) {
    t.clock.advance(1000);
    await t.request('PATCH', `/core/v2/posts/${id}`, { as: admin, body });
  }
  const titles = async (query: string) =>
    (await t.request('GET', `/core/v2/posts/${id}/revisions?${query}`, { as: admin })).body.map(
      (r: any) => r.title.rendered,
    );
  assert.equal(await titles('search=walrus&orderby=relevance'), ['Walrus title', 'Plain again', 'Plain']);
  assert.equal(
    await titles('search=walrus&orderby=relevance&order=asc'),
    ['Walrus title', 'Plain', 'Plain again'],
    'the date in the requested order within a rank',
  );
  assert.equal(await titles('search=walrus'), ['Plain again', 'Walrus title', 'Plain']);
  // "walrus tusk": no title has both or the sentence; one has a term; then the excerpt, then the content.
  assert.equal(await titles('search=walrus%20tusk&orderby=relevance&order=asc'), ['Plain again', 'Plain']);
  assert.equal(
    await titles('search=walrus%20tusk%20-other&orderby=relevance&order=asc'),
    ['Plain', 'Plain again'],
    'an exclusion turns sentence matching off',
  );
  const refused = await t.request('GET', `/core/v2/posts/${id}/revisions?orderby=relevance`, { as: admin });
  assert.equal([refused.status, refused.body.code], [400, 'rest_no_search_term_defined']);
  const noInclude = await t.request('GET', `/core/v2/posts/${id}/revisions?orderby=include`, { as: admin });
  assert.equal([noInclude.status, noInclude.body.code], [400, 'rest_orderby_include_missing_include']);
});

test('deleting a revision is refused to everyone, as in WordPress 6.1', async () => {
  const id = await publish('Kept');
  await t.request('PATCH', `/core/v2/posts/${id}`, { as: admin, body: { content: 'x' } });
  const [revision] = (await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin })).body;
  const refused = await t.request('DELETE', `/core/v2/posts/${id}/revisions/${revision.id}?force=true`, { as: admin });
  assert.equal([refused.status, refused.body.code], [403, 'rest_cannot_delete']);
  const anonymous = await t.request('DELETE', `/core/v2/posts/${id}/revisions/${revision.id}?force=true`);
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_delete']);
});

test('autosave of your own draft saves the draft itself, without a revision', async () => {
  const draft = await t.request('POST', '/core/v2/posts', { as: editor, body: { title: 'My draft', content: 'one' } });
  const id = draft.body.id as number;
  const saved = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: editor,
    body: { title: 'My draft', content: 'two' },
  });
  assert.is(saved.status, 200);
  assert.is(saved.body.id, id);
  assert.is(saved.body.parent, 0);
  assert.is(saved.body.content.raw, 'two');
  const post = await t.request('GET', `/core/v2/posts/${id}?context=edit`, { as: editor });
  assert.is(post.body.content.raw, 'two');
  assert.is(post.body._links['version-history'][0].count, 0);
});

test('autosave of a published post keeps one autosave per user, overwritten, and leaves the post alone', async () => {
  const id = await publish('Live');
  const first = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: editor,
    body: { title: 'Live', content: 'draft edits' },
  });
  assert.is(first.status, 200);
  assert.ok(first.body.id !== id);
  assert.is(first.body.parent, id);
  assert.is(first.body.slug, `${id}-autosave-v1`);
  assert.ok('preview_link' in first.body);
  const second = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: editor,
    body: { title: 'Live', content: 'more edits' },
  });
  assert.is(second.body.id, first.body.id);
  const other = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: admin,
    body: { content: 'admin edits' },
  });
  assert.ok(other.body.id !== first.body.id);
  assert.is(other.body.title.raw, '', 'fields not sent are stored empty');

  const post = await t.request('GET', `/core/v2/posts/${id}?context=edit`, { as: admin });
  assert.is(post.body.content.raw, 'Body');
  assert.is(post.body._links['version-history'][0].count, 2);

  const list = await t.request('GET', `/core/v2/posts/${id}/autosaves?context=edit`, { as: admin });
  assert.equal(list.body.map((a: any) => a.content.raw).sort(), ['admin edits', 'more edits']);
  assert.is(list.headers.get('x-wp-total'), null);
  const latest = await t.request('GET', `/core/v2/posts/${id}/autosaves/1?context=edit`, { as: admin });
  assert.is(latest.status, 200);
  assert.is(latest.body.content.raw, 'admin edits');
  const revisions = await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin });
  assert.is(revisions.body.length, 2, 'the revision list includes autosaves');
});

test('an autosave equal to the post is discarded with rest_autosave_no_changes', async () => {
  const id = await publish('Same');
  const saved = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: admin,
    body: { title: 'Same', content: 'edited' },
  });
  assert.is(saved.status, 200);
  const same = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: admin,
    body: { title: 'Same', content: 'Body' },
  });
  assert.equal([same.status, same.body.code], [400, 'rest_autosave_no_changes']);
  const none = await t.request('GET', `/core/v2/posts/${id}/autosaves/${saved.body.id}`, { as: admin });
  assert.equal([none.status, none.body.code], [404, 'rest_post_no_autosave']);
});

test('autosave errors: unknown post, no right to edit, invalid field', async () => {
  const missing = await t.request('POST', '/core/v2/posts/999999/autosaves', { as: admin, body: { content: 'x' } });
  assert.equal([missing.status, missing.body.code], [404, 'rest_post_invalid_id']);
  const id = await publish('Theirs');
  const refused = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: contributor,
    body: { content: 'x' },
  });
  assert.equal([refused.status, refused.body.code], [403, 'rest_cannot_edit']);
  const invalid = await t.request('POST', `/core/v2/posts/${id}/autosaves`, {
    as: admin,
    body: { comment_status: 'garbage' },
  });
  assert.equal([invalid.status, invalid.body.code], [400, 'rest_invalid_param']);
});

test.run();
