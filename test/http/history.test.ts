/** History, time travel and restore: an item's past, read from its own event stream (extensions to WordPress). */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('history, as_of and restore');
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

const iso = (ms: number) => new Date(ms).toISOString();
/** A date-time the REST API accepts, in UTC. */
const restTime = (ms: number) => `${iso(ms).slice(0, 19)}Z`;

async function create(path: string, body: Record<string, unknown>, as: TestUser = admin): Promise<number> {
  const created = await t.request('POST', path, { as, body });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return created.body.id as number;
}

async function update(path: string, body: Record<string, unknown>, as: TestUser = admin) {
  t.clock.advance(60_000);
  const updated = await t.request('POST', path, { as, body });
  assert.is(updated.status, 200, JSON.stringify(updated.body));
  return updated.body;
}

// --- history ---------------------------------------------------------------------------------------------------

test('history: every event oldest first, with time, user, request and the fields it changed', async () => {
  const createdAt = t.clock.now();
  const id = await create('/core/v2/posts', { title: 'First', content: 'one' }, editor);
  await update(`/core/v2/posts/${id}`, { title: 'Second' });
  const updatedAt = t.clock.now();
  await update(`/core/v2/posts/${id}`, { status: 'publish' }, editor);

  const { status, body, headers } = await t.request('GET', `/core/v2/posts/${id}/history`, { as: admin });
  assert.is(status, 200);
  assert.equal(
    body.map((e: any) => e.type),
    ['PostCreated', 'PostUpdated', 'PostRevised', 'PostUpdated'],
  );
  assert.is(headers.get('x-wp-total'), '4');
  assert.is(headers.get('x-wp-totalpages'), '1');
  assert.equal(
    body.map((e: any) => e.revision),
    [0, 1, 2, 3],
  );
  assert.ok(
    body.every((e: any, i: number) => i === 0 || e.position > body[i - 1].position),
    'global positions grow',
  );

  const [created, retitled, revised, published] = body;
  assert.is(created.time, iso(createdAt));
  assert.is(created.user, editor.id);
  assert.type(created.request_id, 'string');
  assert.equal(created.diff.title, { from: null, to: 'First' });
  assert.equal(created.diff.content, { from: null, to: 'one' });
  assert.equal(created.diff.status, { from: null, to: 'draft' });
  assert.equal(created._links.author, [{ embeddable: true, href: `${t.url}/core/v2/users/${editor.id}` }]);

  assert.is(retitled.time, iso(updatedAt));
  assert.is(retitled.user, admin.id);
  assert.equal(retitled.diff.title, { from: 'First', to: 'Second' });
  assert.equal(Object.keys(retitled.diff).sort(), ['date', 'modified', 'modified_gmt', 'title']);
  assert.ok(retitled.request_id !== created.request_id);
  assert.is(revised.request_id, retitled.request_id, 'the revision was made by the same request');

  assert.equal(revised.diff, {});
  const revisions = await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin });
  assert.is(revised.revision_id, revisions.body[0].id);
  assert.equal(revised._links.revision, [{ href: `${t.url}/core/v2/posts/${id}/revisions/${revised.revision_id}` }]);

  assert.equal(published.diff.status, { from: 'draft', to: 'publish' });
  assert.equal(published.diff.slug, { from: '', to: 'second' });
  assert.is(published.user, editor.id);
});

