/**
 * Endpoints that declare `signedInOnly` (src/rest/route.ts) are left out of an anonymous caller's `Allow` header and
 * OPTIONS without their rule being run. The declaration must be true: their rules refuse every anonymous request,
 * whatever the item and the parameters, and the headers are those the rules themselves give.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { buildDispatcher } from '../../src/api';
import type { RestRequest } from '../../src/rest/route';

const test = suite('signed-in-only endpoints');
let t: TestSite;
let admin: TestUser;

test.before.each(async () => {
  t = await startTestSite();
  admin = await t.createUser('boss', 'administrator');
});
test.after.each(async () => {
  await t.close();
});

const create = async (path: string, body: Record<string, unknown>) => {
  const response = await t.request('POST', path, { as: admin, body });
  assert.is(response.status, 201, response.text);
  return response.body as { id: number };
};

test('every rule declared signed-in-only refuses anonymous callers, whatever the item and the parameters', async () => {
  const ids: number[] = [999_999];
  for (const path of ['/core/v2/posts', '/core/v2/pages']) {
    ids.push((await create(path, { title: 'Out', status: 'publish' })).id);
    ids.push((await create(path, { title: 'Draft', status: 'draft' })).id);
    ids.push((await create(path, { title: 'Locked', status: 'publish', password: 'secret' })).id);
  }
  const paramSets: Record<string, unknown>[] = [
    {},
    { context: 'edit' },
    { author: 0, sticky: true },
    { template: '', force: true, status: 'publish' },
    { password: 'secret', context: 'view' },
  ];
  const dispatcher = buildDispatcher(t.site);
  let judged = 0;
  for (const route of dispatcher.routes) {
    for (const endpoint of route.endpoints) {
      if (endpoint.signedInOnly !== true) continue;
      for (const id of ids) {
        for (const params of paramSets) {
          const request = {
            method: endpoint.methods[0],
            path: route.path,
            query: {},
            json: null,
            form: null,
            headers: {},
            actor: null,
            requestId: 't',
          } as RestRequest;
          // A refusal may be thrown (an application password's rule, without its user).
          const verdict = await Promise.resolve()
            .then(() => endpoint.permission({ request, params: { id, ...params }, actor: null, memo: new Map() }))
            .catch((error: unknown) => error);
          assert.ok(
            verdict !== true,
            `${endpoint.methods.join(',')} ${route.path} let an anonymous caller through with ${JSON.stringify({ id, ...params })}`,
          );
          judged++;
        }
      }
    }
  }
  // Posts and pages: create, update and delete.
  assert.ok(judged >= 6 * ids.length * paramSets.length, `judged ${judged}`);
});

test('anonymous and signed-in callers get the Allow headers and OPTIONS the rules give', async () => {
  const post = await create('/core/v2/posts', { title: 'Out', status: 'publish' });
  // A template the theme does not offer fails the update rule for everyone.
  const signedInAllows: Record<string, string> = {
    '': 'GET, POST, PUT, PATCH, DELETE',
    '?context=view': 'GET, POST, PUT, PATCH, DELETE',
    '?template=nope&sticky=1': 'GET, DELETE',
    '?force=true': 'GET, POST, PUT, PATCH, DELETE',
  };
  for (const [query, allows] of Object.entries(signedInAllows)) {
    const item = await t.request('GET', `/core/v2/posts/${post.id}${query}`);
    assert.is(item.headers.get('allow'), 'GET', query);
    const signedIn = await t.request('GET', `/core/v2/posts/${post.id}${query}`, { as: admin });
    assert.is(signedIn.headers.get('allow'), allows, query);
  }
  assert.is((await t.request('GET', '/core/v2/posts')).headers.get('allow'), 'GET');
  assert.is((await t.request('GET', '/core/v2/posts', { as: admin })).headers.get('allow'), 'GET, POST');
  assert.is((await t.request('OPTIONS', `/core/v2/posts/${post.id}`)).headers.get('allow'), 'GET');
  assert.is(
    (await t.request('OPTIONS', `/core/v2/posts/${post.id}`, { as: admin })).headers.get('allow'),
    'GET, POST, PUT, PATCH, DELETE',
  );
  // Refused anonymous writes still answer with the rule's own refusal, and the header of what is allowed.
  const patch = await t.request('PATCH', `/core/v2/posts/${post.id}`, { body: { title: 'No' } });
  assert.is(patch.status, 401, patch.text);
  assert.is(patch.body.code, 'rest_cannot_edit');
  assert.is(patch.headers.get('allow'), 'GET');
  const missing = await t.request('DELETE', '/core/v2/posts/999999');
  assert.is(missing.status, 404, missing.text);
  assert.is(missing.body.code, 'rest_post_invalid_id');
});

test.run();
