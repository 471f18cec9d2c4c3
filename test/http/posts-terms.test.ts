/**
 * A post's categories and tags over HTTP, as WordPress 6.1 keeps them: every post is in a category ("Uncategorized",
 * id 1, unless it names others), ids that name no term are dropped, a post's terms are listed by name, and
 * `include_children` follows the category tree. On both read models.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';

for (const model of ['memory', 'redis'] as const) {
  const test = suite(`posts: categories and tags (${model} read model)`);
  let t: TestSite;
  let admin: TestUser;
  let cleanup: () => Promise<void>;
  let zebra: number;
  let apple: number;
  let appleChild: number;
  let tag: number;

  const createTerm = async (path: string, body: Record<string, unknown>) => {
    const response = await t.request('POST', `/core/v2/${path}`, { as: admin, body });
    assert.is(response.status, 201, response.text);
    return response.body.id as number;
  };
  const createPost = async (body: Record<string, unknown>) => {
    const response = await t.request('POST', '/core/v2/posts', { as: admin, body: { status: 'publish', ...body } });
    assert.is(response.status, 201, response.text);
    return response.body;
  };

  test.before(async () => {
    const opened =
      model === 'redis' ? testRedisReadModel() : { readModel: createMemoryReadModel(), cleanup: async () => {} };
    cleanup = opened.cleanup;
    t = await startTestSite({ readModel: opened.readModel });
    admin = await t.createUser('admin', 'administrator');
    zebra = await createTerm('categories', { name: 'Zebra' });
    apple = await createTerm('categories', { name: 'Apple' });
    appleChild = await createTerm('categories', { name: 'Apple child', parent: apple });
    tag = await createTerm('tags', { name: 'A tag' });
  });
  test.after(async () => {
    await t.close();
    await cleanup();
  });

  test('a post saved without categories is in "Uncategorized" (id 1), which then exists and counts it', async () => {
    const post = await createPost({ title: 'No category' });
    assert.equal(post.categories, [1]);
    assert.equal(post.tags, []);
    const category = await t.request('GET', '/core/v2/categories/1');
    assert.is(category.status, 200);
    assert.is(category.body.name, 'Uncategorized');
    assert.is(category.body.count >= 1, true);
    const found = await t.request('GET', `/core/v2/posts?categories=1&include=${post.id}`);
    assert.equal(
      found.body.map((p: { id: number }) => p.id),
      [post.id],
    );
  });

  test('categories sent are kept exactly, even none; an update that sends none keeps them', async () => {
    const post = await createPost({ title: 'Empty list', categories: [] });
    assert.equal(post.categories, []);
    const kept = await t.request('POST', `/core/v2/posts/${post.id}`, { as: admin, body: { categories: [zebra] } });
    assert.equal(kept.body.categories, [zebra]);
    const untouched = await t.request('POST', `/core/v2/posts/${post.id}`, { as: admin, body: { title: 'Renamed' } });
    assert.equal(untouched.body.categories, [zebra]);
  });

  test('ids that name no term, or a term of the other taxonomy, are dropped', async () => {
    const post = await createPost({
      title: 'Unknown terms',
      categories: [999999, zebra, tag],
      tags: [999998, tag, zebra],
    });
    assert.equal(post.categories, [zebra]);
    assert.equal(post.tags, [tag]);
    const read = await t.request('GET', `/core/v2/posts/${post.id}`);
    assert.equal(read.body.categories, [zebra]);
  });

  test("a post's terms are listed by name, whatever order they were sent in", async () => {
    const post = await createPost({ title: 'Ordered', categories: [zebra, appleChild, apple] });
    assert.equal(post.categories, [apple, appleChild, zebra]);
  });

  test('include_children follows the category tree, for categories and categories_exclude', async () => {
    const inChild = await createPost({ title: 'In the child', categories: [appleChild] });
    const inParent = await createPost({ title: 'In the parent', categories: [apple] });
    const elsewhere = await createPost({ title: 'Elsewhere', categories: [zebra] });
    const scope = `include=${inChild.id},${inParent.id},${elsewhere.id}&orderby=id&order=asc`;
    const withChildren = await t.request(
      'GET',
      `/core/v2/posts?${scope}&categories[terms][]=${apple}&categories[include_children]=true`,
    );
    assert.equal(
      withChildren.body.map((p: { id: number }) => p.id),
      [inChild.id, inParent.id],
    );
    const without = await t.request('GET', `/core/v2/posts?${scope}&categories[terms][]=${apple}`);
    assert.equal(
      without.body.map((p: { id: number }) => p.id),
      [inParent.id],
    );
    const excluded = await t.request(
      'GET',
      `/core/v2/posts?${scope}&categories_exclude[terms][]=${apple}&categories_exclude[include_children]=true`,
    );
    assert.equal(
      excluded.body.map((p: { id: number }) => p.id),
      [elsewhere.id],
    );
  });

  test('deleting a category or tag takes it off every post; a post left without a category goes to id 1; counts follow', async () => {
    const gone = await createTerm('categories', { name: `Doomed ${model}` });
    const kept = await createTerm('categories', { name: `Kept ${model}` });
    const doomedTag = await createTerm('tags', { name: `Doomed tag ${model}` });
    const only = await createPost({ title: 'Only the doomed one', categories: [gone], tags: [doomedTag, tag] });
    const both = await createPost({ title: 'Two categories', categories: [gone, kept] });
    const draft = await createPost({ title: 'A draft', status: 'draft', categories: [gone] });
    assert.is((await t.request('GET', `/core/v2/categories/${kept}`)).body.count, 1);
    const before = await t.request('GET', `/core/v2/posts/${only.id}?context=edit`, { as: admin });
    const beforeDeletion = t.clock.now();
    t.clock.advance(60_000);

    const deleted = await t.request('DELETE', `/core/v2/categories/${gone}?force=true`, { as: admin });
    assert.is(deleted.status, 200, deleted.text);
    const deletedTag = await t.request('DELETE', `/core/v2/tags/${doomedTag}?force=true`, { as: admin });
    assert.is(deletedTag.status, 200, deletedTag.text);

    const read = async (id: number) =>
      (await t.request('GET', `/core/v2/posts/${id}?context=edit`, { as: admin })).body;
    const afterOnly = await read(only.id);
    assert.equal(afterOnly.categories, [1]);
    assert.equal(afterOnly.tags, [tag]);
    // WordPress sets the terms directly: the post's modification date stays.
    assert.is(afterOnly.modified_gmt, before.body.modified_gmt);
    assert.equal((await read(both.id)).categories, [kept]);
    assert.equal((await read(draft.id)).categories, [1]);
    // Lists and counts agree with the items.
    const listed = await t.request('GET', `/core/v2/posts?categories=${gone}`);
    assert.equal(listed.body, []);
    const inDefault = await t.request('GET', `/core/v2/posts?categories=1&include=${only.id},${both.id}`);
    assert.equal(
      inDefault.body.map((p: { id: number }) => p.id),
      [only.id],
    );
    assert.is((await t.request('GET', `/core/v2/tags/${tag}`)).body.count >= 1, true);
    // The change is an event on the post's own stream: its history shows it, and as_of before it shows the old terms.
    const history = await t.request('GET', `/core/v2/posts/${only.id}/history?per_page=100`, { as: admin });
    const last = history.body.slice(-2);
    assert.equal(
      last.map((e: any) => e.type),
      ['PostUpdated', 'PostUpdated'],
    );
    assert.equal(last[0].diff.categories, { from: [gone], to: [1] });
    assert.equal(last[1].diff.tags, { from: [tag, doomedTag], to: [tag] });
    const asOf = await t.request(
      'GET',
      `/core/v2/posts/${only.id}?as_of=${new Date(beforeDeletion).toISOString().slice(0, 19)}Z&context=edit`,
      { as: admin },
    );
    assert.is(asOf.status, 200, asOf.text);
    assert.equal(asOf.body.categories, [gone]);
  });

  test('the default category cannot be deleted, by anyone', async () => {
    const refused = await t.request('DELETE', '/core/v2/categories/1?force=true', { as: admin });
    assert.is(refused.status, 403);
    assert.is(refused.body.code, 'rest_cannot_delete');
    assert.is(refused.body.message, 'Sorry, you are not allowed to delete this term.');
    const anonymous = await t.request('DELETE', '/core/v2/categories/1?force=true');
    assert.is(anonymous.status, 401);
  });

  test.run();
}
