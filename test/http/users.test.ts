/**
 * The users routes over HTTP, black-box, as WordPress 6.1 answers them (wp/v2 renamed core/v2): fields per
 * context, visibility (anonymous readers only see people with published content), the list's arguments,
 * `/me`, creating, updating (roles, email, slug, login password) and deleting with `reassign`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';

const VIEW_KEYS = ['_links', 'avatar_urls', 'description', 'id', 'link', 'meta', 'name', 'slug', 'url'];
const EMBED_KEYS = ['_links', 'avatar_urls', 'description', 'id', 'link', 'name', 'slug', 'url'];
const EDIT_KEYS = [
  ...VIEW_KEYS,
  'capabilities',
  'email',
  'extra_capabilities',
  'first_name',
  'last_name',
  'locale',
  'nickname',
  'registered_date',
  'roles',
  'username',
];

const keys = (value: object) => Object.keys(value).sort();
const ids = (response: TestResponse) => (response.body as { id: number }[]).map((item) => item.id);
const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

async function publish(t: TestSite, as: TestUser, title: string, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await t.request('POST', '/core/v2/posts', { as, body: { title, status: 'publish', ...extra } });
  assert.is(response.status, 201, response.text);
  return response.body;
}

// ---------------------------------------------------------------------------------------------------------------

const reading = suite('users: read and list');
let r: TestSite;
let admin: TestUser;
let editor: TestUser;
let author: TestUser;
let contributor: TestUser;
let subscriber: TestUser;

reading.before(async () => {
  r = await startTestSite();
  admin = await r.createUser('admin', 'administrator');
  editor = await r.createUser('editor', 'editor');
  author = await r.createUser('author', 'author');
  contributor = await r.createUser('contributor', 'contributor');
  subscriber = await r.createUser('subscriber', 'subscriber');
  await publish(r, author, 'By the author');
  // A draft does not make its author public.
  assert.is((await r.request('POST', '/core/v2/posts', { as: contributor, body: { title: 'Draft' } })).status, 201);
});
reading.after(async () => r.close());

reading('anonymous readers list only users with published posts; X-WP-Total counts them', async () => {
  const response = await r.request('GET', '/core/v2/users');
  assert.is(response.status, 200);
  assert.equal(ids(response), [author.id]);
  assert.is(response.headers.get('x-wp-total'), '1');
  assert.is(response.headers.get('x-wp-totalpages'), '1');
  const [user] = response.body;
  assert.equal(keys(user), VIEW_KEYS);
  assert.is(user.name, 'author');
  assert.is(user.slug, 'author');
  assert.is(user.url, '');
  assert.is(user.description, '');
  assert.is(user.link, `${r.url}/author/author/`);
  assert.equal(user.meta, []);
  assert.equal(user._links, {
    self: [{ href: `${r.url}/core/v2/users/${author.id}` }],
    collection: [{ href: `${r.url}/core/v2/users` }],
  });
  // md5("author@example.test") starts with a hex digit that picks one of three servers.
  assert.match(user.avatar_urls['24'], /^http:\/\/[012]\.gravatar\.com\/avatar\/[0-9a-f]{32}\?s=24&d=mm&r=g$/);
  assert.equal(Object.keys(user.avatar_urls), ['24', '48', '96']);
});

reading('a user without the right to list users sees the same; an administrator sees everyone, by name', async () => {
  assert.equal(ids(await r.request('GET', '/core/v2/users', { as: editor })), [author.id]);
  assert.equal(ids(await r.request('GET', '/core/v2/users', { as: subscriber })), [author.id]);
  const all = await r.request('GET', '/core/v2/users', { as: admin });
  assert.equal(ids(all), [admin.id, author.id, contributor.id, editor.id, subscriber.id]);
  assert.is(all.headers.get('x-wp-total'), '5');
  assert.equal(ids(await r.request('GET', '/core/v2/users?order=desc', { as: admin })), [
    subscriber.id,
    editor.id,
    contributor.id,
    author.id,
    admin.id,
  ]);
});

reading('context=edit needs list_users; an administrator gets every edit field', async () => {
  const anonymous = await r.request('GET', '/core/v2/users?context=edit');
  assert.is(anonymous.status, 401);
  assert.equal(anonymous.body, {
    code: 'rest_forbidden_context',
    message: 'Sorry, you are not allowed to edit users.',
    data: { status: 401 },
  });
  assert.is((await r.request('GET', '/core/v2/users?context=edit', { as: editor })).status, 403);
  const response = await r.request('GET', `/core/v2/users?context=edit&include=${editor.id}`, { as: admin });
  assert.is(response.status, 200);
  const [user] = response.body;
  assert.equal(keys(user), EDIT_KEYS.sort());
  assert.is(user.username, 'editor');
  assert.is(user.email, 'editor@example.test');
  assert.is(user.nickname, 'editor');
  assert.is(user.locale, 'en_US');
  assert.equal(user.roles, ['editor']);
  assert.is(user.registered_date, '2024-05-01T12:00:00+00:00');
  assert.equal(user.extra_capabilities, { editor: true });
  assert.is(user.capabilities.edit_others_posts, true);
  assert.is(user.capabilities.editor, true);
  assert.is(user.capabilities.level_7, true);
  assert.is(user.capabilities.level_5, true);
  assert.is(user.capabilities.list_users, undefined);
  assert.equal(user.meta, { persisted_preferences: [] });
});

reading('context=embed has the embed fields', async () => {
  const response = await r.request('GET', '/core/v2/users?context=embed');
  assert.equal(keys(response.body[0]), EMBED_KEYS);
});

reading('filters reserved to those who list users: roles, capabilities, orderby email / registered_date', async () => {
  const roles = await r.request('GET', '/core/v2/users?roles=author', { as: editor });
  assert.is(roles.status, 403);
  assert.equal(roles.body, {
    code: 'rest_user_cannot_view',
    message: 'Sorry, you are not allowed to filter users by role.',
    data: { status: 403 },
  });
  const caps = await r.request('GET', '/core/v2/users?capabilities=edit_posts');
  assert.equal(caps.body, {
    code: 'rest_user_cannot_view',
    message: 'Sorry, you are not allowed to filter users by capability.',
    data: { status: 401 },
  });
  for (const orderby of ['email', 'registered_date']) {
    const response = await r.request('GET', `/core/v2/users?orderby=${orderby}`, { as: author });
    assert.equal(response.body, {
      code: 'rest_forbidden_orderby',
      message: 'Sorry, you are not allowed to order users by this parameter.',
      data: { status: 403 },
    });
  }
  assert.equal(ids(await r.request('GET', '/core/v2/users?roles=author,editor', { as: admin })), [
    author.id,
    editor.id,
  ]);
  assert.equal(ids(await r.request('GET', '/core/v2/users?capabilities=publish_posts', { as: admin })), [
    admin.id,
    author.id,
    editor.id,
  ]);
  assert.equal(ids(await r.request('GET', '/core/v2/users?capabilities=subscriber', { as: admin })), [subscriber.id]);
});

reading('who=authors needs edit rights on a post type and lists everyone above subscriber', async () => {
  const anonymous = await r.request('GET', '/core/v2/users?who=authors');
  assert.equal(anonymous.body, {
    code: 'rest_forbidden_who',
    message: 'Sorry, you are not allowed to query users by this parameter.',
    data: { status: 401 },
  });
  assert.is((await r.request('GET', '/core/v2/users?who=authors', { as: subscriber })).status, 403);
  const response = await r.request('GET', '/core/v2/users?who=authors', { as: contributor });
  assert.is(response.status, 200);
  assert.equal(ids(response), [admin.id, author.id, contributor.id, editor.id]);
  assert.is((await r.request('GET', '/core/v2/users?who=everyone')).status, 400);
});

reading(
  'search: anonymous callers match login, slug and display name only; administrators also email and URL',
  async () => {
    assert.equal(ids(await r.request('GET', '/core/v2/users?search=auth')), [author.id]);
    assert.equal(ids(await r.request('GET', '/core/v2/users?search=example.test')), []);
    assert.equal(ids(await r.request('GET', '/core/v2/users?search=EDIT', { as: admin })), [editor.id]);
    assert.equal(ids(await r.request('GET', '/core/v2/users?search=contributor@example.test', { as: admin })), [
      contributor.id,
    ]);
    assert.equal(ids(await r.request('GET', `/core/v2/users?search=${editor.id}`, { as: admin })), [editor.id]);
    assert.equal(ids(await r.request('GET', '/core/v2/users?search=*sub*', { as: admin })), [subscriber.id]);
  },
);

reading('include, exclude, slug, orderby include / include_slugs / id, offset and pagination headers', async () => {
  const include = await r.request('GET', `/core/v2/users?include=${editor.id},${admin.id}&orderby=include`, {
    as: admin,
  });
  assert.equal(ids(include), [editor.id, admin.id]);
  assert.equal(
    ids(
      await r.request('GET', `/core/v2/users?include=${editor.id},${admin.id}&orderby=include&order=desc`, {
        as: admin,
      }),
    ),
    [admin.id, editor.id],
  );
  assert.equal(ids(await r.request('GET', `/core/v2/users?exclude=${admin.id},${author.id}`, { as: admin })), [
    contributor.id,
    editor.id,
    subscriber.id,
  ]);
  assert.equal(
    ids(await r.request('GET', '/core/v2/users?slug=subscriber,editor&orderby=include_slugs', { as: admin })),
    [subscriber.id, editor.id],
  );
  assert.equal(ids(await r.request('GET', '/core/v2/users?orderby=id&order=desc&per_page=2', { as: admin })), [
    subscriber.id,
    contributor.id,
  ]);
  const page2 = await r.request('GET', '/core/v2/users?orderby=id&per_page=2&page=2', { as: admin });
  assert.equal(ids(page2), [author.id, contributor.id]);
  assert.is(page2.headers.get('x-wp-total'), '5');
  assert.is(page2.headers.get('x-wp-totalpages'), '3');
  assert.is(
    page2.headers.get('link'),
    `<${r.url}/core/v2/users?orderby=id&per_page=2&page=1>; rel="prev", <${r.url}/core/v2/users?orderby=id&per_page=2&page=3>; rel="next"`,
  );
  assert.equal(ids(await r.request('GET', '/core/v2/users?orderby=id&per_page=2&offset=3', { as: admin })), [
    contributor.id,
    subscriber.id,
  ]);
  // Users have no out-of-range error: a page past the end is just empty.
  const beyond = await r.request('GET', '/core/v2/users?page=9', { as: admin });
  assert.is(beyond.status, 200);
  assert.equal(beyond.body, []);
  assert.is((await r.request('GET', '/core/v2/users?orderby=login')).status, 400);
  assert.is((await r.request('GET', '/core/v2/users?per_page=101')).status, 400);
});

reading('has_published_posts narrows an administrator’s list too', async () => {
  assert.equal(ids(await r.request('GET', '/core/v2/users?has_published_posts=true', { as: admin })), [author.id]);
  assert.equal(ids(await r.request('GET', '/core/v2/users?has_published_posts[]=page', { as: admin })), []);
  assert.is((await r.request('GET', '/core/v2/users?has_published_posts[]=nonsense', { as: admin })).status, 400);
});

reading(
  'a single user: public with published posts, else only for themselves and those who may list or edit users',
  async () => {
    const visible = await r.request('GET', `/core/v2/users/${author.id}`);
    assert.is(visible.status, 200);
    assert.equal(keys(visible.body), VIEW_KEYS);
    const hidden = await r.request('GET', `/core/v2/users/${subscriber.id}`);
    assert.is(hidden.status, 401);
    assert.equal(hidden.body, {
      code: 'rest_user_cannot_view',
      message: 'Sorry, you are not allowed to list users.',
      data: { status: 401 },
    });
    assert.is((await r.request('GET', `/core/v2/users/${subscriber.id}`, { as: editor })).status, 403);
    assert.is((await r.request('GET', `/core/v2/users/${subscriber.id}`, { as: subscriber })).status, 200);
    assert.is((await r.request('GET', `/core/v2/users/${subscriber.id}`, { as: admin })).status, 200);
    const missing = await r.request('GET', '/core/v2/users/999');
    assert.is(missing.status, 404);
    assert.equal(missing.body, { code: 'rest_user_invalid_id', message: 'Invalid user ID.', data: { status: 404 } });
  },
);

reading(
  'a single user in edit context: themselves (with roles), or with edit_users; others get rest_forbidden_context',
  async () => {
    const own = await r.request('GET', `/core/v2/users/${subscriber.id}?context=edit`, { as: subscriber });
    assert.is(own.status, 200);
    assert.equal(own.body.roles, ['subscriber']);
    assert.equal(own.body.capabilities, { read: true, level_0: true, subscriber: true });
    const other = await r.request('GET', `/core/v2/users/${author.id}?context=edit`, { as: editor });
    assert.is(other.status, 403);
    assert.equal(other.body, {
      code: 'rest_forbidden_context',
      message: 'Sorry, you are not allowed to edit this user.',
      data: { status: 403 },
    });
    assert.is(
      (await r.request('GET', `/core/v2/users/${author.id}?context=edit`, { as: admin })).body.email,
      'author@example.test',
    );
  },
);

reading('/users/me: 401 rest_not_logged_in anonymous; the caller otherwise, in any context', async () => {
  const anonymous = await r.request('GET', '/core/v2/users/me');
  assert.is(anonymous.status, 401);
  assert.equal(anonymous.body, {
    code: 'rest_not_logged_in',
    message: 'You are not currently logged in.',
    data: { status: 401 },
  });
  const me = await r.request('GET', '/core/v2/users/me', { as: contributor });
  assert.is(me.status, 200);
  assert.is(me.body.id, contributor.id);
  assert.equal(keys(me.body), VIEW_KEYS);
  const edit = await r.request('GET', '/core/v2/users/me?context=edit', { as: contributor });
  assert.is(edit.body.username, 'contributor');
  assert.equal(edit.body.roles, ['contributor']);
});

reading('the index lists the users routes with WordPress’s arguments', async () => {
  const index = await r.request('GET', '/core/v2');
  const routes = index.body.routes;
  for (const path of ['/core/v2/users', '/core/v2/users/(?P<id>[\\d]+)', '/core/v2/users/me'])
    assert.ok(routes[path], path);
  const list = routes['/core/v2/users'].endpoints[0].args;
  assert.equal(Object.keys(list), [
    'context',
    'page',
    'per_page',
    'search',
    'exclude',
    'include',
    'offset',
    'order',
    'orderby',
    'slug',
    'roles',
    'capabilities',
    'who',
    'has_published_posts',
  ]);
  assert.equal(list.orderby.enum, [
    'id',
    'include',
    'name',
    'registered_date',
    'slug',
    'include_slugs',
    'email',
    'url',
  ]);
  const create = routes['/core/v2/users'].endpoints[1].args;
  assert.is(create.username.required, true);
  assert.is(create.email.required, true);
  assert.is(create.password.required, true);
  assert.is(create.name.required, false);
  assert.equal(routes['/core/v2/users/(?P<id>[\\d]+)'].methods, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
  assert.is(routes['/core/v2/users/(?P<id>[\\d]+)'].endpoints[2].args.reassign.required, true);
});

// ---------------------------------------------------------------------------------------------------------------

const writing = suite('users: create and update');
let w: TestSite;
let wAdmin: TestUser;
let wEditor: TestUser;
let wSubscriber: TestUser;

writing.before(async () => {
  w = await startTestSite();
  wAdmin = await w.createUser('admin', 'administrator');
  wEditor = await w.createUser('editor', 'editor');
  wSubscriber = await w.createUser('subscriber', 'subscriber');
});
writing.after(async () => w.close());

writing('create: 201 with Location, edit context, subscriber by default, never the password', async () => {
  const response = await w.request('POST', '/core/v2/users', {
    as: wAdmin,
    body: {
      username: 'ada',
      email: 'ada@example.test',
      password: 'correct horse',
      first_name: 'Ada',
      last_name: 'Lovelace',
      description: 'Counts.',
      url: 'https://ada.example',
    },
  });
  assert.is(response.status, 201, response.text);
  const user = response.body;
  assert.is(response.headers.get('location'), `${w.url}/core/v2/users/${user.id}`);
  assert.equal(keys(user), EDIT_KEYS.sort());
  assert.is(user.username, 'ada');
  assert.is(user.name, 'Ada Lovelace');
  assert.is(user.first_name, 'Ada');
  assert.is(user.nickname, 'ada');
  assert.is(user.slug, 'ada');
  assert.is(user.url, 'https://ada.example');
  assert.equal(user.roles, ['subscriber']);
  assert.not.ok(response.text.includes('correct horse'));
  assert.not.ok('password' in user);
  // The stored event holds a slow hash, not the password.
  const events = await w.site.store.readStream(`user-${user.id}`);
  const registered = events.find((e) => e.type === 'UserRegistered')!.data as { passwordHash: string };
  assert.match(registered.passwordHash, /^bcrypt-sha384\$\$2b\$11\$/);
  assert.not.ok(JSON.stringify(events).includes('correct horse'));
});

writing('create: the login password never authenticates API requests', async () => {
  await w.request('POST', '/core/v2/users', {
    as: wAdmin,
    body: { username: 'grace', email: 'grace@example.test', password: 'hopper-1906' },
  });
  const response = await w.request('GET', '/core/v2/users/me', {
    headers: { authorization: basic('grace', 'hopper-1906') },
  });
  assert.is(response.status, 401);
  assert.is(response.body.code, 'incorrect_password');
});

writing('create: roles, a requested slug, and a taken slug gets a suffix', async () => {
  const first = await w.request('POST', '/core/v2/users', {
    as: wAdmin,
    body: {
      username: 'linus',
      email: 'linus@example.test',
      password: 'x',
      slug: 'Penguin',
      roles: ['author', 'editor'],
    },
  });
  assert.is(first.status, 201, first.text);
  assert.is(first.body.slug, 'penguin');
  assert.equal(first.body.roles, ['author', 'editor']);
  const second = await w.request('POST', '/core/v2/users', {
    as: wAdmin,
    body: { username: 'tux', email: 'tux@example.test', password: 'x', slug: 'penguin' },
  });
  assert.is(second.body.slug, 'penguin-2');
});

writing('create: refused without create_users; WordPress’s argument and insertion errors', async () => {
  const body = { username: 'newbie', email: 'newbie@example.test', password: 'secret' };
  const editor = await w.request('POST', '/core/v2/users', { as: wEditor, body });
  assert.is(editor.status, 403);
  assert.equal(editor.body, {
    code: 'rest_cannot_create_user',
    message: 'Sorry, you are not allowed to create new users.',
    data: { status: 403 },
  });
  assert.is((await w.request('POST', '/core/v2/users', { body })).status, 401);

  const missing = await w.request('POST', '/core/v2/users', { as: wAdmin, body: { username: 'x' } });
  assert.equal(missing.body, {
    code: 'rest_missing_callback_param',
    message: 'Missing parameter(s): email, password',
    data: { status: 400, params: ['email', 'password'] },
  });
  const badName = await w.request('POST', '/core/v2/users', { as: wAdmin, body: { ...body, username: 'bad*name' } });
  assert.is(badName.status, 400);
  assert.is(badName.body.data.details.username.code, 'rest_user_invalid_username');
  const badEmail = await w.request('POST', '/core/v2/users', { as: wAdmin, body: { ...body, email: 'not-an-email' } });
  assert.is(badEmail.body.data.details.email.code, 'rest_invalid_email');
  const backslash = await w.request('POST', '/core/v2/users', { as: wAdmin, body: { ...body, password: 'a\\b' } });
  assert.equal(backslash.body.data.details.password, {
    code: 'rest_user_invalid_password',
    message: 'Passwords cannot contain the "\\" character.',
    data: { status: 400 },
  });
  const noRole = await w.request('POST', '/core/v2/users', { as: wAdmin, body: { ...body, roles: ['overlord'] } });
  assert.equal(noRole.body, {
    code: 'rest_user_invalid_role',
    message: 'The role overlord does not exist.',
    data: { status: 400 },
  });
  const withId = await w.request('POST', '/core/v2/users', { as: wAdmin, body: { ...body, id: 5 } });
  assert.equal(withId.body, {
    code: 'rest_user_exists',
    message: 'Cannot create existing user.',
    data: { status: 400 },
  });
  // WordPress reports a taken login or email without a status (a 500 whose data is null); bad input is a 400 here.
  const takenLogin = await w.request('POST', '/core/v2/users', { as: wAdmin, body: { ...body, username: 'EDITOR' } });
  assert.is(takenLogin.status, 400);
  assert.equal(takenLogin.body, {
    code: 'existing_user_login',
    message: 'Sorry, that username already exists!',
    data: { status: 400 },
  });
  const takenEmail = await w.request('POST', '/core/v2/users', {
    as: wAdmin,
    body: { ...body, email: 'Editor@Example.test' },
  });
  assert.equal(takenEmail.body, {
    code: 'existing_user_email',
    message: 'Sorry, that email address is already used!',
    data: { status: 400 },
  });
  // Past the lengths WordPress's users table keeps: its insertion codes, as a 400 too.
  const longLogin = await w.request('POST', '/core/v2/users', {
    as: wAdmin,
    body: { ...body, username: 'n'.repeat(61) },
  });
  assert.equal(longLogin.body, {
    code: 'user_login_too_long',
    message: 'Username may not be longer than 60 characters.',
    data: { status: 400 },
  });
  const longSlug = await w.request('POST', '/core/v2/users', { as: wAdmin, body: { ...body, slug: 's'.repeat(51) } });
  assert.equal(longSlug.body, {
    code: 'user_nicename_too_long',
    message: 'Nicename may not be longer than 50 characters.',
    data: { status: 400 },
  });
  const longUrl = `https://example.test/${'u'.repeat(80)}`;
  const withLongUrl = await w.request('POST', '/core/v2/users', { as: wAdmin, body: { ...body, url: longUrl } });
  assert.equal(withLongUrl.body, {
    code: 'user_url_too_long',
    message: 'User URL may not be longer than 100 characters.',
    data: { status: 400 },
  });
  // Nothing of the failed attempts was kept: the login is still free.
  assert.is((await w.request('POST', '/core/v2/users', { as: wAdmin, body })).status, 201);
});

writing('update: a user edits their own profile; sanitized text; unchanged fields stay', async () => {
  const response = await w.request('POST', `/core/v2/users/${wSubscriber.id}`, {
    as: wSubscriber,
    body: { name: ' Sub <b>Scriber</b> ', first_name: 'Sub', description: 'Reads things.', locale: 'en_US' },
  });
  assert.is(response.status, 200, response.text);
  assert.is(response.body.name, 'Sub Scriber');
  assert.is(response.body.first_name, 'Sub');
  assert.is(response.body.description, 'Reads things.');
  assert.is(response.body.email, 'subscriber@example.test');
  const me = await w.request('PATCH', '/core/v2/users/me', { as: wSubscriber, body: { nickname: 'subby' } });
  assert.is(me.body.nickname, 'subby');
  assert.is(me.body.name, 'Sub Scriber');
  const events = await w.site.store.readStream(`user-${wSubscriber.id}`);
  assert.equal(
    events
      .filter((e) => e.type === 'UserUpdated')
      .map((e) => Object.keys((e.data as { changes: object }).changes).sort()),
    [['description', 'displayName', 'firstName', 'locale'], ['nickname']],
  );
});

writing(
  'update: someone else needs edit_users (rest_cannot_edit); roles need promote_users (rest_cannot_edit_roles)',
  async () => {
    const other = await w.request('POST', `/core/v2/users/${wSubscriber.id}`, {
      as: wEditor,
      body: { name: 'Hacked' },
    });
    assert.is(other.status, 403);
    assert.equal(other.body, {
      code: 'rest_cannot_edit',
      message: 'Sorry, you are not allowed to edit this user.',
      data: { status: 403 },
    });
    const roles = await w.request('POST', `/core/v2/users/${wSubscriber.id}`, {
      as: wSubscriber,
      body: { roles: ['administrator'] },
    });
    assert.is(roles.status, 403);
    assert.equal(roles.body, {
      code: 'rest_cannot_edit_roles',
      message: 'Sorry, you are not allowed to edit roles of this user.',
      data: { status: 403 },
    });
    assert.is((await w.request('POST', `/core/v2/users/${wSubscriber.id}`, { body: { name: 'x' } })).status, 401);
    assert.is((await w.request('POST', '/core/v2/users/999', { as: wAdmin, body: { name: 'x' } })).status, 404);
  },
);

writing(
  'update: an administrator promotes; an administrator cannot give themselves a role without edit_users',
  async () => {
    const user = (
      await w.request('POST', '/core/v2/users', {
        as: wAdmin,
        body: { username: 'promoted', email: 'promoted@example.test', password: 'x' },
      })
    ).body;
    const promoted = await w.request('PUT', `/core/v2/users/${user.id}`, { as: wAdmin, body: { roles: ['editor'] } });
    assert.is(promoted.status, 200);
    assert.equal(promoted.body.roles, ['editor']);
    const events = await w.site.store.readStream(`user-${user.id}`);
    assert.equal(events.at(-1)!.data, { id: user.id, roles: ['editor'], previous: ['subscriber'] });
    const demote = await w.request('PUT', '/core/v2/users/me', { as: wAdmin, body: { roles: ['editor'] } });
    assert.is(demote.status, 403);
    assert.equal(demote.body, {
      code: 'rest_user_invalid_role',
      message: 'Sorry, you are not allowed to give users that role.',
      data: { status: 403 },
    });
    assert.equal((await w.request('GET', '/core/v2/users/me?context=edit', { as: wAdmin })).body.roles, [
      'administrator',
    ]);
    // The new editor’s next request already has the editor’s rights.
    const login = await w.request('POST', `/core/v2/users/${user.id}/application-passwords`, {
      as: wAdmin,
      body: { name: 'test' },
    });
    const auth = basic('promoted', login.body.password);
    assert.is(
      (await w.request('GET', '/core/v2/posts?status=draft', { headers: { authorization: auth } })).status,
      200,
    );
  },
);

writing(
  'update: email taken (rest_user_invalid_email), username not editable, slug taken (rest_user_invalid_slug)',
  async () => {
    const email = await w.request('POST', '/core/v2/users/me', {
      as: wSubscriber,
      body: { email: 'EDITOR@example.test' },
    });
    assert.equal(email.body, {
      code: 'rest_user_invalid_email',
      message: 'Invalid email address.',
      data: { status: 400 },
    });
    const username = await w.request('POST', '/core/v2/users/me', { as: wSubscriber, body: { username: 'someone' } });
    assert.equal(username.body, {
      code: 'rest_user_invalid_argument',
      message: 'Username is not editable.',
      data: { status: 400 },
    });
    assert.is(
      (await w.request('POST', '/core/v2/users/me', { as: wSubscriber, body: { username: 'subscriber' } })).status,
      200,
    );
    const slug = await w.request('POST', '/core/v2/users/me', { as: wSubscriber, body: { slug: 'editor' } });
    assert.equal(slug.body, { code: 'rest_user_invalid_slug', message: 'Invalid slug.', data: { status: 400 } });
  },
);

writing('update: a new email and slug free the old ones for others', async () => {
  const user = (
    await w.request('POST', '/core/v2/users', {
      as: wAdmin,
      body: { username: 'mover', email: 'old@example.test', password: 'x' },
    })
  ).body;
  const moved = await w.request('POST', `/core/v2/users/${user.id}`, {
    as: wAdmin,
    body: { email: 'new@example.test', slug: 'moved' },
  });
  assert.is(moved.status, 200, moved.text);
  assert.is(moved.body.email, 'new@example.test');
  assert.is(moved.body.slug, 'moved');
  assert.is(moved.body.link, `${w.url}/author/moved/`);
  const reuse = await w.request('POST', '/core/v2/users', {
    as: wAdmin,
    body: { username: 'mover2', email: 'old@example.test', password: 'x', slug: 'mover' },
  });
  assert.is(reuse.status, 201, reuse.text);
  assert.is(reuse.body.slug, 'mover');
  assert.is(
    (
      await w.request('POST', '/core/v2/users', {
        as: wAdmin,
        body: { username: 'mover3', email: 'new@example.test', password: 'x' },
      })
    ).status,
    400,
  );
});

writing('update: a new login password is stored as a new hash', async () => {
  const response = await w.request('POST', '/core/v2/users/me', { as: wEditor, body: { password: 'new secret' } });
  assert.is(response.status, 200);
  const events = await w.site.store.readStream(`user-${wEditor.id}`);
  const changed = events.filter((e) => e.type === 'UserPasswordChanged');
  assert.is(changed.length, 1);
  assert.match((changed[0]!.data as { passwordHash: string }).passwordHash, /^bcrypt-sha384\$\$2b\$11\$/);
  const empty = await w.request('POST', '/core/v2/users/me', { as: wEditor, body: { password: '' } });
  assert.is(empty.body.data.details.password.code, 'rest_user_invalid_password');
});

// ---------------------------------------------------------------------------------------------------------------

const deleting = suite('users: delete');
let d: TestSite;
let dAdmin: TestUser;
let dEditor: TestUser;

deleting.before(async () => {
  d = await startTestSite();
  dAdmin = await d.createUser('admin', 'administrator');
  dEditor = await d.createUser('editor', 'editor');
});
deleting.after(async () => d.close());

deleting('reassign is required; force must be true (501); invalid values are argument errors', async () => {
  const leaver = await d.createUser('leaver', 'author');
  const missing = await d.request('DELETE', `/core/v2/users/${leaver.id}`, { as: dAdmin });
  assert.equal(missing.body, {
    code: 'rest_missing_callback_param',
    message: 'Missing parameter(s): reassign',
    data: { status: 400, params: ['reassign'] },
  });
  const notForced = await d.request('DELETE', `/core/v2/users/${leaver.id}?reassign=false`, { as: dAdmin });
  assert.is(notForced.status, 501);
  assert.equal(notForced.body, {
    code: 'rest_trash_not_supported',
    message: "Users do not support trashing. Set 'force=true' to delete.",
    data: { status: 501 },
  });
  const bad = await d.request('DELETE', `/core/v2/users/${leaver.id}?reassign=abc&force=true`, { as: dAdmin });
  assert.equal(bad.body, {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): reassign',
    data: {
      status: 400,
      params: { reassign: 'Invalid user parameter(s).' },
      details: {
        reassign: { code: 'rest_invalid_param', message: 'Invalid user parameter(s).', data: { status: 400 } },
      },
    },
  });
  for (const target of [leaver.id, 999]) {
    const invalid = await d.request('DELETE', `/core/v2/users/${leaver.id}?reassign=${target}&force=true`, {
      as: dAdmin,
    });
    assert.equal(invalid.body, {
      code: 'rest_user_invalid_reassign',
      message: 'Invalid user ID for reassignment.',
      data: { status: 400 },
    });
  }
  const editor = await d.request('DELETE', `/core/v2/users/${leaver.id}?reassign=false&force=true`, { as: dEditor });
  assert.is(editor.status, 403);
  assert.equal(editor.body, {
    code: 'rest_user_cannot_delete',
    message: 'Sorry, you are not allowed to delete this user.',
    data: { status: 403 },
  });
  assert.is((await d.request('DELETE', '/core/v2/users/999?reassign=false&force=true', { as: dAdmin })).status, 404);
  assert.is((await d.request('DELETE', '/core/v2/users/me?reassign=false&force=true')).status, 404);
});

deleting(
  'with reassign: the content moves to the heir, untouched otherwise; the user is gone, their names free',
  async () => {
    const leaver = await d.createUser('leaver2', 'author');
    const published = await publish(d, leaver, 'Published by the leaver');
    const draft = (await d.request('POST', '/core/v2/posts', { as: leaver, body: { title: 'Their draft' } })).body;
    const response = await d.request('DELETE', `/core/v2/users/${leaver.id}?reassign=${dEditor.id}&force=true`, {
      as: dAdmin,
    });
    assert.is(response.status, 200, response.text);
    assert.is(response.body.deleted, true);
    assert.is(response.body.previous.id, leaver.id);
    assert.is(response.body.previous.username, 'leaver2');
    assert.not.ok('_links' in response.body.previous);
    for (const post of [published, draft]) {
      const after = (await d.request('GET', `/core/v2/posts/${post.id}?context=edit`, { as: dAdmin })).body;
      assert.is(after.author, dEditor.id);
      assert.is(after.modified_gmt, post.modified_gmt);
      assert.is(after.status, post.status);
    }
    assert.is((await d.request('GET', `/core/v2/users/${leaver.id}`, { as: dAdmin })).status, 404);
    // Their application password stops working at once.
    assert.is((await d.request('GET', '/core/v2/users/me', { as: leaver })).status, 401);
    // The login and the email can be registered again.
    const again = await d.request('POST', '/core/v2/users', {
      as: dAdmin,
      body: { username: 'leaver2', email: 'leaver2@example.test', password: 'x' },
    });
    assert.is(again.status, 201, again.text);
    assert.is(again.body.slug, 'leaver2');
    const events = await d.site.store.readStream(`user-${leaver.id}`);
    assert.equal(events.at(-1)!.data, { id: leaver.id, reassignedTo: dEditor.id });
  },
);

deleting(
  'without reassign (false, 0 or empty): the content goes to the trash, what was already there is deleted',
  async () => {
    for (const reassign of ['false', '0', '']) {
      const leaver = await d.createUser(`trasher${reassign || 'empty'}`, 'author');
      const published = await publish(d, leaver, 'To be trashed');
      const trashed = await publish(d, leaver, 'Already trashed');
      assert.is((await d.request('DELETE', `/core/v2/posts/${trashed.id}`, { as: leaver })).status, 200);
      const response = await d.request('DELETE', `/core/v2/users/${leaver.id}?reassign=${reassign}&force=true`, {
        as: dAdmin,
      });
      assert.is(response.status, 200, response.text);
      const after = await d.request('GET', `/core/v2/posts/${published.id}?context=edit`, { as: dAdmin });
      assert.is(after.body.status, 'trash');
      assert.is(after.body.author, leaver.id);
      assert.is((await d.request('GET', `/core/v2/posts/${trashed.id}`, { as: dAdmin })).status, 404);
    }
  },
);

deleting('an administrator may delete themselves through /users/me', async () => {
  const other = await d.createUser('otheradmin', 'administrator');
  const response = await d.request('DELETE', `/core/v2/users/me?reassign=${dAdmin.id}&force=true`, { as: other });
  assert.is(response.status, 200, response.text);
  assert.is(response.body.previous.id, other.id);
  assert.is((await d.request('GET', '/core/v2/users/me', { as: other })).status, 401);
});

reading(
  'a negative offset is an empty page with the total; an offset or page beyond 2^53 is an empty page too',
  async () => {
    const all = await r.request('GET', '/core/v2/users?_fields=id', { as: admin });
    // "1e400" overflows to 0, as PHP casts it: the first page.
    assert.equal((await r.request('GET', '/core/v2/users?offset=1e400&_fields=id', { as: admin })).body, all.body);
    for (const query of ['offset=-1', 'offset=9007199254740993', 'page=9007199254740993']) {
      const response = await r.request('GET', `/core/v2/users?${query}&_fields=id`, { as: admin });
      assert.equal([response.status, response.body], [200, []], query);
      assert.is(response.headers.get('x-wp-total'), all.headers.get('x-wp-total'), query);
    }
  },
);

reading.run();
writing.run();
deleting.run();
