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
import { createMemoryReadModel } from '../../src/adapters/memory/readModel';

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
    const opened = model === 'redis' ? testRedisReadModel() : { readModel: createMemoryReadModel(), cleanup: async () => {} };
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
    assert.equal(found.body.map((p: { id: number }) => p.id), [post.id]);
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
    const post = await createPost({ title: 'Unknown terms', categories: [999999, zebra, tag], tags: [999998, tag, zebra] });
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
    const withChildren = await t.request('GET', `/core/v2/posts?${scope}&categories[terms][]=${apple}&categories[include_children]=true`);
    assert.equal(withChildren.body.map((p: { id: number }) => p.id), [inChild.id, inParent.id]);
    const without = await t.request('GET', `/core/v2/posts?${scope}&categories[terms][]=${apple}`);
    assert.equal(without.body.map((p: { id: number }) => p.id), [inParent.id]);
    const excluded = await t.request('GET', `/core/v2/posts?${scope}&categories_exclude[terms][]=${apple}&categories_exclude[include_children]=true`);
    assert.equal(excluded.body.map((p: { id: number }) => p.id), [elsewhere.id]);
  });

  test.run();
}
