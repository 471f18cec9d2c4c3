/**
 * An anonymous read of an item on the in-memory read model answers without waiting on anything
 * (src/core/maybeAsync.ts): every step of the pipeline gives its value at once. The answer is the one HTTP gives.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildDispatcher } from '../../src/api';
import type { RestRequest } from '../../src/rest/route';
import { startTestSite } from '../support/testSite';
import type { TestSite } from '../support/testSite';

const test = suite('reads at once');
let t: TestSite;

test.before.each(async () => {
  t = await startTestSite();
});
test.after.each(async () => {
  await t.close();
});

const anonymous = (path: string): RestRequest => ({
  method: 'GET',
  path,
  query: {},
  rawQuery: '',
  json: null,
  form: null,
  headers: {},
  actor: null,
  requestId: 'at-once',
});

test('a post and a refused draft are answered at once, as HTTP answers them', async () => {
  const admin = await t.createUser('boss', 'administrator');
  const published = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Out', status: 'publish' } });
  const draft = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Not yet', status: 'draft' } });
  assert.is(published.status, 201);
  const dispatcher = buildDispatcher(t.site);
  for (const [id, status] of [
    [published.body.id, 200],
    [draft.body.id, 401],
    [987654, 404],
  ] as const) {
    const path = `/core/v2/posts/${id}`;
    // The first read may wait: whether the content projection is behind is worked out once per read-model version.
    await dispatcher.answer(anonymous(path));
    const now = dispatcher.answer(anonymous(path));
    assert.not.instance(now, Promise, path);
    const answered = now as Exclude<typeof now, Promise<unknown>>;
    assert.is(answered.status, status, path);
    const http = await t.request('GET', path);
    assert.is(http.status, status);
    assert.equal(JSON.parse(JSON.stringify(answered.body)), http.body);
    if (status === 200) assert.is(http.headers.get('allow'), answered.headers?.Allow ?? null);
  }
});

test.run();