test('history pages: per_page, page, order, Link headers and the out-of-range error', async () => {
  const id = await create('/core/v2/posts', { title: 'Paged', content: 'x', status: 'publish' });
  for (let i = 0; i < 4; i++) await update(`/core/v2/posts/${id}`, { comment_status: i % 2 === 0 ? 'closed' : 'open' });
  // Created, then four updates; only the first update made a revision.
  const all = await t.request('GET', `/core/v2/posts/${id}/history?per_page=100`, { as: admin });
  assert.is(all.body.length, 6);

  const second = await t.request('GET', `/core/v2/posts/${id}/history?per_page=2&page=2`, { as: admin });
  assert.equal(
    second.body.map((e: any) => e.revision),
    [2, 3],
  );
  assert.is(second.headers.get('x-wp-total'), '6');
  assert.is(second.headers.get('x-wp-totalpages'), '3');
  const base = `${t.url}/core/v2/posts/${id}/history`;
  assert.is(
    second.headers.get('link'),
    `<${base}?per_page=2&page=1>; rel="prev", <${base}?per_page=2&page=3>; rel="next"`,
  );

  const newest = await t.request('GET', `/core/v2/posts/${id}/history?per_page=2&order=desc`, { as: admin });
  assert.equal(
    newest.body.map((e: any) => e.revision),
    [5, 4],
  );
  const beyond = await t.request('GET', `/core/v2/posts/${id}/history?per_page=2&page=4`, { as: admin });
  assert.equal([beyond.status, beyond.body.code], [400, 'rest_post_invalid_page_number']);
  const invalid = await t.request('GET', `/core/v2/posts/${id}/history?per_page=101`, { as: admin });
  assert.equal([invalid.status, invalid.body.code], [400, 'rest_invalid_param']);
});

test('history is for those who may edit the item; unknown items are 404', async () => {
  const id = await create('/core/v2/posts', { title: 'Guarded', content: 'x', status: 'publish' });
  const anonymous = await t.request('GET', `/core/v2/posts/${id}/history`);
  assert.is(anonymous.status, 401);
  assert.equal(anonymous.body, {
    code: 'rest_cannot_read',
    message: 'Sorry, you are not allowed to view the history of this post.',
    data: { status: 401 },
  });
  const notTheirs = await t.request('GET', `/core/v2/posts/${id}/history`, { as: contributor });
  assert.equal([notTheirs.status, notTheirs.body.code], [403, 'rest_cannot_read']);
  assert.is((await t.request('GET', `/core/v2/posts/${id}/history`, { as: editor })).status, 200);

  const own = await create('/core/v2/posts', { title: 'Mine', content: 'draft' }, contributor);
  const ownHistory = await t.request('GET', `/core/v2/posts/${own}/history`, { as: contributor });
  assert.is(ownHistory.status, 200);
  assert.is(ownHistory.body.length, 1);

  const missing = await t.request('GET', '/core/v2/posts/999999/history', { as: admin });
  assert.equal([missing.status, missing.body.code], [404, 'rest_post_invalid_id']);
  const wrongType = await t.request('GET', `/core/v2/pages/${id}/history`, { as: admin });
  assert.equal([wrongType.status, wrongType.body.code], [404, 'rest_post_invalid_id']);
});

test('pages have a history too, and trashing shows in it', async () => {
  const id = await create('/core/v2/pages', { title: 'About', content: 'us', status: 'publish' });
  t.clock.advance(1000);
  const trashed = await t.request('DELETE', `/core/v2/pages/${id}`, { as: admin });
  assert.is(trashed.status, 200);
  const { body } = await t.request('GET', `/core/v2/pages/${id}/history`, { as: admin });
  const trash = body.find((e: any) => e.type === 'PostTrashed');
  assert.ok(trash);
  assert.equal(trash.diff.status, { from: 'publish', to: 'trash' });
  assert.equal(trash.diff.slug, { from: 'about', to: 'about__trashed' });
});

// --- as_of -----------------------------------------------------------------------------------------------------

