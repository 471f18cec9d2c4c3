/**
 * /core/v2/themes: the active theme (a record of the site's defaults, a classic theme) and who may read it, as
 * WordPress 6.1 decides; the index's `wp:active-theme` link and front-page fields. Refusals are the reference's.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { THEME_FEATURES } from '../../src/resources/themes/theme';

const test = suite('themes');
let t: TestSite;
const who: Record<string, TestUser | null> = { anonymous: null };
const ROLES = ['subscriber', 'contributor', 'author', 'editor', 'administrator'] as const;

test.before(async () => {
  t = await startTestSite();
  for (const role of ROLES) who[role] = await t.createUser(role, role);
});
test.after(async () => t.close());

const cell = async (path: string, caller: TestUser | null) => {
  const { status, body } = await t.request('GET', path, { as: caller });
  return status === 200 ? '200' : `${status} ${body.code}`;
};

test('who may read: the active theme takes editing something, every theme switch_themes', async () => {
  const expected: Record<string, string[]> = {
    '/core/v2/themes?status=active': [
      '401 rest_cannot_view_active_theme',
      '403 rest_cannot_view_active_theme',
      '200',
      '200',
      '200',
      '200',
    ],
    '/core/v2/themes': [
      '401 rest_cannot_view_themes',
      '403 rest_cannot_view_themes',
      '403 rest_cannot_view_themes',
      '403 rest_cannot_view_themes',
      '403 rest_cannot_view_themes',
      '200',
    ],
    '/core/v2/themes?status=active,inactive': [
      '401 rest_cannot_view_themes',
      ...Array(4).fill('403 rest_cannot_view_themes'),
      '200',
    ],
    '/core/v2/themes/palimpsest': [
      '401 rest_cannot_view_active_theme',
      '403 rest_cannot_view_active_theme',
      '200',
      '200',
      '200',
      '200',
    ],
    '/core/v2/themes/twentytwentythree': [
      '401 rest_cannot_view_themes',
      ...Array(4).fill('403 rest_cannot_view_themes'),
      '404 rest_theme_not_found',
    ],
  };
  for (const [path, cells] of Object.entries(expected)) {
    const got = [];
    for (const caller of ['anonymous', ...ROLES]) got.push(await cell(path, who[caller]!));
    assert.equal(got, cells, path);
  }
});

test('the record: a classic theme, its supports with their defaults, paging headers, a link to its user styles', async () => {
  const { status, body, headers } = await t.request('GET', '/core/v2/themes?status=active&context=edit', {
    as: who.contributor,
  });
  assert.is(status, 200);
  assert.equal([headers.get('x-wp-total'), headers.get('x-wp-totalpages')], ['1', '1']);
  const [theme] = body;
  assert.equal(Object.keys(theme), [
    'stylesheet',
    'template',
    'requires_php',
    'requires_wp',
    'textdomain',
    'version',
    'screenshot',
    'author',
    'author_uri',
    'description',
    'name',
    'tags',
    'theme_uri',
    'status',
    'theme_supports',
    '_links',
  ]);
  assert.equal(
    [theme.stylesheet, theme.template, theme.status, theme.name],
    ['palimpsest', 'palimpsest', 'active', { raw: 'Palimpsest', rendered: 'Palimpsest' }],
  );
  assert.equal(
    Object.keys(theme.theme_supports),
    THEME_FEATURES.map((feature) => feature.name),
  );
  assert.equal(
    [theme.theme_supports['block-templates'], theme.theme_supports['post-thumbnails'], theme.theme_supports.html5],
    [false, true, false],
  );
  assert.equal(theme.theme_supports.formats, [
    'standard',
    'aside',
    'chat',
    'gallery',
    'link',
    'image',
    'quote',
    'status',
    'video',
    'audio',
  ]);
  const styles = theme._links['wp:user-global-styles'][0].href as string;
  assert.match(styles, new RegExp(`^${t.url}/core/v2/global-styles/\\d+$`));
  const alone = await t.request('GET', '/core/v2/themes/palimpsest', { as: who.contributor });
  assert.equal(alone.body, theme);
  const none = await t.request('GET', '/core/v2/themes?status=inactive', { as: who.administrator });
  assert.equal([none.body, none.headers.get('x-wp-total')], [[], '0']);
  const options = await t.request('OPTIONS', '/core/v2/themes', { as: who.administrator });
  assert.equal(
    Object.keys(options.body.schema.properties.theme_supports.properties),
    THEME_FEATURES.map((feature) => feature.name),
  );
});

test('the user styles record is made once, however many ask for the theme at the same time', async () => {
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => t.request('GET', '/core/v2/themes?status=active', { as: who.editor })),
  );
  const hrefs = new Set(answers.map((answer) => answer.body[0]._links['wp:user-global-styles'][0].href));
  assert.is(hrefs.size, 1);
  const created = (await t.site.store.readStream('global-styles-palimpsest')).filter(
    (event) => event.type === 'GlobalStylesCreated',
  );
  assert.is(created.length, 1);
});

test('hostile input: a status outside the enum, an encoded or odd stylesheet', async () => {
  const bad = await t.request('GET', '/core/v2/themes?status=bogus', { as: who.administrator });
  assert.equal(
    [bad.status, bad.body.code, bad.body.data.params.status],
    [400, 'rest_invalid_param', 'status[0] is not one of active and inactive.'],
  );
  const encoded = await t.request('GET', '/core/v2/themes/%70alimpsest', { as: who.contributor });
  assert.equal([encoded.status, encoded.body.stylesheet], [200, 'palimpsest']);
  for (const path of ['/core/v2/themes/a/b', '/core/v2/themes/%E0%A4%A', '/core/v2/themes/..%2F..%2Fetc']) {
    const answer = await t.request('GET', path, { as: who.administrator });
    assert.equal([answer.status, answer.body.code], [404, 'rest_theme_not_found'], path);
  }
});

test('the index: the front-page fields, and wp:active-theme for those who may read it', async () => {
  const anonymous = await t.request('GET', '/?_fields=name,page_for_posts,page_on_front,show_on_front,_links');
  assert.equal(anonymous.body, {
    name: 'Test site',
    page_for_posts: 0,
    page_on_front: 0,
    show_on_front: 'posts',
    _links: { help: [{ href: 'https://developer.wordpress.org/rest-api/' }] },
  });
  const { body: page } = await t.request('POST', '/core/v2/pages', {
    as: who.administrator,
    body: { title: 'Home', status: 'publish' },
  });
  await t.request('POST', '/core/v2/settings', {
    as: who.administrator,
    body: { show_on_front: 'page', page_on_front: page.id },
  });
  for (const caller of ['subscriber', 'contributor'] as const) {
    const index = await t.request('GET', '/', { as: who[caller] });
    assert.equal([index.body.show_on_front, index.body.page_on_front], ['page', page.id]);
    assert.is('wp:active-theme' in index.body._links, caller === 'contributor', caller);
  }
  const wordpress = await t.request('GET', '/wp-json/?_locale=user', { as: who.author });
  assert.equal(wordpress.body._links['wp:active-theme'], [{ href: `${t.url}/wp-json/wp/v2/themes/palimpsest` }]);
});

test.run();
