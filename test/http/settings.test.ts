/**
 * /core/v2/settings: administrators read and change the site settings; the shapes and errors are those the reference
 * WordPress 6.1 answers (recorded here: `GET /wp-json/wp/v2/settings`, `OPTIONS`, and the refusals).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('settings');
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let subscriber: TestUser;

test.before(async () => {
  t = await startTestSite({ timezone: 'Europe/Berlin' });
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  subscriber = await t.createUser('subscriber', 'subscriber');
});
test.after(async () => t.close());

/** The reference's answer to GET as administrator, key by key (its values are its own site's). */
const REFERENCE_KEYS = [
  'title',
  'description',
  'url',
  'email',
  'timezone',
  'date_format',
  'time_format',
  'start_of_week',
  'language',
  'use_smilies',
  'default_category',
  'default_post_format',
  'posts_per_page',
  'show_on_front',
  'page_on_front',
  'page_for_posts',
  'default_ping_status',
  'default_comment_status',
  'site_logo',
  'site_icon',
];

const write = (body: unknown, as: TestUser | null = admin) => t.request('POST', '/core/v2/settings', { as, body });

test('administrators only: anonymous 401, others 403, rest_forbidden, for reading and writing', async () => {
  const forbidden = {
    code: 'rest_forbidden',
    message: 'Sorry, you are not allowed to do that.',
    data: { status: 401 },
  };
  const anonymous = await t.request('GET', '/core/v2/settings');
  assert.equal([anonymous.status, anonymous.body], [401, forbidden]);
  for (const who of [subscriber, editor]) {
    const read = await t.request('GET', '/core/v2/settings', { as: who });
    assert.equal([read.status, read.body], [403, { ...forbidden, data: { status: 403 } }]);
    const changed = await write({ title: 'x' }, who);
    assert.equal([changed.status, changed.body.code], [403, 'rest_forbidden']);
  }
});

test('GET: every setting WordPress 6.1 lists, in its order, defaults from the deployment', async () => {
  const { status, body } = await t.request('GET', '/core/v2/settings', { as: admin });
  assert.is(status, 200);
  assert.equal(Object.keys(body), REFERENCE_KEYS);
  assert.equal(body, {
    title: 'Test site',
    description: 'Just another test site',
    url: t.url,
    email: 'admin@127.0.0.1',
    timezone: 'Europe/Berlin',
    date_format: 'F j, Y',
    time_format: 'g:i a',
    start_of_week: 1,
    language: 'en_US',
    use_smilies: true,
    default_category: 1,
    default_post_format: '0',
    posts_per_page: 10,
    show_on_front: 'posts',
    page_on_front: 0,
    page_for_posts: 0,
    default_ping_status: 'open',
    default_comment_status: 'open',
    site_logo: null,
    site_icon: 0,
  });
});

test('OPTIONS: the reference schema and update args', async () => {
  const { body } = await t.request('OPTIONS', '/core/v2/settings', { as: admin });
  assert.equal(body.methods, ['GET', 'POST', 'PUT', 'PATCH']);
  assert.equal(body.endpoints[0], { methods: ['GET'], args: [] });
  assert.equal(Object.keys(body.endpoints[1].args), REFERENCE_KEYS);
  assert.equal(body.endpoints[1].args.email, {
    description: 'This address is used for admin purposes, like new user notification.',
    type: 'string',
    format: 'email',
    required: false,
  });
  assert.equal(body.endpoints[1].args.default_ping_status, {
    description: 'Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.',
    type: 'string',
    enum: ['open', 'closed'],
    required: false,
  });
  assert.is(body.schema.title, 'settings');
  assert.equal(Object.keys(body.schema.properties), REFERENCE_KEYS);
  assert.equal(body.schema.properties.posts_per_page, {
    type: 'integer',
    description: 'Blog pages show at most.',
    default: 10,
  });
  assert.equal(body.schema.properties.language.default, 'en_US');
  assert.equal(body.schema.properties.title.default, null);
});

