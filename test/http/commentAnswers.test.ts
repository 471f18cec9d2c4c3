/**
 * What a comment write answers, as WordPress 6.1 answers it (the reference site's answers to the same requests): a
 * new comment in edit context to a moderator and in view context to anyone else, and a comment deleted for good as
 * `previous` without links (WordPress sends the data of that answer only); and OPTIONS shows the schema without the
 * `arg_options` of its properties, as WordPress shows every schema.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

let t: TestSite;
let admin: TestUser;
let author: TestUser;
let post: number;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  author = await t.createUser('author', 'author');
  post = (await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Commented', status: 'publish' } }))
    .body.id;
});
test.after(() => t.close());

const VIEW = [
  'id',
  'post',
  'parent',
  'author',
  'author_name',
  'author_url',
  'date',
  'date_gmt',
  'content',
  'link',
  'status',
  'type',
  'author_avatar_urls',
  'meta',
  '_links',
];
const EDIT = [
  'id',
  'post',
  'parent',
  'author',
  'author_name',
  'author_email',
  'author_url',
  'author_ip',
  'author_user_agent',
  'date',
  'date_gmt',
  'content',
  'link',
  'status',
  'type',
  'author_avatar_urls',
  'meta',
  '_links',
];

test('a new comment is answered in edit context to a moderator, in view context to its author otherwise', async () => {
  const moderated = await t.request('POST', '/core/v2/comments', {
    as: admin,
    body: { post, content: 'By the administrator' },
  });
  assert.is(moderated.status, 201);
  assert.equal(Object.keys(moderated.body), EDIT);
  assert.is(moderated.body.content.raw, 'By the administrator');

  const own = await t.request('POST', '/core/v2/comments', { as: author, body: { post, content: 'By the author' } });
  assert.is(own.status, 201);
  assert.equal(Object.keys(own.body), VIEW);
  assert.equal(Object.keys(own.body.content), ['rendered']);
  assert.match(own.body.content.rendered, /By the author/);
  // What was saved is whole: the administrator reads it in edit context.
  const read = await t.request('GET', `/core/v2/comments/${own.body.id}?context=edit`, { as: admin });
  assert.is(read.body.content.raw, 'By the author');
  assert.is(read.body.author, author.id);
});

test('a comment deleted for good is answered as it was, without links; trashing answers with them', async () => {
  const comment = (await t.request('POST', '/core/v2/comments', { as: admin, body: { post, content: 'Short-lived' } }))
    .body;
  const trashed = await t.request('DELETE', `/core/v2/comments/${comment.id}`, { as: admin });
  assert.is(trashed.status, 200);
  assert.is(trashed.body.status, 'trash');
  assert.ok('_links' in trashed.body);
  const deleted = await t.request('DELETE', `/core/v2/comments/${comment.id}?force=true`, { as: admin });
  assert.is(deleted.status, 200);
  assert.is(deleted.body.deleted, true);
  assert.equal(
    Object.keys(deleted.body.previous),
    EDIT.filter((key) => key !== '_links'),
  );
  assert.is(deleted.body.previous.content.raw, 'Short-lived');
  assert.is(deleted.body.previous.status, 'trash');
  assert.is((await t.request('GET', `/core/v2/comments/${comment.id}`, { as: admin })).status, 404);
});

test('OPTIONS shows the comment schema without the input rules of its properties', async () => {
  const options = await t.request('OPTIONS', '/core/v2/comments');
  assert.is(options.body.schema.title, 'comment');
  for (const [name, property] of Object.entries(options.body.schema.properties as Record<string, object>))
    assert.not.ok('arg_options' in property, name);
  assert.equal(Object.keys(options.body.schema.properties.content.properties), ['raw', 'rendered']);
  // The rule still applies: content may be sent as {raw}.
  const created = await t.request('POST', '/core/v2/comments', {
    as: admin,
    body: { post, content: { raw: 'As an object' } },
  });
  assert.is(created.status, 201);
  assert.is(created.body.content.raw, 'As an object');
});

test.run();
