/**
 * /core/v2/menu-items/{id}/autosaves and /core/v2/menu-items/{parent}/autosaves/{id}, black-box through the app.
 * Expected values follow WordPress 6.1 (checked against the reference site): an autosave of a menu item keeps
 * none of its fields, so a user's next autosave finds nothing changed and discards the first.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';

const test = suite('menu item autosaves');
let t: TestSite;
let admin: TestUser;
let secondAdmin: TestUser;
let editor: TestUser;
let subscriber: TestUser;

test.before.each(async () => {
  t = await startTestSite({ timezone: 'Europe/Berlin', now: Date.parse('2024-05-01T12:00:00Z') });
  admin = await t.createUser('admin', 'administrator');
  secondAdmin = await t.createUser('admin2', 'administrator');
  editor = await t.createUser('editor', 'editor');
  subscriber = await t.createUser('subscriber', 'subscriber');
});
test.after.each(async () => t.close());

async function customLink(body: Record<string, unknown> = {}, as: TestUser = admin): Promise<number> {
  const created = await t.request('POST', '/core/v2/menu-items', {
    as,
    body: { title: 'Home', url: 'https://example.com/', ...body },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return created.body.id as number;
}

test('an autosave of a published item is an empty revision of it, answered with 200 and read back in every context', async () => {
  const id = await customLink();
  t.clock.set(Date.parse('2024-05-02T08:30:00Z'));
  const saved = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, {
    as: admin,
    body: { title: 'Changed', description: 'ignored' },
  });
  assert.is(saved.status, 200, JSON.stringify(saved.body));
  const autosaveId = saved.body.id as number;
  assert.ok(autosaveId > id, 'the autosave id comes from the shared content sequence');
  const guid = `${t.url}/?p=${autosaveId}`;
  const links = { parent: [{ href: `${t.url}/core/v2/menu-items/${id}` }] };
  assert.equal(saved.body, {
    author: admin.id,
    date: '2024-05-02T10:30:00',
    date_gmt: '2024-05-02T08:30:00',
    id: autosaveId,
    modified: '2024-05-02T10:30:00',
    modified_gmt: '2024-05-02T08:30:00',
    parent: id,
    slug: `${id}-autosave-v1`,
    guid: { rendered: guid, raw: guid },
    title: { raw: '', rendered: '' },
    preview_link: '',
    _links: links,
  });

  const view = await t.request('GET', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
  assert.is(view.status, 200);
  const { title: _title, preview_link: _preview, _links: _l, ...common } = saved.body;
  assert.equal(view.body, [{ ...common, title: { rendered: '' }, _links: links }]);
  const edit = await t.request('GET', `/core/v2/menu-items/${id}/autosaves?context=edit`, { as: admin });
  assert.equal(edit.body, [saved.body]);
  const embed = await t.request('GET', `/core/v2/menu-items/${id}/autosaves?context=embed`, { as: admin });
  assert.equal(embed.body, [
    {
      author: admin.id,
      date: '2024-05-02T10:30:00',
      id: autosaveId,
      parent: id,
      slug: `${id}-autosave-v1`,
      title: { rendered: '' },
      _links: links,
    },
  ]);

  // The single route answers with the latest autosave, whatever id is asked for.
  const one = await t.request('GET', `/core/v2/menu-items/${id}/autosaves/${autosaveId}`, { as: admin });
  assert.equal(one.body, view.body[0]);
  const anyId = await t.request('GET', `/core/v2/menu-items/${id}/autosaves/999999`, { as: admin });
  assert.equal(anyId.body, view.body[0]);

  // The item itself is untouched.
  const item = await t.request('GET', `/core/v2/menu-items/${id}?context=edit`, { as: admin });
  assert.is(item.body.title.raw, 'Home');
  assert.is(item.body.description, '');
});

test("a user's next autosave finds nothing changed: 400 rest_autosave_no_changes and the autosave is gone; the one after makes a new one", async () => {
  const id = await customLink();
  const first = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: admin, body: { title: 'One' } });
  assert.is(first.status, 200);
  const second = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: admin, body: { title: 'Two' } });
  assert.is(second.status, 400);
  assert.equal(second.body, {
    code: 'rest_autosave_no_changes',
    message: 'There is nothing to save. The autosave and the post content are the same.',
    data: { status: 400 },
  });
  const list = await t.request('GET', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
  assert.equal(list.body, []);
  const missing = await t.request('GET', `/core/v2/menu-items/${id}/autosaves/${first.body.id}`, { as: admin });
  assert.is(missing.status, 404);
  assert.is(missing.body.code, 'rest_post_no_autosave');

  const third = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
  assert.is(third.status, 200);
  assert.ok(third.body.id > first.body.id, 'a new autosave gets a new id');
});

test('one autosave per user: two administrators each have theirs, listed newest first', async () => {
  const id = await customLink();
  const mine = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
  t.clock.advance(60_000);
  const theirs = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: secondAdmin });
  assert.is(theirs.status, 200);
  assert.is(theirs.body.author, secondAdmin.id);
  const list = await t.request('GET', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
  assert.equal(
    list.body.map((a: { id: number }) => a.id),
    [theirs.body.id, mine.body.id],
  );
  const latest = await t.request('GET', `/core/v2/menu-items/${id}/autosaves/${mine.body.id}`, { as: admin });
  assert.is(latest.body.id, theirs.body.id);
});

test('an autosave of your own draft item saves the item in place (its modification time) and answers with it', async () => {
  const id = await customLink({ title: 'Draft item', status: 'draft', parent: 0 });
  const before = await t.request('GET', `/core/v2/menu-items?status=draft&orderby=modified&context=edit`, {
    as: admin,
  });
  assert.equal(
    before.body.map((i: { id: number }) => i.id),
    [id],
  );
  t.clock.set(Date.parse('2024-05-03T09:00:00Z'));
  const saved = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, {
    as: admin,
    body: { title: 'Not kept', parent: 0 },
  });
  assert.is(saved.status, 200, JSON.stringify(saved.body));
  const guid = `${t.url}/?p=${id}`;
  assert.equal(saved.body, {
    author: admin.id,
    date: null,
    date_gmt: null,
    id,
    modified: '2024-05-03T11:00:00',
    modified_gmt: '2024-05-03T09:00:00',
    parent: 0,
    slug: '',
    guid: { rendered: guid, raw: guid },
    title: { raw: 'Draft item', rendered: 'Draft item' },
    preview_link: '',
  });
  // Again: still the item, never rest_autosave_no_changes, and no autosave is listed.
  const again = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
  assert.is(again.status, 200);
  assert.is(again.body.id, id);
  assert.equal((await t.request('GET', `/core/v2/menu-items/${id}/autosaves`, { as: admin })).body, []);
  const item = await t.request('GET', `/core/v2/menu-items/${id}?context=edit`, { as: admin });
  assert.is(item.body.title.raw, 'Draft item');

  // Someone else's draft gets an autosave instead.
  const other = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: secondAdmin });
  assert.is(other.status, 200);
  assert.is(other.body.parent, id);
  assert.is(other.body.slug, `${id}-autosave-v1`);
});

test('an autosave of your own draft that was published shows its last save through the item and when it was published', async () => {
  // As the reference WordPress answers (checked on 127.0.0.1:8081): `date` is the site-local time of the item's last
  // save through /menu-items (an autosave keeps it), `date_gmt` the time the item was first published.
  const dates = async (id: number) => {
    const saved = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, {
      as: admin,
      body: { title: 'Not kept' },
    });
    assert.is(saved.status, 200, JSON.stringify(saved.body));
    assert.is(saved.body.id, id, 'the item itself');
    const { date, date_gmt, modified, modified_gmt } = saved.body;
    return { date, date_gmt, modified, modified_gmt };
  };
  const at = (iso: string) => t.clock.set(Date.parse(iso));
  const update = async (id: number, body: Record<string, unknown>) =>
    assert.is((await t.request('POST', `/core/v2/menu-items/${id}`, { as: admin, body })).status, 200);

  const born = await customLink({ title: 'Published first', status: 'publish' });
  at('2024-05-01T12:00:03Z');
  await update(born, { title: 'Renamed' });
  at('2024-05-01T12:00:06Z');
  await update(born, { status: 'draft' });
  at('2024-05-01T12:00:09Z');
  assert.equal(await dates(born), {
    date: '2024-05-01T14:00:06',
    date_gmt: '2024-05-01T12:00:00',
    modified: '2024-05-01T14:00:09',
    modified_gmt: '2024-05-01T12:00:09',
  });
  at('2024-05-01T12:00:15Z');
  await update(born, { title: 'Renamed again' });
  at('2024-05-01T12:00:17Z');
  assert.equal(await dates(born), {
    date: '2024-05-01T14:00:15',
    date_gmt: '2024-05-01T12:00:00',
    modified: '2024-05-01T14:00:17',
    modified_gmt: '2024-05-01T12:00:17',
  });
  at('2024-05-01T12:00:30Z');
  assert.equal((await dates(born)).date, '2024-05-01T14:00:15', 'an autosave keeps the date');

  // A draft published later: its publication time.
  at('2024-05-02T08:00:00Z');
  const later = await customLink({ title: 'Draft first', status: 'draft' });
  at('2024-05-02T09:00:00Z');
  await update(later, { status: 'publish' });
  at('2024-05-02T10:00:00Z');
  await update(later, { status: 'draft' });
  at('2024-05-02T11:00:00Z');
  await update(later, { status: 'publish' });
  at('2024-05-02T12:00:00Z');
  await update(later, { status: 'draft' });
  assert.equal(await dates(later), {
    date: '2024-05-02T14:00:00',
    date_gmt: '2024-05-02T09:00:00',
    modified: '2024-05-02T14:00:00',
    modified_gmt: '2024-05-02T12:00:00',
  });
});

test('errors: unknown items, callers without edit_theme_options, invalid args', async () => {
  const id = await customLink();
  const expectError = async (
    method: string,
    path: string,
    as: TestUser | null,
    status: number,
    code: string,
    message?: string,
  ) => {
    const response = await t.request(method, path, { as, ...(method === 'POST' ? { body: { title: 'x' } } : {}) });
    assert.is(response.status, status, `${method} ${path}: ${JSON.stringify(response.body)}`);
    assert.is(response.body.code, code);
    assert.is(response.body.data.status, status);
    if (message) assert.is(response.body.message, message);
  };
  for (const as of [null, subscriber, editor, admin]) {
    await expectError(
      'GET',
      '/core/v2/menu-items/999999/autosaves',
      as,
      404,
      'rest_post_invalid_parent',
      'Invalid post parent ID.',
    );
    await expectError('GET', '/core/v2/menu-items/999999/autosaves/5', as, 404, 'rest_post_invalid_parent');
    await expectError(
      'POST',
      '/core/v2/menu-items/999999/autosaves',
      as,
      404,
      'rest_post_invalid_id',
      'Invalid post ID.',
    );
  }
  // A post is not a menu item.
  const post = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'A post', status: 'publish' } });
  await expectError('GET', `/core/v2/menu-items/${post.body.id}/autosaves`, admin, 404, 'rest_post_invalid_parent');

  await expectError(
    'GET',
    `/core/v2/menu-items/${id}/autosaves`,
    null,
    401,
    'rest_cannot_read',
    'Sorry, you are not allowed to view autosaves of this post.',
  );
  await expectError('GET', `/core/v2/menu-items/${id}/autosaves`, editor, 403, 'rest_cannot_read');
  await expectError(
    'GET',
    `/core/v2/menu-items/${id}/autosaves/1`,
    editor,
    403,
    'rest_cannot_read',
    'Sorry, you are not allowed to view revisions of this post.',
  );
  await expectError(
    'POST',
    `/core/v2/menu-items/${id}/autosaves`,
    null,
    401,
    'rest_cannot_edit',
    'Sorry, you are not allowed to edit this post.',
  );
  await expectError('POST', `/core/v2/menu-items/${id}/autosaves`, editor, 403, 'rest_cannot_edit');
  await expectError(
    'GET',
    `/core/v2/menu-items/${id}/autosaves/1`,
    admin,
    404,
    'rest_post_no_autosave',
    'There is no autosave revision for this post.',
  );

  // The item's update args are validated first, as for the item itself.
  const badOrder = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, {
    as: admin,
    body: { menu_order: 0 },
  });
  assert.is(badOrder.status, 400);
  assert.is(badOrder.body.code, 'rest_invalid_param');
  assert.equal(Object.keys(badOrder.body.data.params), ['menu_order']);
  const badType = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, {
    as: editor,
    body: { type: 'bogus' },
  });
  assert.is(badType.status, 400);
  assert.equal(Object.keys(badType.body.data.params), ['type']);
  const badContext = await t.request('GET', `/core/v2/menu-items/${id}/autosaves?context=nope`, { as: admin });
  assert.is(badContext.status, 400);
  assert.equal(
    (await t.request('GET', `/core/v2/menu-items/${id}/autosaves`, { as: admin })).body,
    [],
    'no failed request made an autosave',
  );
});

test('autosaves are folded from the item stream: events on menu-item-{id}, gone with the item, rebuilt the same from the log', async () => {
  const id = await customLink();
  const saved = await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
  await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
  await t.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: secondAdmin });
  const events = await t.site.store.readStream(`menu-item-${id}`);
  assert.equal(
    events.map((e) => e.type),
    ['MenuItemCreated', 'MenuItemAutosaved', 'MenuItemAutosaveDiscarded', 'MenuItemAutosaved'],
  );
  assert.equal(events[2]!.data, { id, autosaveId: saved.body.id, userId: admin.id });

  const deleted = await t.request('DELETE', `/core/v2/menu-items/${id}?force=true`, { as: admin });
  assert.is(deleted.status, 200);
  assert.equal(
    Object.keys(deleted.body.previous).includes('autosaves'),
    false,
    'autosaves are not a field of the item',
  );
  const gone = await t.request('GET', `/core/v2/menu-items/${id}/autosaves`, { as: admin });
  assert.is(gone.status, 404);
});

test('the index lists both routes with the item update args on POST', async () => {
  const index = await t.request('GET', '/core/v2');
  const list = index.body.routes['/core/v2/menu-items/(?P<id>[\\d]+)/autosaves'];
  assert.equal(list.methods, ['GET', 'POST']);
  assert.equal(Object.keys(list.endpoints[0].args), ['parent', 'context']);
  const postArgs = list.endpoints[1].args;
  assert.is(postArgs.parent.minimum, 0, "the item's own parent arg");
  assert.is(postArgs.menu_order.minimum, 1);
  assert.is(postArgs.status.default, undefined, 'no defaults on an update');
  const single = index.body.routes['/core/v2/menu-items/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)'];
  assert.equal(single.methods, ['GET']);
  assert.equal(Object.keys(single.endpoints[0].args), ['parent', 'id', 'context']);
  const options = await t.request('OPTIONS', '/core/v2/menu-items/1/autosaves');
  assert.is(options.body.schema.title, 'nav_menu_item-revision');
  assert.equal(Object.keys(options.body.schema.properties), [
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
    'preview_link',
  ]);
});

test.run();

const onRedis = suite('menu item autosaves (redis read model)');
onRedis('autosaves are kept with the item in the Redis read model, outside its fields', async () => {
  const opened = testRedisReadModel();
  const site = await startTestSite({ readModel: opened.readModel });
  try {
    const me = await site.createUser('admin', 'administrator');
    const created = await site.request('POST', '/core/v2/menu-items', {
      as: me,
      body: { title: 'Home', url: 'https://example.com/' },
    });
    const id = created.body.id as number;
    const saved = await site.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: me });
    assert.is(saved.status, 200);
    const list = await site.request('GET', `/core/v2/menu-items/${id}/autosaves?context=edit`, { as: me });
    assert.equal(list.body, [saved.body]);
    const item = await site.request('GET', `/core/v2/menu-items/${id}?context=edit`, { as: me });
    assert.is(item.body.autosaves, undefined, 'autosaves are not a field of the item');
    const again = await site.request('POST', `/core/v2/menu-items/${id}/autosaves`, { as: me });
    assert.is(again.body.code, 'rest_autosave_no_changes');
    assert.equal((await site.request('GET', `/core/v2/menu-items/${id}/autosaves`, { as: me })).body, []);
  } finally {
    await site.close();
    await opened.cleanup();
  }
});
onRedis.run();
