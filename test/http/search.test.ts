/**
 * /core/v2/search: posts and pages, terms, post formats, as the reference WordPress 6.1 answers them (shapes recorded
 * here from `GET /wp-json/wp/v2/search`); published items only, whoever asks.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('search');
let t: TestSite;
let admin: TestUser;
let contributor: TestUser;
const ids: Record<string, number> = {};

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  contributor = await t.createUser('contributor', 'contributor');
  const make = async (key: string, path: string, body: Record<string, unknown>) => {
    t.clock.advance(60_000);
    const created = await t.request('POST', path, { as: admin, body });
    assert.is(created.status, 201, JSON.stringify(created.body));
    ids[key] = created.body.id;
  };
  await make('hello', '/core/v2/posts', { title: 'Hello world', content: 'greetings', status: 'publish' });
  await make('parent', '/core/v2/pages', { title: 'About', content: 'us', status: 'publish' });
  await make('child', '/core/v2/pages', {
    title: 'Team hello',
    content: 'people',
    status: 'publish',
    parent: ids.parent,
  });
  await make('draft', '/core/v2/posts', { title: 'Hello draft', content: 'not yet', status: 'draft' });
  await make('private', '/core/v2/posts', { title: 'Hello private', content: 'secret', status: 'private' });
  await make('protected', '/core/v2/posts', { title: 'Hello locked', content: 'x', status: 'publish', password: 'pw' });
  await make('contentOnly', '/core/v2/posts', { title: 'Other', content: 'hello in the text', status: 'publish' });
  await make('news', '/core/v2/categories', { name: 'News' });
  await make('local', '/core/v2/categories', { name: 'Local', parent: ids.news });
  await make('alpha', '/core/v2/tags', { name: 'Alpha' });
});
test.after(async () => t.close());

test('a post result as the reference shapes it: id, title, url, type, subtype, _links self/about/collection', async () => {
  const { status, body } = await t.request('GET', '/core/v2/search?search=team');
  assert.is(status, 200);
  assert.equal(body, [
    {
      id: ids.child,
      title: 'Team hello',
      url: `${t.url}/about/team-hello/`,
      type: 'post',
      subtype: 'page',
      _links: {
        self: [{ embeddable: true, href: `${t.url}/core/v2/pages/${ids.child}` }],
        about: [{ href: `${t.url}/core/v2/types/page` }],
        collection: [{ href: `${t.url}/core/v2/search` }],
      },
    },
  ]);
});

test('posts and pages together, newest first, published only; the same for a contributor as for anyone', async () => {
  const anonymous = await t.request('GET', '/core/v2/search');
  const expected = [ids.contentOnly, ids.protected, ids.child, ids.parent, ids.hello];
  assert.equal(
    anonymous.body.map((r: any) => r.id),
    expected,
  );
  assert.is(anonymous.headers.get('x-wp-total'), '5');
  assert.is(anonymous.headers.get('x-wp-totalpages'), '1');
  const asContributor = await t.request('GET', '/core/v2/search', { as: contributor });
  assert.equal(
    asContributor.body.map((r: any) => r.id),
    expected,
  );
  const asAdmin = await t.request('GET', '/core/v2/search', { as: admin });
  assert.equal(
    asAdmin.body.map((r: any) => r.id),
    expected,
    'drafts and private posts are not found by administrators either',
  );
});

test('search: relevance first (title matches before content matches), password-protected left out for anonymous, found by the signed in without a "Protected:" prefix', async () => {
  const anonymous = await t.request('GET', '/core/v2/search?search=hello');
  assert.equal(
    anonymous.body.map((r: any) => r.id),
    [ids.child, ids.hello, ids.contentOnly],
  );
  const signedIn = await t.request('GET', '/core/v2/search?search=hello', { as: contributor });
  assert.equal(
    signedIn.body.map((r: any) => [r.id, r.title]),
    [
      [ids.protected, 'Hello locked'],
      [ids.child, 'Team hello'],
      [ids.hello, 'Hello world'],
      [ids.contentOnly, 'Other'],
    ],
  );
});

test('subtype narrows; include and exclude; paging with X-WP-Total, X-WP-TotalPages and Link', async () => {
  const pages = await t.request('GET', '/core/v2/search?subtype=page');
  assert.equal(
    pages.body.map((r: any) => r.id),
    [ids.child, ids.parent],
  );
  const both = await t.request(
    'GET',
    '/core/v2/search?subtype[]=post&subtype[]=page&exclude[]=' + ids.hello + '&per_page=2&page=2',
  );
  assert.equal(
    both.body.map((r: any) => r.id),
    [ids.child, ids.parent],
  );
  assert.equal([both.headers.get('x-wp-total'), both.headers.get('x-wp-totalpages')], ['4', '2']);
  assert.match(both.headers.get('link')!, /rel="prev"/);
  const first = await t.request('GET', '/core/v2/search?per_page=2');
  assert.is(first.headers.get('link'), `<${t.url}/core/v2/search?per_page=2&page=2>; rel="next"`);
  // Past the last page, posts answer an empty page counting nothing, linking the page before (the reference's answer).
  const beyond = await t.request('GET', '/core/v2/search?page=3');
  assert.equal(
    [beyond.status, beyond.body, beyond.headers.get('x-wp-total'), beyond.headers.get('x-wp-totalpages')],
    [200, [], '0', '0'],
  );
  assert.is(beyond.headers.get('link'), `<${t.url}/core/v2/search?page=2>; rel="prev"`);
  for (const path of [
    '/core/v2/search?page=99999999999999999999&per_page=100',
    '/core/v2/search?subtype=post&page=99999999999999999999',
    '/core/v2/search?page=1e308',
    '/core/v2/search?page=9007199254740993',
  ]) {
    const far = await t.request('GET', path);
    assert.equal([far.status, far.body], [200, []], path);
  }
  // Terms and formats refuse it.
  for (const path of ['/core/v2/search?type=term&page=99', '/core/v2/search?type=post-format&page=5']) {
    const refused = await t.request('GET', path);
    assert.equal(
      [refused.status, refused.body],
      [
        400,
        {
          code: 'rest_search_invalid_page_number',
          message: 'The page number requested is larger than the number of pages available.',
          data: { status: 400 },
        },
      ],
      path,
    );
  }
  const noTerms = await t.request('GET', '/core/v2/search?type=term&search=zzzz&page=3');
  assert.equal([noTerms.status, noTerms.body], [200, []]);
  const only = await t.request('GET', `/core/v2/search?include=${ids.hello}`);
  assert.equal(
    only.body.map((r: any) => r.id),
    [ids.hello],
  );
});

test('terms: by name, the taxonomy as the type and no subtype, as WordPress 6.1', async () => {
  const { body, headers } = await t.request('GET', '/core/v2/search?type=term');
  assert.equal(
    body.map((r: any) => r.title),
    ['Alpha', 'Local', 'News', 'Uncategorized'],
  );
  assert.is(headers.get('x-wp-total'), '4');
  assert.equal(body[1], {
    id: ids.local,
    title: 'Local',
    url: `${t.url}/category/news/local/`,
    type: 'category',
    _links: {
      self: [{ embeddable: true, href: `${t.url}/core/v2/categories/${ids.local}` }],
      about: [{ href: `${t.url}/core/v2/taxonomies/category` }],
      collection: [{ href: `${t.url}/core/v2/search` }],
    },
  });
  const tags = await t.request('GET', '/core/v2/search?type=term&subtype=post_tag');
  assert.equal(
    tags.body.map((r: any) => r.id),
    [ids.alpha],
  );
  const found = await t.request('GET', '/core/v2/search?type=term&search=ew');
  assert.equal(
    found.body.map((r: any) => r.id),
    [ids.news],
  );
});

test('post formats: the id is the slug, only a collection link', async () => {
  const { body } = await t.request('GET', '/core/v2/search?type=post-format&search=asi');
  assert.equal(body, [
    {
      id: 'aside',
      title: 'Aside',
      url: `${t.url}/type/aside/`,
      type: 'post-format',
      _links: { collection: [{ href: `${t.url}/core/v2/search` }] },
    },
  ]);
});

test('_embed embeds the item itself in the embed context', async () => {
  const { body } = await t.request('GET', `/core/v2/search?include=${ids.hello}&_embed`);
  const embedded = body[0]._embedded.self[0];
  assert.equal([embedded.id, embedded.title, embedded.type], [ids.hello, { rendered: 'Hello world' }, 'post']);
  assert.is(embedded.content, undefined, 'the embed context has no content');
});

test('bad input gets the reference errors', async () => {
  const type = await t.request('GET', '/core/v2/search?type=bogus');
  assert.equal(
    [type.status, type.body.data.params],
    [400, { type: 'type is not one of post, term, and post-format.' }],
  );
  const subtype = await t.request('GET', '/core/v2/search?subtype=bogus');
  assert.equal(subtype.body.data.params, {
    subtype: 'subtype[0] is not one of post, page, category, post_tag, and any.',
  });
  const context = await t.request('GET', '/core/v2/search?context=edit');
  assert.equal(context.body.data.params, { context: 'context is not one of view and embed.' });
  const perPage = await t.request('GET', '/core/v2/search?per_page=0');
  assert.equal(perPage.body.data.params, { per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)' });
  const page = await t.request('GET', '/core/v2/search?page=0');
  assert.equal(page.body.data.params, { page: 'page must be greater than or equal to 1' });
});

test.run();
