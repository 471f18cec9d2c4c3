/** POST /batch/v1: sub-requests through the same pipeline, in order, as the same caller. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('batch');
let t: TestSite;
let admin: TestUser;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
});
test.after(async () => t.close());

test('runs each request in order and answers 207 with an envelope per request', async () => {
  const { status, body } = await t.request('POST', '/batch/v1', {
    as: admin,
    body: {
      requests: [
        { path: '/core/v2/posts', body: { title: 'First', status: 'publish' } },
        { path: '/core/v2/posts', body: { title: 'Second', status: 'publish' } },
        { method: 'DELETE', path: '/core/v2/posts/999999' },
      ],
    },
  });
  assert.is(status, 207);
  assert.is(body.responses.length, 3);
  const [first, second, missing] = body.responses;
  assert.is(first.status, 201);
  assert.is(first.body.title.raw, 'First');
  assert.ok(first.body._links.self, 'bodies keep their links');
  assert.match(first.headers.Location, /\/core\/v2\/posts\/\d+$/);
  assert.is(second.status, 201);
  assert.ok(second.body.id > first.body.id);
  assert.is(missing.status, 404);
  assert.is(missing.body.code, 'rest_post_invalid_id');
  const list = await t.request('GET', '/core/v2/posts');
  assert.is(list.headers.get('x-wp-total'), '2');
});

test('a path with a query string, and the caller of the batch is the caller of each request', async () => {
  const created = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Third', status: 'draft' } });
  const anonymous = await t.request('POST', '/batch/v1', {
    body: { requests: [{ method: 'DELETE', path: `/core/v2/posts/${created.body.id}?force=true` }] },
  });
  assert.is(anonymous.status, 207);
  assert.is(anonymous.body.responses[0].status, 401);
  const signedIn = await t.request('POST', '/batch/v1', {
    as: admin,
    body: { requests: [{ method: 'DELETE', path: `/core/v2/posts/${created.body.id}?force=true` }] },
  });
  assert.is(signedIn.body.responses[0].status, 200);
  assert.is(signedIn.body.responses[0].body.deleted, true);
});

test('routes without allow_batch are refused per request; unknown routes are 404 entries', async () => {
  const { status, body } = await t.request('POST', '/batch/v1', {
    as: admin,
    body: { requests: [{ path: '/batch/v1', body: { requests: [] } }, { path: '/core/v2/nothing' }] },
  });
  assert.is(status, 207);
  assert.equal(body.responses[0].body, {
    code: 'rest_batch_not_allowed',
    message: 'The requested route does not support batch requests.',
    data: { status: 400 },
  });
  assert.is(body.responses[0].status, 400);
  assert.is(body.responses[0].headers.Allow, 'POST');
  assert.is(body.responses[1].status, 404);
  assert.is(body.responses[1].body.code, 'rest_no_route');
});

test('require-all-validate runs nothing when one request fails validation', async () => {
  const before = await t.request('GET', '/core/v2/posts?status=any&context=edit', { as: admin });
  const { status, body } = await t.request('POST', '/batch/v1', {
    as: admin,
    body: {
      validation: 'require-all-validate',
      requests: [
        { path: '/core/v2/posts', body: { title: 'Never', status: 'publish' } },
        { path: '/core/v2/posts', body: { title: 'Bad', status: 'nonsense' } },
      ],
    },
  });
  assert.is(status, 207);
  assert.is(body.failed, 'validation');
  assert.is(body.responses[0], null);
  assert.is(body.responses[1].status, 400);
  assert.is(body.responses[1].body.code, 'rest_invalid_param');
  const after = await t.request('GET', '/core/v2/posts?status=any&context=edit', { as: admin });
  assert.is(after.headers.get('x-wp-total'), before.headers.get('x-wp-total'));
});

test('require-all-validate: a sub-request refused by its permission check is no validation failure; it runs and answers its own 403', async () => {
  const contributor = await t.createUser('batch-contributor', 'contributor');
  const { status, body } = await t.request('POST', '/batch/v1', {
    as: contributor,
    body: {
      validation: 'require-all-validate',
      requests: [
        { path: '/core/v2/posts', body: { title: 'Batched draft', status: 'draft' } },
        { method: 'DELETE', path: '/core/v2/categories/1?force=true' },
      ],
    },
  });
  assert.is(status, 207);
  assert.is(body.failed, undefined);
  assert.is(body.responses[0].status, 201, JSON.stringify(body.responses[0].body));
  assert.is(body.responses[1].status, 403);
  assert.is(body.responses[1].body.code, 'rest_cannot_delete');
  const created = await t.request('GET', `/core/v2/posts/${body.responses[0].body.id}?context=edit`, {
    as: contributor,
  });
  assert.is(created.status, 200);
});

test("a sub-request's permission is checked when it runs, after the ones before it", async () => {
  const author = await t.createUser('batch-author', 'author');
  const own = await t.request('POST', '/core/v2/posts', {
    as: author,
    body: { title: 'Mine for now', status: 'draft' },
  });
  // The first request gives the post away; the second, by its former author, is then refused.
  const { body } = await t.request('POST', '/batch/v1', {
    as: admin,
    body: { requests: [{ path: `/core/v2/posts/${own.body.id}`, body: { author: admin.id } }] },
  });
  assert.is(body.responses[0].status, 200, JSON.stringify(body.responses[0].body));
  const second = await t.request('POST', '/batch/v1', {
    as: author,
    body: {
      requests: [
        { path: '/core/v2/posts', body: { title: 'Fine', status: 'draft' } },
        { path: `/core/v2/posts/${own.body.id}`, body: { title: 'Not mine' } },
      ],
    },
  });
  assert.is(second.body.responses[0].status, 201);
  assert.is(second.body.responses[1].status, 403);
  assert.is(second.body.responses[1].body.code, 'rest_cannot_edit');
});

test('top-level errors: requests missing, more than 25, a request without path, GET as a method', async () => {
  const missing = await t.request('POST', '/batch/v1', { as: admin, body: {} });
  assert.is(missing.status, 400);
  assert.is(missing.body.code, 'rest_missing_callback_param');
  assert.equal(missing.body.data.params, ['requests']);
  const tooMany = await t.request('POST', '/batch/v1', {
    as: admin,
    body: { requests: Array.from({ length: 26 }, () => ({ path: '/core/v2/posts' })) },
  });
  assert.is(tooMany.status, 400);
  assert.is(tooMany.body.data.details.requests.code, 'rest_too_many_items');
  const noPath = await t.request('POST', '/batch/v1', { as: admin, body: { requests: [{ method: 'POST' }] } });
  assert.is(noPath.status, 400);
  assert.is(noPath.body.data.details.requests.code, 'rest_property_required');
  assert.is(noPath.body.data.details.requests.message, 'path is a required property of requests[0].');
  const get = await t.request('POST', '/batch/v1', {
    as: admin,
    body: { requests: [{ method: 'GET', path: '/core/v2/posts' }] },
  });
  assert.is(get.status, 400);
  assert.is(get.body.code, 'rest_invalid_param');
});

test('the index lists /batch/v1 at the root level', async () => {
  const { body } = await t.request('GET', '/');
  assert.is(body.routes['/batch/v1'].namespace, '');
  assert.equal(body.routes['/batch/v1'].methods, ['POST']);
});

test.run();