test('as_of: the item as it was at that moment, presented like the live item', async () => {
  const t0 = t.clock.now();
  const id = await create('/core/v2/posts', { title: 'v1', content: 'first text', status: 'publish' });
  await update(`/core/v2/posts/${id}`, { title: 'v2' });
  const t1 = t.clock.now();
  await update(`/core/v2/posts/${id}`, { title: 'v3', content: 'third text' });

  const between = await t.request('GET', `/core/v2/posts/${id}?as_of=${restTime(t1 + 30_000)}&context=edit`, {
    as: admin,
  });
  assert.is(between.status, 200);
  assert.is(between.body.title.raw, 'v2');
  assert.is(between.body.content.raw, 'first text');
  assert.is(between.body.modified_gmt, restTime(t1).slice(0, 19));
  assert.equal(between.body._links['version-history'], [{ count: 1, href: `${t.url}/core/v2/posts/${id}/revisions` }]);

  const atCreation = await t.request('GET', `/core/v2/posts/${id}?as_of=${restTime(t0)}&context=edit`, { as: admin });
  assert.is(atCreation.body.title.raw, 'v1', 'an event counts from the second it happened in');
  const atUpdate = await t.request('GET', `/core/v2/posts/${id}?as_of=${restTime(t1)}&context=edit`, { as: admin });
  assert.is(atUpdate.body.title.raw, 'v2');
  const withOffset = await t.request(
    'GET',
    `/core/v2/posts/${id}?as_of=${encodeURIComponent(`${iso(t1 + 7_200_000).slice(0, 19)}+02:00`)}&context=edit`,
    { as: admin },
  );
  assert.is(withOffset.body.title.raw, 'v2', 'an explicit offset is honoured');

  const now = await t.request('GET', `/core/v2/posts/${id}?as_of=${restTime(t.clock.now())}&context=edit`, {
    as: admin,
  });
  const live = await t.request('GET', `/core/v2/posts/${id}?context=edit`, { as: admin });
  assert.equal(now.body, live.body, 'as of now, the fold equals the live read model');
  assert.is(now.headers.get('link'), live.headers.get('link'));

  const view = await t.request('GET', `/core/v2/posts/${id}?as_of=${restTime(t1)}`, { as: admin });
  assert.equal(
    Object.keys(view.body).sort(),
    Object.keys((await t.request('GET', `/core/v2/posts/${id}`)).body).sort(),
  );
  assert.is(view.body.title.rendered, 'v2');
  assert.is(view.body.title.raw, undefined);
});

test('as_of before the item existed is 404; an invalid date is 400; pages travel too', async () => {
  const t0 = t.clock.now();
  t.clock.advance(5_000);
  const id = await create('/core/v2/pages', { title: 'Page one', status: 'publish' });
  const before = await t.request('GET', `/core/v2/pages/${id}?as_of=${restTime(t0)}`, { as: admin });
  assert.equal([before.status, before.body.code], [404, 'rest_post_invalid_id']);
  const invalid = await t.request('GET', `/core/v2/pages/${id}?as_of=yesterday`, { as: admin });
  assert.equal([invalid.status, invalid.body.code], [400, 'rest_invalid_param']);
  assert.equal(Object.keys(invalid.body.data.params), ['as_of']);
  const badMonth = await t.request('GET', `/core/v2/pages/${id}?as_of=2024-13-01T00:00:00`, { as: admin });
  assert.is(badMonth.status, 400);
  await update(`/core/v2/pages/${id}`, { title: 'Page two' });
  const page = await t.request('GET', `/core/v2/pages/${id}?as_of=${restTime(t0 + 5_000)}`, { as: admin });
  assert.is(page.body.title.rendered, 'Page one');
  assert.is(page.body.type, 'page');
});