test('a change is an event with the audit trail, and reads back; the index name and description follow', async () => {
  const changed = await t.request('PATCH', '/core/v2/settings', {
    as: admin,
    body: { title: 'News & <b>views</b>', description: 'Daily', posts_per_page: 0, start_of_week: '3' },
  });
  assert.is(changed.status, 200);
  assert.is(changed.body.title, 'News &amp; &lt;b&gt;views&lt;/b&gt;');
  assert.is(changed.body.posts_per_page, 1);
  assert.is(changed.body.start_of_week, 3);
  const read = await t.request('GET', '/core/v2/settings', { as: admin });
  assert.equal(read.body, changed.body);
  const index = await t.request('GET', '/');
  assert.equal([index.body.name, index.body.description], ['News &amp; &lt;b&gt;views&lt;/b&gt;', 'Daily']);
  const log = await t.request('GET', '/audit/v1/events?per_page=5', { as: admin });
  const event = log.body.find((e: any) => e.type === 'SiteSettingsChanged');
  assert.equal(
    [event.stream, event.user, event.data],
    [
      'site-settings',
      admin.id,
      { changes: { title: changed.body.title, description: 'Daily', start_of_week: 3, posts_per_page: 1 } },
    ],
  );
  // null puts the default back.
  const reset = await write({ title: null, description: null, posts_per_page: null, start_of_week: null });
  assert.equal(
    [reset.body.title, reset.body.description, reset.body.posts_per_page, reset.body.start_of_week],
    ['Test site', 'Just another test site', 10, 1],
  );
  assert.is((await t.request('GET', '/')).body.name, 'Test site');
});

test('_fields picks settings', async () => {
  const { body } = await t.request('GET', '/core/v2/settings?_fields=title,url', { as: admin });
  assert.equal(body, { title: 'Test site', url: t.url });
});

test('bad input gets the reference bodies (type, enum, email), changing nothing', async () => {
  const bad = await write({ email: 'not-an-email', title: 'never stored' });
  assert.is(bad.status, 400);
  assert.equal(bad.body, {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): email',
    data: {
      status: 400,
      params: { email: 'Invalid email address.' },
      details: { email: { code: 'rest_invalid_email', message: 'Invalid email address.', data: null } },
    },
  });
  const ping = await write({ default_ping_status: 'maybe' });
  assert.equal(ping.body.data.details, {
    default_ping_status: {
      code: 'rest_not_in_enum',
      message: 'default_ping_status is not one of open and closed.',
      data: null,
    },
  });
  const title = await write({ title: 5 });
  assert.equal(title.body.data.details, {
    title: { code: 'rest_invalid_type', message: 'title is not of type string.', data: { param: 'title' } },
  });
  const week = await write({ start_of_week: 'abc' });
  assert.equal(week.body.data.params, { start_of_week: 'start_of_week is not of type integer.' });
  const perPage = await write({ posts_per_page: 2.5 });
  assert.equal(perPage.body.data.params, { posts_per_page: 'posts_per_page is not of type integer.' });
  const smilies = await write({ use_smilies: 'maybe' });
  assert.equal(smilies.body.data.params, { use_smilies: 'use_smilies is not of type boolean.' });
  assert.is((await t.request('GET', '/core/v2/settings', { as: admin })).body.title, 'Test site');
});

test('timezone: an unknown zone is dropped as WordPress drops it; another real zone or url is refused (the deployment owns them)', async () => {
  const unknown = await write({ timezone: 'Mars/Base' });
  assert.equal([unknown.status, unknown.body.timezone], [200, 'Europe/Berlin']);
  const zone = await write({ timezone: 'America/New_York' });
  assert.equal(
    [zone.status, zone.body.code, zone.body.data.details.timezone.code],
    [400, 'rest_invalid_param', 'rest_setting_read_only'],
  );
  const url = await write({ url: 'http://example.org' });
  assert.equal([url.status, url.body.data.params.url !== undefined], [400, true]);
  const same = await write({ url: t.url, timezone: 'Europe/Berlin', email: 'owner@example.org' });
  assert.equal([same.status, same.body.email], [200, 'owner@example.org']);
});

test('what a client read can be sent back whole', async () => {
  const { body } = await t.request('GET', '/core/v2/settings', { as: admin });
  const again = await t.request('PUT', '/core/v2/settings', { as: admin, body });
  assert.equal([again.status, again.body], [200, body]);
});

test.run();
