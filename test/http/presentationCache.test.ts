/**
 * Presented posts are cached per document version and variant (src/resources/content/present.ts) and
 * served from their kept JSON (src/rest/serialized.ts). These tests read the same posts again and again, in
 * the orders a cache could get wrong, on both read models: a change must show at once, protected content
 * must follow each request's password and rights, edit context must not leak to view, and a cached item
 * must still take `_fields`, `_embed` and `_envelope`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import type { ReadModel } from '../../src/ports/readModel';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';

const adapters: [string, () => { readModel: ReadModel; cleanup(): Promise<void> }][] = [
  ['memory', () => ({ readModel: createMemoryReadModel(), cleanup: async () => {} })],
  ['redis', testRedisReadModel],
];

for (const [adapterName, open] of adapters) {
  const test = suite(`presentation cache (${adapterName} read model)`);
  let t: TestSite;
  let admin: TestUser;
  let author: TestUser;
  let cleanup: () => Promise<void>;

  test.before.each(async () => {
    const opened = open();
    cleanup = opened.cleanup;
    t = await startTestSite({ readModel: opened.readModel });
    admin = await t.createUser('boss', 'administrator');
    author = await t.createUser('writer', 'author');
  });
  test.after.each(async () => {
    await t.close();
    await cleanup();
  });

  const create = async (as: TestUser, body: Record<string, unknown>) => {
    const response = await t.request('POST', '/core/v2/posts', { as, body: { status: 'publish', ...body } });
    assert.is(response.status, 201, response.text);
    return response.body as { id: number };
  };

  test('an update shows at once in the item and in the list that were read before it', async () => {
    const post = await create(admin, { title: 'First', content: 'one' });
    for (let i = 0; i < 2; i++) {
      assert.is((await t.request('GET', `/core/v2/posts/${post.id}`)).body.title.rendered, 'First');
      assert.is((await t.request('GET', '/core/v2/posts')).body[0].title.rendered, 'First');
    }
    const updated = await t.request('POST', `/core/v2/posts/${post.id}`, {
      as: admin,
      body: { title: 'Second', content: 'two' },
    });
    assert.is(updated.status, 200, updated.text);
    const item = (await t.request('GET', `/core/v2/posts/${post.id}`)).body;
    assert.is(item.title.rendered, 'Second');
    assert.is(item.content.rendered, '<p>two</p>\n');
    assert.is((await t.request('GET', '/core/v2/posts')).body[0].title.rendered, 'Second');
  });

  test('protected content follows each request: no password, the right one, a reader without it again', async () => {
    const post = await create(admin, { title: 'Locked', content: 'secret words', password: 'pw' });
    const anonymous = async () => (await t.request('GET', `/core/v2/posts/${post.id}`)).body;
    assert.is((await anonymous()).content.rendered, '');
    const unlocked = (await t.request('GET', `/core/v2/posts/${post.id}?password=pw`)).body;
    assert.is(unlocked.content.rendered, '<p>secret words</p>\n');
    assert.is((await anonymous()).content.rendered, '');
    const listed = (await t.request('GET', '/core/v2/posts')).body;
    assert.is(listed[0].content.rendered, '');
    assert.is(listed[0].content.protected, true);
  });

  test('edit context does not leak into view, and the view read before edit stays a view', async () => {
    const post = await create(author, { title: 'Mine', content: 'text' });
    const view = (await t.request('GET', `/core/v2/posts/${post.id}`)).body;
    assert.is(view.title.raw, undefined);
    const edit = await t.request('GET', `/core/v2/posts/${post.id}?context=edit`, { as: author });
    assert.is(edit.status, 200, edit.text);
    assert.is(edit.body.title.raw, 'Mine');
    assert.is(edit.body.content.raw, 'text');
    const again = (await t.request('GET', `/core/v2/posts/${post.id}`, { as: author })).body;
    assert.is(again.title.raw, undefined);
    assert.is(again.content.raw, undefined);
    const listedEdit = (await t.request('GET', '/core/v2/posts?context=edit', { as: admin })).body;
    assert.is(listedEdit[0].title.raw, 'Mine');
    assert.is((await t.request('GET', '/core/v2/posts')).body[0].title.raw, undefined);
  });

  test('a cached item still takes _fields, _embed and _envelope, and the list stays valid JSON', async () => {
    const first = await create(admin, { title: 'A', content: 'a' });
    const second = await create(admin, { title: 'B', content: 'b' });
    const plain = await t.request('GET', '/core/v2/posts');
    assert.equal(JSON.parse(plain.text), plain.body);
    assert.equal(
      plain.body.map((p: { id: number }) => p.id),
      [second.id, first.id],
    );
    const fields = (await t.request('GET', '/core/v2/posts?_fields=id,title')).body;
    assert.equal(fields, [
      { id: second.id, title: { rendered: 'B' } },
      { id: first.id, title: { rendered: 'A' } },
    ]);
    const embedded = (await t.request('GET', `/core/v2/posts/${first.id}?_embed`)).body;
    assert.is(embedded._embedded.author[0].id, admin.id);
    assert.is((await t.request('GET', `/core/v2/posts/${first.id}`)).body._embedded, undefined);
    const envelope = (await t.request('GET', `/core/v2/posts/${first.id}?_envelope`)).body;
    assert.is(envelope.status, 200);
    assert.is(envelope.body.id, first.id);
    assert.is(envelope.body.title.rendered, 'A');
  });

  test.run();
}

const identity = suite('presentation cache: the documents it keeps keep their identity (memory read model)');

identity(
  'a post the cache keeps is said to the read model, which hands out that object until the post changes',
  async () => {
    // No recent documents: only what the presentation cache keeps is one object across reads.
    const readModel = createMemoryReadModel({ parsedDocsKept: 0 });
    const kept: unknown[] = [];
    const keepIdentity = readModel.keepIdentity!;
    readModel.keepIdentity = (doc) => {
      kept.push(doc);
      keepIdentity(doc);
    };
    const t = await startTestSite({ readModel });
    try {
      const admin = await t.createUser('boss', 'administrator');
      const created = await t.request('POST', '/core/v2/posts', {
        as: admin,
        body: { status: 'publish', title: 'Kept', content: 'words' },
      });
      assert.is(created.status, 201, created.text);
      const id = (created.body as { id: number }).id;
      const first = await t.request('GET', `/core/v2/posts/${id}`);
      assert.is(first.status, 200);
      const doc = await readModel.get('post', id);
      assert.ok(kept.includes(doc), 'the document read is the one the cache kept');
      assert.is((await t.request('GET', `/core/v2/posts/${id}`)).text, first.text);
      assert.is(await readModel.get('post', id), doc);
      const updated = await t.request('POST', `/core/v2/posts/${id}`, { as: admin, body: { title: 'Changed' } });
      assert.is(updated.status, 200, updated.text);
      assert.is((await t.request('GET', `/core/v2/posts/${id}`)).body.title.rendered, 'Changed');
      assert.is.not(await readModel.get('post', id), doc);
    } finally {
      await t.close();
    }
  },
);

identity.run();