test('as_of needs the right to edit: a past state may never have been public', async () => {
  const id = await create('/core/v2/posts', { title: 'Secret draft title', content: 'x' });
  await update(`/core/v2/posts/${id}`, { title: 'Public title', status: 'publish' });
  const when = restTime(t.clock.now() - 60_000);
  assert.is((await t.request('GET', `/core/v2/posts/${id}`)).status, 200);
  const anonymous = await t.request('GET', `/core/v2/posts/${id}?as_of=${when}`);
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_read']);
  const contributorTry = await t.request('GET', `/core/v2/posts/${id}?as_of=${when}`, { as: contributor });
  assert.is(contributorTry.status, 403);
  assert.equal(contributorTry.body, {
    code: 'rest_cannot_read',
    message: 'Sorry, you are not allowed to view the history of this post.',
    data: { status: 403 },
  });
  const editorSees = await t.request('GET', `/core/v2/posts/${id}?as_of=${when}&context=edit`, { as: editor });
  assert.is(editorSees.body.title.raw, 'Secret draft title');
  assert.is(editorSees.body.status, 'draft');
});

// --- restore ---------------------------------------------------------------------------------------------------

test("restore: appends an update with the revision's text, which makes a new revision", async () => {
  const id = await create('/core/v2/posts', { title: 'A', content: 'a', excerpt: 'ea', status: 'publish' });
  await update(`/core/v2/posts/${id}`, { title: 'B', content: 'b', excerpt: 'eb' });
  await update(`/core/v2/posts/${id}`, { title: 'C', content: 'c', excerpt: 'ec', comment_status: 'closed' });
  const [, revisionB] = (await t.request('GET', `/core/v2/posts/${id}/revisions?context=edit`, { as: admin })).body;
  assert.is(revisionB.title.raw, 'B');

  t.clock.advance(60_000);
  const restored = await t.request('POST', `/core/v2/posts/${id}/revisions/${revisionB.id}/restore`, { as: editor });
  assert.is(restored.status, 200);
  assert.is(restored.body.id, id);
  assert.equal(
    [restored.body.title.raw, restored.body.content.raw, restored.body.excerpt.raw],
    ['B', 'b', 'eb'],
    'edit context',
  );
  assert.is(restored.body.comment_status, 'closed', 'only the revision fields are restored');
  assert.is(restored.body.modified_gmt, restTime(t.clock.now()).slice(0, 19));

  const revisions = (await t.request('GET', `/core/v2/posts/${id}/revisions?context=edit`, { as: admin })).body;
  assert.is(revisions.length, 3);
  assert.is(revisions[0].title.raw, 'B');
  assert.is(revisions[0].author, editor.id);
  assert.ok(revisions[0].id > revisionB.id);
  assert.equal(restored.body._links['predecessor-version'][0].id, revisions[0].id);

  const history = (await t.request('GET', `/core/v2/posts/${id}/history?order=desc&per_page=2`, { as: admin })).body;
  assert.equal(
    history.map((e: any) => e.type),
    ['PostRevised', 'PostUpdated'],
  );
  assert.equal(history[1].diff.title, { from: 'C', to: 'B' });
  assert.is(history[1].user, editor.id);
});

test('restoring the text the item already has makes no revision, as WordPress', async () => {
  const id = await create('/core/v2/posts', { title: 'Same', content: 's', status: 'publish' });
  await update(`/core/v2/posts/${id}`, { content: 's2' });
  const [latest] = (await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin })).body;
  const restored = await t.request('POST', `/core/v2/posts/${id}/revisions/${latest.id}/restore`, { as: admin });
  assert.is(restored.status, 200);
  assert.is((await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin })).body.length, 1);
});

test('an autosave can be restored like a revision; pages restore too', async () => {
  const id = await create('/core/v2/pages', { title: 'Page', content: 'live', status: 'publish' });
  const autosave = await t.request('POST', `/core/v2/pages/${id}/autosaves`, {
    as: editor,
    body: { title: 'Page', content: 'unsaved work' },
  });
  assert.is(autosave.status, 200);
  const restored = await t.request('POST', `/core/v2/pages/${id}/revisions/${autosave.body.id}/restore`, {
    as: editor,
  });
  assert.is(restored.status, 200);
  assert.is(restored.body.content.raw, 'unsaved work');
  assert.is(restored.body.type, 'page');
});

