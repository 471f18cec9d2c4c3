/**
 * The list query language end to end, on both read models: the same posts written to a site on the in-memory
 * read model and to one on Redis must give the same ids in the same order, and the expected ones.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';

const test = suite('list query language on both read models');

interface Backend {
  t: TestSite;
  admin: TestUser;
  editor: TestUser;
  titles: Map<number, string>;
  cleanup(): Promise<void>;
}

const backends: Backend[] = [];

/** The same writes in the same order on each site: ids and dates line up across them. */
const FIXTURES = [
  {
    title: 'Apple pie recipe',
    content: 'Bake the apple pie slowly.',
    excerpt: '',
    date: '2024-01-10T10:00:00',
    as: 'admin',
    status: 'publish',
    slug: 'apple-pie',
  },
  {
    title: 'Banana bread',
    content: 'A loaf with ripe bananas and no apple.',
    excerpt: 'Quick bread',
    date: '2024-01-12T10:00:00',
    as: 'editor',
    status: 'publish',
  },
  {
    title: 'Cherry tart',
    content: 'Tart cherries, "sweet pastry".',
    excerpt: 'Mentions apple in the excerpt',
    date: '2024-01-15T10:00:00',
    as: 'admin',
    status: 'publish',
    sticky: true,
  },
  {
    title: 'apple crumble',
    content: 'Crumble topping.',
    excerpt: '',
    date: '2024-01-16T10:00:00',
    as: 'editor',
    status: 'publish',
    password: 'secret',
  },
  {
    title: 'Draft about apples',
    content: 'Not yet.',
    excerpt: '',
    date: '2024-01-17T10:00:00',
    as: 'admin',
    status: 'draft',
  },
  {
    title: 'Zucchini soup',
    content: 'Green soup.',
    excerpt: '',
    date: '2024-01-20T10:00:00',
    as: 'admin',
    status: 'private',
  },
  { title: 'Damson jam', content: 'Plums.', excerpt: '', date: '2024-02-01T10:00:00', as: 'editor', status: 'publish' },
] as const;

test.before(async () => {
  for (const kind of ['memory', 'redis'] as const) {
    const redis = kind === 'redis' ? testRedisReadModel() : null;
    const t = await startTestSite({ readModel: redis?.readModel });
    const admin = await t.createUser('admin', 'administrator');
    const editor = await t.createUser('editor', 'editor');
    const titles = new Map<number, string>();
    for (const { as, ...fixture } of FIXTURES) {
      t.clock.advance(60_000);
      const response = await t.request('POST', '/core/v2/posts', {
        as: as === 'admin' ? admin : editor,
        body: fixture,
      });
      assert.is(response.status, 201, JSON.stringify(response.body));
      titles.set(response.body.id, fixture.title);
    }
    backends.push({
      t,
      admin,
      editor,
      titles,
      async cleanup() {
        await redis?.cleanup();
        await t.close();
      },
    });
  }
});
test.after(async () => {
  for (const backend of backends) await backend.cleanup();
});

/** Runs the query on every backend, checks they agree, and returns the titles in order with the total. */
async function titlesFor(
  query: string,
  as?: 'admin' | 'editor',
): Promise<{ titles: string[]; total: string | null; status: number }> {
  const results = await Promise.all(
    backends.map(async (b) => {
      const response = await b.t.request('GET', `/core/v2/posts?${query}`, { as: as ? b[as] : undefined });
      return {
        status: response.status,
        titles:
          response.status === 200
            ? (response.body as { id: number }[]).map((p) => b.titles.get(p.id)!)
            : [response.body.code],
        total: response.headers.get('x-wp-total'),
      };
    }),
  );
  assert.equal(results[1], results[0], `memory and Redis disagree on ?${query}`);
  return results[0]!;
}

test('search: all terms, any column, case-insensitive; exclusions; quoted phrases; columns', async () => {
  assert.equal((await titlesFor('search=apple')).titles, ['Cherry tart', 'Banana bread', 'Apple pie recipe']);
  assert.equal((await titlesFor('search=apple', 'admin')).titles, [
    'apple crumble',
    'Cherry tart',
    'Banana bread',
    'Apple pie recipe',
  ]);
  assert.equal((await titlesFor('search=apple%20-bread', 'admin')).titles, [
    'apple crumble',
    'Cherry tart',
    'Apple pie recipe',
  ]);
  assert.equal((await titlesFor('search=%22sweet%20pastry%22')).titles, ['Cherry tart']);
  assert.equal((await titlesFor('search=apple&search_columns=post_title', 'admin')).titles, [
    'apple crumble',
    'Apple pie recipe',
  ]);
  assert.equal((await titlesFor('search=APPLE%20PIE')).titles, ['Apple pie recipe']);
});

test('orderby relevance puts title matches first', async () => {
  const { titles } = await titlesFor('search=apple&orderby=relevance', 'admin');
  assert.equal(titles.slice(0, 2).sort(), ['Apple pie recipe', 'apple crumble']);
  assert.equal(titles.slice(2), ['Cherry tart', 'Banana bread']);
});

test('dates: exclusive after/before bounds', async () => {
  assert.equal((await titlesFor('after=2024-01-12T10:00:00&before=2024-01-20T10:00:00')).titles, [
    'apple crumble',
    'Cherry tart',
  ]);
  assert.equal((await titlesFor('before=2024-01-12T10:00:01&order=asc')).titles, ['Apple pie recipe', 'Banana bread']);
});

test('slug (one, a list), include_slugs order, sticky true and false', async () => {
  assert.equal((await titlesFor('slug=apple-pie')).titles, ['Apple pie recipe']);
  assert.equal((await titlesFor('slug=damson-jam,apple-pie&orderby=include_slugs')).titles, [
    'Damson jam',
    'Apple pie recipe',
  ]);
  assert.equal((await titlesFor('sticky=true')).titles, ['Cherry tart']);
  const notSticky = await titlesFor('sticky=false');
  assert.not.ok(notSticky.titles.includes('Cherry tart'));
  assert.is(notSticky.total, '4');
});

test('status any and several statuses, by those allowed to see them', async () => {
  assert.equal((await titlesFor('status=draft,private&orderby=title&order=asc', 'admin')).titles, [
    'Draft about apples',
    'Zucchini soup',
  ]);
  assert.is((await titlesFor('status=any', 'admin')).total, '7');
  assert.is((await titlesFor('status=draft')).status, 400);
});

test('orders: title, slug, author, modified, id, include; offset and paging', async () => {
  assert.equal((await titlesFor('orderby=title&order=asc')).titles, [
    'apple crumble',
    'Apple pie recipe',
    'Banana bread',
    'Cherry tart',
    'Damson jam',
  ]);
  assert.equal((await titlesFor('orderby=author&order=desc&per_page=2')).titles.length, 2);
  const byId = await titlesFor('orderby=id&order=asc&per_page=2&page=2');
  assert.equal(byId.titles, ['Cherry tart', 'apple crumble']);
  assert.is(byId.total, '5');
  assert.equal((await titlesFor('orderby=id&order=asc&per_page=2&offset=3')).titles, ['apple crumble', 'Damson jam']);
  const ids = [...backends[0]!.titles.keys()];
  assert.equal((await titlesFor(`include=${ids[6]},${ids[0]}&orderby=include`)).titles, [
    'Damson jam',
    'Apple pie recipe',
  ]);
});

test.run();
