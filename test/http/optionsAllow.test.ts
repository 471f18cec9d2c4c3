/**
 * The `Allow` header as WordPress 6.1 sends it where clients read it (core-data's `canUser` asks OPTIONS and reads
 * `Allow`). Expected values are the reference site's answers to the same requests:
 *
 * - a caller allowed no method gets no `Allow` header at all (WordPress sends one only when some method is allowed);
 * - OPTIONS judges each endpoint on the request as sent, without any endpoint's defaults: the comments list, whose
 *   rule refuses a `status` or `type` other than the defaults to those who cannot edit posts, is then refused to
 *   anonymous callers and subscribers unless they send `status=approve&type=comment` themselves;
 * - after a comments list read, whose request carries the list's default `status`, creating is left out of `Allow`
 *   for those who may not moderate (only moderators may set a comment's status);
 * - after a write, the route's other methods are judged on what was sent (the request WordPress judges carries the
 *   write's defaults, not theirs), so after a comment by a subscriber `Allow` has no `GET`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

let t: TestSite;
let admin: TestUser;
let author: TestUser;
let subscriber: TestUser;
let post: number;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  author = await t.createUser('author', 'author');
  subscriber = await t.createUser('subscriber', 'subscriber');
  post = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Open for comments', status: 'publish' } })
  ).body.id;
});
test.after(() => t.close());

const allow = async (method: string, path: string, as: TestUser | null) => {
  const response = await t.request(method, path, { as });
  assert.ok(response.status < 400, `${method} ${path}: ${response.status} ${response.text}`);
  return response.headers.get('allow');
};

test('a caller allowed no method gets no Allow header', async () => {
  // menus and settings: nothing for an anonymous caller; settings: nothing for an author either.
  assert.is(await allow('OPTIONS', '/core/v2/menus', null), null);
  assert.is(await allow('OPTIONS', '/core/v2/menu-items', null), null);
  assert.is(await allow('OPTIONS', '/core/v2/settings', null), null);
  assert.is(await allow('OPTIONS', '/core/v2/settings', author), null);
  assert.is(await allow('OPTIONS', '/core/v2/posts?context=edit', null), null);
  assert.is(await allow('OPTIONS', '/core/v2/settings', admin), 'GET, POST, PUT, PATCH');
  assert.is(await allow('OPTIONS', '/core/v2/menus', admin), 'GET, POST');
});

test('OPTIONS judges the comments list without its defaults', async () => {
  assert.is(await allow('OPTIONS', '/core/v2/comments', null), null);
  assert.is(await allow('OPTIONS', '/core/v2/comments', subscriber), null);
  assert.is(await allow('OPTIONS', '/core/v2/comments?status=approve', null), null);
  assert.is(await allow('OPTIONS', '/core/v2/comments?status=approve&type=comment', null), 'GET');
  assert.is(await allow('OPTIONS', '/core/v2/comments?status=approve&type=comment', subscriber), 'GET');
  assert.is(await allow('OPTIONS', '/core/v2/comments?status=hold&type=comment', subscriber), null);
  // Those who may edit posts may ask for any status and type.
  assert.is(await allow('OPTIONS', '/core/v2/comments', author), 'GET');
  assert.is(await allow('OPTIONS', '/core/v2/comments', admin), 'GET');
  // The list itself, read with its defaults, is anyone's.
  assert.is(await allow('GET', '/core/v2/comments', null), 'GET');
  assert.is(await allow('GET', '/core/v2/comments', subscriber), 'GET');
});

test("after a comments list read, POST is allowed to moderators only (the read's request carries a status)", async () => {
  assert.is(await allow('GET', `/core/v2/comments?post=${post}`, admin), 'GET, POST');
  assert.is(await allow('GET', `/core/v2/comments?post=${post}`, author), 'GET');
  assert.is(await allow('GET', `/core/v2/comments?post=${post}`, subscriber), 'GET');
  assert.is(await allow('HEAD', `/core/v2/comments?post=${post}`, author), 'GET');
  // Asked by OPTIONS with the post, the request sets no status: whoever may comment on it may create.
  assert.is(await allow('OPTIONS', `/core/v2/comments?post=${post}`, author), 'GET, POST');
  assert.is(await allow('OPTIONS', `/core/v2/comments?post=${post}`, subscriber), 'POST');
  // And creating still works for the author, who sets no status.
  t.clock.advance(60_000);
  const created = await t.request('POST', '/core/v2/comments', { as: author, body: { post, content: 'Nice.' } });
  assert.is(created.status, 201, created.text);
  t.clock.advance(60_000);
  const withStatus = await t.request('POST', '/core/v2/comments', {
    as: author,
    body: { post, content: 'Mine.', status: 'approved' },
  });
  assert.is(withStatus.status, 403);
  assert.is(withStatus.body.code, 'rest_comment_invalid_status');
});

test("after a write, the route's other methods are judged on what was sent, without their defaults", async () => {
  // A refused anonymous comment: the list's rule finds no status=approve on the request, and refuses.
  const anonymous = await t.request('POST', '/core/v2/comments', { body: { post, content: 'Hello' } });
  assert.is(anonymous.status, 401);
  assert.is(anonymous.headers.get('allow'), null);
  // A subscriber's comment is saved; the list is not the subscriber's to read with filters of their choosing.
  // (Each comment a minute after the last, not to be refused as a flood.)
  t.clock.advance(60_000);
  const subscribed = await t.request('POST', '/core/v2/comments', { as: subscriber, body: { post, content: 'Hello' } });
  assert.is(subscribed.status, 201);
  assert.is(subscribed.headers.get('allow'), 'POST');
  // Those who may edit posts may read the list with any filters.
  t.clock.advance(60_000);
  const authored = await t.request('POST', '/core/v2/comments', { as: author, body: { post, content: 'Hello again' } });
  assert.is(authored.status, 201);
  assert.is(authored.headers.get('allow'), 'GET, POST');
  // Other routes are unchanged: a post's update answers with every method its author may use.
  const own = (await t.request('POST', '/core/v2/posts', { as: author, body: { title: 'Mine', status: 'draft' } })).body
    .id;
  const updated = await t.request('POST', `/core/v2/posts/${own}`, { as: author, body: { title: 'Still mine' } });
  assert.is(updated.headers.get('allow'), 'GET, POST, PUT, PATCH, DELETE');
});

test.run();
