/**
 * /core/v2/global-styles: the active theme's base styles and variations, and its user global styles, an
 * event-sourced record administrators change. Shapes, sanitizing and refusals are the reference WordPress 6.1's.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('global styles');
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let author: TestUser;
let id: number;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  author = await t.createUser('author', 'author');
  const theme = await t.request('GET', '/core/v2/themes?status=active', { as: author });
  id = Number(/\/(\d+)$/.exec(theme.body[0]._links['wp:user-global-styles'][0].href)![1]);
});
test.after(async () => t.close());

const record = (as: TestUser | null = admin, query = '') =>
  t.request('GET', `/core/v2/global-styles/${id}${query}`, { as });
const save = (body: unknown, as: TestUser = admin) =>
  t.request('POST', `/core/v2/global-styles/${id}`, { as, body, headers: { 'X-HTTP-Method-Override': 'PUT' } });

test('the theme base and its variations, to administrators; the others are refused', async () => {
  const base = await t.request('GET', '/core/v2/global-styles/themes/palimpsest?context=view', { as: admin });
  assert.is(base.status, 200);
  assert.equal(Object.keys(base.body), ['settings', 'styles', '_links']);
  assert.ok(Array.isArray(base.body.settings.color.palette.default));
  assert.equal(base.body._links, { self: [{ href: `${t.url}/core/v2/global-styles/themes/palimpsest` }] });
  const variations = await t.request('GET', '/core/v2/global-styles/themes/palimpsest/variations', { as: admin });
  assert.equal([variations.status, variations.body], [200, []]);
  for (const path of [
    '/core/v2/global-styles/themes/palimpsest',
    '/core/v2/global-styles/themes/palimpsest/variations',
  ]) {
    for (const [as, status] of [
      [null, 401],
      [author, 403],
      [editor, 403],
    ] as const) {
      const refused = await t.request('GET', path, { as });
      assert.equal(
        [refused.status, refused.body],
        [
          status,
          {
            code: 'rest_cannot_manage_global_styles',
            message: 'Sorry, you are not allowed to access the global styles on this site.',
            data: { status },
          },
        ],
        path,
      );
    }
    const other = await t.request('GET', path.replace('palimpsest', 'twentytwentythree'), { as: admin });
    assert.equal([other.status, other.body.code], [404, 'rest_theme_not_found']);
  }
});

test('the record: empty at first, titled Custom Styles, with the publish action for its readers', async () => {
  const { status, body, headers } = await record();
  assert.is(status, 200);
  assert.is(headers.get('allow'), 'GET, POST, PUT, PATCH');
  assert.equal(body, {
    id,
    title: { raw: 'Custom Styles', rendered: 'Custom Styles' },
    settings: {},
    styles: {},
    _links: {
      self: [{ href: `${t.url}/core/v2/global-styles/${id}` }],
      'wp:action-publish': [{ href: `${t.url}/core/v2/global-styles/${id}` }],
      curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
    },
  });
  const embed = await record(admin, '?context=embed');
  assert.equal(Object.keys(embed.body), ['id', 'title', '_links']);
  assert.equal(JSON.parse((await record()).text).styles, {});
});

test("who may read and change it: administrators; author and editor 403, anonymous 401, WordPress's codes", async () => {
  for (const [as, status] of [
    [null, 401],
    [author, 403],
    [editor, 403],
  ] as const) {
    assert.equal((await record(as)).body, {
      code: 'rest_cannot_view',
      message: 'Sorry, you are not allowed to view this global style.',
      data: { status },
    });
    assert.equal((await record(as, '?context=edit')).body.code, 'rest_forbidden_context');
    const options = await t.request('OPTIONS', `/core/v2/global-styles/${id}`, { as });
    assert.equal([options.status, options.headers.get('allow')], [200, null]);
  }
  for (const as of [author, editor]) {
    const refused = await save({ styles: {} }, as);
    assert.equal(
      [refused.status, refused.body.code, refused.body.message],
      [403, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this global style.'],
    );
  }
  const anonymous = await t.request('PUT', `/core/v2/global-styles/${id}`, { body: { styles: {} } });
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_edit']);
});

test('saving sanitizes to theme.json version 2, keeps what is not sent, and is an event in the log', async () => {
  const saved = await save({
    styles: {
      color: { background: '#fff', nope: 1 },
      bogus: 1,
      elements: { link: { ':hover': { color: { text: 'red' } }, x: 1 }, zz: {} },
      blocks: { 'core/paragraph': { color: { text: 'blue' } }, 'Bad Name': { color: { text: 'x' } } },
    },
    settings: { color: { palette: { custom: [] } }, nope: true },
    title: { raw: '' },
  });
  assert.is(saved.status, 200);
  const expected = {
    styles: {
      color: { background: '#fff' },
      elements: { link: { ':hover': { color: { text: 'red' } } } },
      blocks: { 'core/paragraph': { color: { text: 'blue' } } },
    },
    settings: { color: { palette: { custom: [] } } },
  };
  assert.equal(
    [saved.body.title.raw, saved.body.styles, saved.body.settings],
    ['Custom Styles', expected.styles, expected.settings],
  );
  assert.equal((await record()).body.styles, expected.styles);
  const titled = await save({ title: 'My styles' });
  assert.equal([titled.body.title, titled.body.styles], [{ raw: 'My styles', rendered: 'My styles' }, expected.styles]);
  const emptied = await save({ styles: [], settings: {} });
  assert.equal([emptied.body.styles, emptied.body.settings], [{}, {}]);
  const events = await t.site.store.readStream('global-styles-palimpsest');
  assert.equal(
    events.map((event) => event.type),
    ['GlobalStylesCreated', 'GlobalStylesChanged', 'GlobalStylesChanged', 'GlobalStylesChanged'],
  );
  assert.is(events[1]!.metadata.userId, admin.id);
  const unchanged = await save({ styles: {} });
  assert.is(unchanged.status, 200);
  assert.is((await t.site.store.readStream('global-styles-palimpsest')).length, 4);
});

test('hostile input: wrong types, prototype keys, deep nesting, other ids', async () => {
  for (const body of [{ styles: 'x' }, { settings: 5 }, { title: { raw: 7 } }, { styles: null }]) {
    const refused = await save(body);
    assert.equal([refused.status, refused.body.code], [400, 'rest_invalid_param'], JSON.stringify(body));
  }
  // A list is taken as WordPress takes it: a PHP array, of no theme.json key.
  await save({ styles: { color: { text: '#222' } } });
  const list = await save({ styles: ['a'] });
  assert.equal([list.status, list.body.styles], [200, {}]);
  const sneaky = await t.request('POST', `/core/v2/global-styles/${id}`, {
    as: admin,
    raw: {
      data: '{"styles":{"__proto__":{"polluted":1},"color":{"constructor":{"x":1},"text":"#000"}}}',
      type: 'application/json',
    },
  });
  assert.equal([sneaky.status, sneaky.body.styles], [200, { color: { text: '#000' } }]);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  let deep: Record<string, unknown> = { text: '#111' };
  for (let i = 0; i < 40; i++) deep = { custom: deep };
  const nested = await save({ settings: { custom: deep } });
  assert.is(nested.status, 200);
  for (const path of ['0', 'abc', '99999', 'themes', `${id + 1000}`]) {
    const missing = await t.request('GET', `/core/v2/global-styles/${path}`, { as: admin });
    assert.equal([missing.status, missing.body.code], [404, 'rest_global_styles_not_found'], path);
  }
  // WordPress reads an id as PHP casts it: its leading digits.
  assert.is((await t.request('GET', `/core/v2/global-styles/${id}abc`, { as: admin })).status, 200);
  const { body: post } = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'A post', status: 'publish' },
  });
  assert.is((await t.request('GET', `/core/v2/global-styles/${post.id}`, { as: admin })).status, 404);
});

test("under /wp-json/: the links in WordPress's names", async () => {
  const { body } = await t.request('GET', `/wp-json/wp/v2/global-styles/${id}?_locale=user`, { as: admin });
  assert.equal(body._links.self, [{ href: `${t.url}/wp-json/wp/v2/global-styles/${id}` }]);
});

test.run();
