/**
 * Paging arguments at and beyond PHP's integer limits, and negative offsets, on every kind of list, as WordPress 6.1
 * answers them (checked against the reference instance). WordPress casts an integer argument as PHP does: a numeric
 * string that overflows to infinity (`1e400`) is 0, one beyond PHP's integers but finite is PHP_INT_MAX; its paging
 * links repeat the sanitized values. Lists backed by WP_Query (posts, pages, media, menu items) skip an offset's
 * absolute value, take page 0 as the first page and count the matches only when the page holds some; lists backed by
 * get_terms (tags, menus) skip an offset's absolute value, page 0 being offset -per_page; the users list skips nothing
 * for a negative offset.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';

const test = suite('list paging at the integer limits');
let t: TestSite;
let admin: TestUser;
const PHP_INT_MAX = '9223372036854775807';
const HUGE = '99999999999999999999';

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  for (let i = 0; i < 3; i++) {
    t.clock.advance(1000);
    assert.is(
      (await t.request('POST', '/core/v2/posts', { as: admin, body: { title: `post ${i}`, status: 'publish' } }))
        .status,
      201,
    );
    assert.is(
      (await t.request('POST', '/core/v2/pages', { as: admin, body: { title: `page ${i}`, status: 'publish' } }))
        .status,
      201,
    );
    const media = await t.request('POST', '/core/v2/media', {
      as: admin,
      raw: { data: `file ${i}`, type: 'text/plain' },
      headers: { 'Content-Disposition': `attachment; filename=f${i}.txt` },
    });
    assert.is(media.status, 201);
    assert.is((await t.request('POST', '/core/v2/tags', { as: admin, body: { name: `tag ${i}` } })).status, 201);
    assert.is((await t.request('POST', '/core/v2/menus', { as: admin, body: { name: `menu ${i}` } })).status, 201);
    await t.createUser(`user${i}`, 'author');
  }
  const menu = (await t.request('GET', '/core/v2/menus?per_page=1', { as: admin })).body[0].id;
  for (let i = 0; i < 3; i++) {
    const item = await t.request('POST', '/core/v2/menu-items', {
      as: admin,
      body: { title: `item ${i}`, url: 'https://example.com/', menus: menu },
    });
    assert.is(item.status, 201);
  }
});
test.after(async () => t.close());

const list = (path: string) => t.request('GET', path, { as: admin });
const ids = (response: TestResponse) => (response.body as { id: number }[]).map((item) => item.id);
const paging = (response: TestResponse) => [
  response.status,
  response.headers.get('x-wp-total'),
  response.headers.get('x-wp-totalpages'),
];
const pagingLink = (response: TestResponse) =>
  (response.headers.get('link') ?? '').split(', ').filter((link) => !link.includes('api.w.org'));

for (const route of ['posts', 'pages', 'media', 'menu-items']) {
  test(`${route} (WP_Query): offset=1e400 is 0, a huge offset or one past the end answers [] with a total of 0, a negative one skips its absolute value; page=1e400 is the first page`, async () => {
    const all = await list(`/core/v2/${route}?per_page=2`);
    assert.equal(paging(all), [200, '3', '2']);
    const zero = await list(`/core/v2/${route}?per_page=2&offset=1e400`);
    assert.equal([ids(zero), paging(zero)], [ids(all), [200, '3', '2']]);
    assert.equal(
      pagingLink(zero),
      [`<${t.url}/core/v2/${route}?per_page=2&offset=0&page=2>; rel="next"`],
      'the link repeats the sanitized offset',
    );
    for (const offset of [HUGE, '1e308', '3']) {
      const past = await list(`/core/v2/${route}?per_page=2&offset=${offset}`);
      assert.equal([past.body, paging(past), pagingLink(past)], [[], [200, '0', '0'], []], offset);
    }
    const pastOnPage2 = await list(`/core/v2/${route}?per_page=2&offset=${HUGE}&page=2`);
    assert.equal([pastOnPage2.body, paging(pastOnPage2)], [[], [200, '0', '0']]);
    assert.equal(pagingLink(pastOnPage2), [
      `<${t.url}/core/v2/${route}?per_page=2&offset=${PHP_INT_MAX}&page=0>; rel="prev"`,
    ]);
    const negative = await list(`/core/v2/${route}?per_page=2&offset=-1`);
    const skippedOne = await list(`/core/v2/${route}?per_page=2&offset=1`);
    assert.equal([ids(negative), paging(negative)], [ids(skippedOne), [200, '3', '2']]);
    // page=1e400 is page 0, the first page; a huge page is out of range.
    const pageZero = await list(`/core/v2/${route}?per_page=2&page=1e400`);
    assert.equal([ids(pageZero), paging(pageZero)], [ids(all), [200, '3', '2']]);
    assert.equal(pagingLink(pageZero), [`<${t.url}/core/v2/${route}?per_page=2&page=1>; rel="next"`]);
    const huge = await list(`/core/v2/${route}?per_page=2&page=${HUGE}`);
    assert.equal([huge.status, huge.body.code], [400, 'rest_post_invalid_page_number']);
  });
}

for (const route of ['tags', 'menus']) {
  test(`${route} (get_terms): offset=1e400 is 0, a negative offset or page 0 skips its absolute value, a huge offset answers [] with the total`, async () => {
    const all = await list(`/core/v2/${route}?per_page=2`);
    assert.equal(paging(all), [200, '3', '2']);
    const zero = await list(`/core/v2/${route}?per_page=2&offset=1e400`);
    assert.equal([ids(zero), paging(zero)], [ids(all), [200, '3', '2']]);
    const skippedOne = await list(`/core/v2/${route}?per_page=2&offset=1`);
    const negative = await list(`/core/v2/${route}?per_page=2&offset=-1`);
    assert.equal([ids(negative), paging(negative)], [ids(skippedOne), [200, '3', '2']]);
    const secondPage = await list(`/core/v2/${route}?per_page=2&page=2`);
    const pageZero = await list(`/core/v2/${route}?per_page=2&page=1e400`);
    assert.equal([ids(pageZero), paging(pageZero)], [ids(secondPage), [200, '3', '2']]);
    assert.equal(pagingLink(pageZero), [`<${t.url}/core/v2/${route}?per_page=2&page=1>; rel="next"`]);
    const huge = await list(`/core/v2/${route}?per_page=2&offset=${HUGE}`);
    assert.equal([huge.body, paging(huge)], [[], [200, '3', '2']]);
    assert.equal(pagingLink(huge), [`<${t.url}/core/v2/${route}?per_page=2&offset=${PHP_INT_MAX}&page=2>; rel="prev"`]);
  });
}

test('users: offset=1e400 is 0; a negative offset, page 0 or a huge offset answers [] with the total', async () => {
  const all = await list('/core/v2/users?per_page=2');
  assert.equal(paging(all), [200, '4', '2']);
  const zero = await list('/core/v2/users?per_page=2&offset=1e400');
  assert.equal([ids(zero), paging(zero)], [ids(all), [200, '4', '2']]);
  for (const query of ['offset=-1', 'page=1e400', `offset=${HUGE}`]) {
    const empty = await list(`/core/v2/users?per_page=2&${query}`);
    assert.equal([empty.body, paging(empty)], [[], [200, '4', '2']], query);
  }
  assert.equal(pagingLink(await list(`/core/v2/users?per_page=2&offset=${HUGE}`)), [
    `<${t.url}/core/v2/users?per_page=2&offset=${PHP_INT_MAX}&page=2>; rel="prev"`,
  ]);
});

test('revisions and history: page=1e400 is the first page, a negative revisions offset skips its absolute value', async () => {
  const [post] = (await list('/core/v2/posts?per_page=1')).body;
  for (const content of ['one', 'two', 'three']) {
    t.clock.advance(1000);
    assert.is((await t.request('POST', `/core/v2/posts/${post.id}`, { as: admin, body: { content } })).status, 200);
  }
  const revisions = `/core/v2/posts/${post.id}/revisions?per_page=1`;
  const first = await list(revisions);
  const zero = await list(`${revisions}&page=1e400`);
  assert.equal([ids(zero), paging(zero)], [ids(first), [200, '3', '3']]);
  const negative = await list(`${revisions}&offset=-1`);
  assert.equal(ids(negative), ids(await list(`${revisions}&offset=1`)));
  const history = `/core/v2/posts/${post.id}/history?per_page=1`;
  const historyFirst = await list(history);
  const historyZero = await list(`${history}&page=1e400`);
  assert.equal([historyZero.body, paging(historyZero)], [historyFirst.body, paging(historyFirst)]);
});

test.run();
