/**
 * Work the read path reuses or shares: the validated args of anonymous requests without a body (kept per
 * endpoint, path and raw query string, src/rest/dispatch.ts), and an `_embed`'s term lists resolved together
 * (src/resources/terms/embedBatch.ts). Reuse must never hand one caller's outcome to another, nor one query's
 * to another query; a batched embed must give each post exactly what its own request gives.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import type { ReadModel } from '../../src/ports/readModel';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';

const test = suite('read path reuse');
let t: TestSite;
let admin: TestUser;

test.before.each(async () => {
  t = await startTestSite();
  admin = await t.createUser('boss', 'administrator');
});
test.after.each(async () => {
  await t.close();
});

const create = async (body: Record<string, unknown>) => {
  const response = await t.request('POST', '/core/v2/posts', { as: admin, body });
  assert.is(response.status, 201, response.text);
  return response.body as { id: number };
};

test('a status filter refused to an anonymous caller stays refused after a signed-in caller used it, and the other way round', async () => {
  await create({ title: 'Draft', status: 'draft' });
  await create({ title: 'Out', status: 'publish' });
  for (let round = 0; round < 2; round++) {
    const anonymous = await t.request('GET', '/core/v2/posts?status=draft');
    assert.is(anonymous.status, 400, anonymous.text);
    assert.is(anonymous.body.data.details.status.code, 'rest_forbidden_status');
    const signedIn = await t.request('GET', '/core/v2/posts?status=draft', { as: admin });
    assert.is(signedIn.status, 200, signedIn.text);
    assert.equal(
      signedIn.body.map((p: { title: { rendered: string } }) => p.title.rendered),
      ['Draft'],
    );
  }
  const published = await t.request('GET', '/core/v2/posts?status=publish');
  assert.is(published.status, 200);
  assert.equal(
    published.body.map((p: { title: { rendered: string } }) => p.title.rendered),
    ['Out'],
  );
});

test('each query string gets its own args: per_page, paging links and the context refusal', async () => {
  for (let i = 0; i < 5; i++) await create({ title: `Post ${i}`, status: 'publish' });
  for (let round = 0; round < 2; round++) {
    const two = await t.request('GET', '/core/v2/posts?per_page=2');
    const three = await t.request('GET', '/core/v2/posts?per_page=3');
    assert.is(two.body.length, 2);
    assert.is(three.body.length, 3);
    assert.is(two.headers.get('x-wp-totalpages'), '3');
    assert.match(two.headers.get('link') ?? '', /per_page=2&page=2>; rel="next"/);
    assert.match(three.headers.get('link') ?? '', /per_page=3&page=2>; rel="next"/);
    assert.is((await t.request('GET', '/core/v2/posts?per_page=0')).status, 400);
    assert.is((await t.request('GET', '/core/v2/posts?context=edit')).status, 401);
    assert.is((await t.request('GET', '/core/v2/posts?context=edit', { as: admin })).status, 200);
  }
});

test('a single post read anonymously and then signed in shows each caller its own Allow header and context', async () => {
  const post = await create({ title: 'Item', status: 'publish' });
  for (let round = 0; round < 2; round++) {
    const anonymous = await t.request('GET', `/core/v2/posts/${post.id}`);
    assert.is(anonymous.status, 200);
    assert.is(anonymous.headers.get('allow'), 'GET');
    assert.is(anonymous.body.content.raw, undefined);
    const signedIn = await t.request('GET', `/core/v2/posts/${post.id}?context=edit`, { as: admin });
    assert.is(signedIn.headers.get('allow'), 'GET, POST, PUT, PATCH, DELETE');
    assert.type(signedIn.body.content.raw, 'string');
    assert.is((await t.request('GET', `/core/v2/posts/${post.id}?context=edit`)).status, 401);
  }
});

test.run();

const adapters: [string, () => { readModel: ReadModel; cleanup(): Promise<void> }][] = [
  ['memory', () => ({ readModel: createMemoryReadModel(), cleanup: async () => {} })],
  ['redis', testRedisReadModel],
];

for (const [adapterName, open] of adapters) {
  const embed = suite(`_embed term lists resolved together (${adapterName} read model)`);
  let site: TestSite;
  let boss: TestUser;
  let cleanup: () => Promise<void>;
  embed.before.each(async () => {
    const opened = open();
    cleanup = opened.cleanup;
    site = await startTestSite({ readModel: opened.readModel });
    boss = await site.createUser('boss', 'administrator');
  });
  embed.after.each(async () => {
    await site.close();
    await cleanup();
  });

  const make = async (path: string, body: Record<string, unknown>) => {
    const response = await site.request('POST', path, { as: boss, body });
    assert.is(response.status, 201, response.text);
    return response.body.id as number;
  };

  embed(
    'each post embeds exactly the categories and tags its own requests list, in their order, with counts and nested links',
    async () => {
      const parent = await make('/core/v2/categories', { name: 'Zeta parent' });
      const child = await make('/core/v2/categories', { name: 'Alpha child', parent });
      const other = await make('/core/v2/categories', { name: 'Mid' });
      const tagB = await make('/core/v2/tags', { name: 'bravo' });
      const tagA = await make('/core/v2/tags', { name: 'alpha' });
      await make('/core/v2/posts', {
        title: 'One',
        status: 'publish',
        categories: [parent, child],
        tags: [tagB, tagA],
      });
      await make('/core/v2/posts', { title: 'Two', status: 'publish', categories: [other], tags: [] });
      await make('/core/v2/posts', { title: 'Three', status: 'publish', categories: [child, other], tags: [tagA] });
      await make('/core/v2/posts', { title: 'Four', status: 'publish' });
      for (const as of [null, boss]) {
        const list = await site.request('GET', '/core/v2/posts?_embed', { as });
        assert.is(list.status, 200, list.text);
        assert.is(list.body.length, 4);
        for (const post of list.body as { id: number; _embedded: Record<string, unknown[]> }[]) {
          const categories = await site.request('GET', `/core/v2/categories?post=${post.id}&context=embed`, { as });
          const tags = await site.request('GET', `/core/v2/tags?post=${post.id}&context=embed`, { as });
          assert.equal(post._embedded['wp:term'], [categories.body, tags.body]);
          const single = await site.request('GET', `/core/v2/posts/${post.id}?_embed=wp:term`, { as });
          assert.equal(single.body._embedded['wp:term'], [categories.body, tags.body]);
        }
        const first = (
          list.body as {
            title: { rendered: string };
            _embedded: Record<string, { name: string; link: string; count?: number }[][]>;
          }[]
        ).find((p) => p.title.rendered === 'One')!;
        assert.equal(
          first._embedded['wp:term'][0]!.map((c) => c.name),
          ['Alpha child', 'Zeta parent'],
        );
        assert.match(first._embedded['wp:term'][0]![0]!.link, /\/category\/zeta-parent\/alpha-child\/$/);
        assert.equal(
          first._embedded['wp:term'][1]!.map((c) => c.name),
          ['alpha', 'bravo'],
        );
      }
    },
  );

  embed.run();
}
