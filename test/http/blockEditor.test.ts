/**
 * What the WordPress block editor asks for, run on a page of another origin against the site addressed as a
 * WordPress site (`/wp-json/`, API_DIALECT=wordpress, Basic auth with an application password): every request it
 * makes to load a post, save it, fill its sidebar and its inserter, with `_locale=user` as api-fetch adds it. An
 * administrator gets 200 throughout; an author is refused the template lookup and the global styles (403), which
 * the editor copes with, and gets the rest.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';

const test = suite('the block editor');
const ORIGIN = 'http://editor.example.test';
let t: TestSite;
let admin: TestUser;
let author: TestUser;

test.before(async () => {
  t = await startTestSite({ apiDialect: 'wordpress', timezone: 'Europe/Berlin' });
  admin = await t.createUser('admin', 'administrator');
  author = await t.createUser('author', 'author');
});
test.after(async () => t.close());

const api = (method: string, path: string, as: TestUser, body?: unknown, headers: Record<string, string> = {}) => {
  const url = `/wp-json${path}${path.includes('?') ? '&' : '?'}_locale=user`;
  return t.request(method, url, { as, body, headers: { Origin: ORIGIN, ...headers } });
};

/** The requests of loading the editor for post `id` (whose slug is `slug`), given the user styles' id. */
function loadRequests(id: number, slug: string, stylesId: number, userId: number): [string, string][] {
  return [
    ['GET', '/wp/v2/users/me'],
    ['GET', '/wp/v2/types?context=view'],
    ['GET', '/wp/v2/types/post?context=edit'],
    ['GET', '/wp/v2/taxonomies?context=view'],
    ['GET', '/wp/v2/taxonomies?context=edit'],
    ['GET', `/wp/v2/posts/${id}?context=edit`],
    [
      'GET',
      '/?_fields=description,gmt_offset,home,image_max_bit_depth,image_sizes,image_size_threshold,image_strip_meta,name,site_icon,site_icon_url,site_logo,timezone_string,url,page_for_posts,page_on_front,show_on_front',
    ],
    ['GET', '/wp/v2/themes?context=edit&status=active'],
    ['GET', '/wp/v2/global-styles/themes/palimpsest?context=view'],
    ['GET', '/wp/v2/global-styles/themes/palimpsest/variations?context=view'],
    ['GET', `/wp/v2/global-styles/${stylesId}`],
    ['OPTIONS', `/wp/v2/global-styles/${stylesId}`],
    ['GET', '/wp/v2/block-patterns/categories'],
    ['GET', '/wp/v2/templates/lookup?slug=front-page'],
    ['GET', `/wp/v2/templates/lookup?slug=single-post-${slug}`],
    ['GET', `/wp/v2/users/${userId}?context=view&_fields=id,name`],
    ['GET', '/wp/v2/settings'],
    ['OPTIONS', '/wp/v2/settings'],
    ['OPTIONS', '/wp/v2/media'],
    ['OPTIONS', '/wp/v2/pages'],
    ['OPTIONS', '/wp/v2/blocks'],
    ['OPTIONS', '/wp/v2/templates'],
    ['OPTIONS', '/wp/v2/posts'],
    ['GET', '/wp/v2/categories?per_page=100&orderby=name&_fields=id,name,parent'],
    ['GET', '/wp/v2/tags?orderby=count&hide_empty=true&_fields=id,name,count'],
    ['GET', '/wp/v2/users?who=authors&per_page=100&_fields=id,name'],
    ['GET', '/wp/v2/blocks?context=edit&per_page=100'],
    ['GET', '/wp/v2/block-patterns/patterns'],
  ];
}

async function stylesIdFor(as: TestUser): Promise<number> {
  // An author may read the active theme, and so learns the record's id, without being allowed the record itself.
  const { body } = await api('GET', '/wp/v2/themes?context=edit&status=active', as);
  return Number(/(\d+)$/.exec(body[0]._links['wp:user-global-styles'][0].href)![1]);
}

test('an administrator: every request of loading, saving, the sidebar and the inserter answers 200, readable cross-origin', async () => {
  const post = await api('POST', '/wp/v2/posts', admin, {
    title: 'Editor test',
    content: '<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->',
    status: 'publish',
  });
  assert.is(post.status, 201);
  const stylesId = await stylesIdFor(admin);
  for (const [method, path] of loadRequests(post.body.id, post.body.slug, stylesId, admin.id)) {
    const { status, headers, text } = await api(method, path, admin);
    assert.is(status, 200, `${method} ${path}: ${text.slice(0, 200)}`);
    assert.is(headers.get('access-control-allow-origin'), ORIGIN, path);
    assert.is(headers.get('access-control-allow-credentials'), 'true', path);
  }
  const saved = await api(
    'POST',
    `/wp/v2/posts/${post.body.id}`,
    admin,
    { title: 'Editor test, saved' },
    { 'X-HTTP-Method-Override': 'PUT' },
  );
  assert.equal([saved.status, saved.body.title.raw], [200, 'Editor test, saved']);
  const autosaved = await api('POST', `/wp/v2/posts/${post.body.id}/autosaves`, admin, {
    title: 'Editor test, autosaved',
    content: 'y',
  });
  assert.is(autosaved.status, 200);
  const revisions = await api('GET', `/wp/v2/posts/${post.body.id}/revisions?per_page=100&context=edit`, admin);
  assert.equal([revisions.status, revisions.body.length > 0], [200, true]);
});