test('a restore answers the item as a GET in edit context by the same user does, action links included', async () => {
  const author = await t.createUser('restoring-author', 'author');
  const parentPage = await create('/core/v2/pages', { title: 'Above', status: 'publish' });
  const cases: { path: string; as: TestUser }[] = [
    { path: '/core/v2/posts', as: admin },
    { path: '/core/v2/posts', as: author },
    { path: '/core/v2/pages', as: editor },
  ];
  for (const { path, as } of cases) {
    const id = await create(
      path,
      { title: 'First', content: 'one', status: 'publish', ...(path.endsWith('pages') ? { parent: parentPage } : {}) },
      as,
    );
    await update(`${path}/${id}`, { title: 'Second', content: 'two' }, as);
    await update(`${path}/${id}`, { title: 'Third', content: 'three' }, as);
    const [, second] = (await t.request('GET', `${path}/${id}/revisions`, { as })).body;
    assert.is(second.title.rendered, 'Second');
    t.clock.advance(60_000);
    const restored = await t.request('POST', `${path}/${id}/revisions/${second.id}/restore`, { as });
    assert.is(restored.status, 200);
    const read = await t.request('GET', `${path}/${id}?context=edit`, { as });
    assert.equal(restored.body._links, read.body._links, `${path} as ${as.login}`);
    assert.equal(restored.body, read.body, `${path} as ${as.login}: the whole item`);
    assert.ok(
      Object.keys(read.body._links).some((rel) => rel.startsWith('wp:action-')),
      'the item has action links to compare',
    );
  }
});

test('restore errors: unknown parent, unknown or foreign revision, no right to edit', async () => {
  const id = await create('/core/v2/posts', { title: 'R', content: 'r', status: 'publish' });
  await update(`/core/v2/posts/${id}`, { content: 'r2' });
  const [revision] = (await t.request('GET', `/core/v2/posts/${id}/revisions`, { as: admin })).body;
  const other = await create('/core/v2/posts', { title: 'Other', content: 'o', status: 'publish' });

  const noParent = await t.request('POST', `/core/v2/posts/999999/revisions/${revision.id}/restore`, { as: admin });
  assert.equal([noParent.status, noParent.body.code], [404, 'rest_post_invalid_parent']);
  const unknown = await t.request('POST', `/core/v2/posts/${id}/revisions/999999/restore`, { as: admin });
  assert.equal([unknown.status, unknown.body.code], [404, 'rest_post_invalid_id']);
  const foreign = await t.request('POST', `/core/v2/posts/${other}/revisions/${revision.id}/restore`, { as: admin });
  assert.equal([foreign.status, foreign.body.code], [404, 'rest_post_invalid_id']);
  const anonymous = await t.request('POST', `/core/v2/posts/${id}/revisions/${revision.id}/restore`);
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_edit']);
  const refused = await t.request('POST', `/core/v2/posts/${id}/revisions/${revision.id}/restore`, { as: contributor });
  assert.equal([refused.status, refused.body.code], [403, 'rest_cannot_edit']);
  const getIt = await t.request('GET', `/core/v2/posts/${id}/revisions/${revision.id}/restore`, { as: admin });
  assert.equal([getIt.status, getIt.body.code], [404, 'rest_no_route']);
  assert.is(
    (await t.request('GET', `/core/v2/posts/${id}?context=edit`, { as: admin })).body.content.raw,
    'r2',
    'nothing changed',
  );
});

test('the index lists the history and restore routes', async () => {
  const { body } = await t.request('GET', '/core/v2');
  assert.equal(body.routes['/core/v2/posts/(?P<id>[\\d]+)/history'].methods, ['GET']);
  assert.equal(body.routes['/core/v2/pages/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/restore'].methods, ['POST']);
  const item = body.routes['/core/v2/posts/(?P<id>[\\d]+)'];
  assert.is(item.endpoints[0].args.as_of.format, 'date-time');
});

test.run();