test('what the editor reads from the answers: Allow per caller, the site fields, the user styles link', async () => {
  const allow = async (path: string, as: TestUser) => (await api('OPTIONS', path, as)).headers.get('allow');
  assert.equal(
    await Promise.all(
      ['/wp/v2/settings', '/wp/v2/media', '/wp/v2/pages', '/wp/v2/blocks', '/wp/v2/templates', '/wp/v2/posts'].map(
        (path) => allow(path, admin),
      ),
    ),
    ['GET, POST, PUT, PATCH', 'GET, POST', 'GET, POST', 'GET, POST', 'GET', 'GET, POST'],
  );
  assert.equal(
    await Promise.all(
      ['/wp/v2/settings', '/wp/v2/media', '/wp/v2/pages', '/wp/v2/blocks', '/wp/v2/templates', '/wp/v2/posts'].map(
        (path) => allow(path, author),
      ),
    ),
    [null, 'GET, POST', 'GET', 'GET, POST', null, 'GET, POST'],
  );
  const index = await api(
    'GET',
    '/?_fields=description,gmt_offset,home,image_max_bit_depth,image_sizes,image_size_threshold,image_strip_meta,name,site_icon,site_icon_url,site_logo,timezone_string,url,page_for_posts,page_on_front,show_on_front',
    admin,
  );
  // The index's links stay whatever `_fields` names, as WordPress adds them outside the data (test/http/indexLinks.test.ts).
  assert.equal(Object.keys(index.body).sort(), [
    '_links',
    'description',
    'gmt_offset',
    'home',
    'name',
    'page_for_posts',
    'page_on_front',
    'show_on_front',
    'site_icon',
    'site_icon_url',
    'site_logo',
    'timezone_string',
    'url',
  ]);
  const theme = await api('GET', '/wp/v2/themes?context=edit&status=active', admin);
  assert.match(theme.body[0]._links['wp:user-global-styles'][0].href, `${t.url}/wp-json/wp/v2/global-styles/`);
});

test('an author: the template lookup and the global styles are refused (403), everything else answers 200', async () => {
  const post = await api('POST', '/wp/v2/posts', author, { title: 'Author post', status: 'publish' });
  const stylesId = await stylesIdFor(author);
  const refused = new Set([
    '/wp/v2/global-styles/themes/palimpsest?context=view',
    '/wp/v2/global-styles/themes/palimpsest/variations?context=view',
    `/wp/v2/global-styles/${stylesId}`,
    '/wp/v2/templates/lookup?slug=front-page',
    `/wp/v2/templates/lookup?slug=single-post-${post.body.slug}`,
    '/wp/v2/settings',
  ]);
  for (const [method, path] of loadRequests(post.body.id, post.body.slug, stylesId, author.id)) {
    const { status, headers } = await api(method, path, author);
    assert.is(status, method === 'GET' && refused.has(path) ? 403 : 200, `${method} ${path}`);
    assert.is(headers.get('access-control-allow-origin'), ORIGIN, path);
  }
  const saved = await api(
    'POST',
    `/wp/v2/posts/${post.body.id}`,
    author,
    { content: 'saved' },
    { 'X-HTTP-Method-Override': 'PUT' },
  );
  assert.is(saved.status, 200);
});

test('CORS: the override header may be sent and Allow, Link and the totals read from another origin', async () => {
  const preflight = await t.request('OPTIONS', '/wp-json/wp/v2/posts/1', {
    headers: {
      Origin: ORIGIN,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, content-type, x-http-method-override',
    },
  });
  assert.is(preflight.status, 200);
  const allowed = (preflight.headers.get('access-control-allow-headers') ?? '')
    .split(/,\s*/)
    .map((name) => name.toLowerCase());
  for (const name of ['authorization', 'content-type', 'x-http-method-override'])
    assert.ok(allowed.includes(name), name);
  const exposed = (preflight.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
  for (const name of ['X-WP-Total', 'X-WP-TotalPages', 'Link', 'Allow']) assert.ok(exposed.includes(name), name);
});

test('on a Redis read model too: the administrator loads, saves a block and changes the user styles', async () => {
  const redis = testRedisReadModel();
  const other = await startTestSite({ apiDialect: 'wordpress', readModel: redis.readModel });
  try {
    const admin2 = await other.createUser('admin', 'administrator');
    const call = (method: string, path: string, body?: unknown) =>
      other.request(method, `/wp-json${path}`, { as: admin2, body });
    const theme = await call('GET', '/wp/v2/themes?context=edit&status=active&_locale=user');
    const stylesPath = new URL(theme.body[0]._links['wp:user-global-styles'][0].href).pathname;
    const saved = await other.request('PUT', `${stylesPath}?_locale=user`, {
      as: admin2,
      body: { styles: { color: { text: '#123456' } } },
    });
    assert.equal([saved.status, saved.body.styles], [200, { color: { text: '#123456' } }]);
    assert.equal((await other.request('GET', stylesPath, { as: admin2 })).body.styles, { color: { text: '#123456' } });
    const block = await call('POST', '/wp/v2/blocks', { title: 'On Redis', content: '<p>x</p>', status: 'publish' });
    assert.is(block.status, 201);
    const inserter = await call('GET', '/wp/v2/blocks?context=edit&per_page=100&_locale=user');
    assert.equal(
      inserter.body.map((b: any) => b.id),
      [block.body.id],
    );
    for (const path of [
      '/wp/v2/global-styles/themes/palimpsest',
      '/wp/v2/block-patterns/patterns',
      '/wp/v2/templates/lookup?slug=front-page',
    ]) {
      assert.is((await call('GET', path)).status, 200, path);
    }
  } finally {
    await other.close();
    await redis.cleanup();
  }
});

test.run();
