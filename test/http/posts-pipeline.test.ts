/**
 * What the request pipeline does around the posts routes, as WordPress 6.1 does: JSONP, PHP's reasons for a
 * malformed JSON body, `_embed` leaving out links to routes that do not exist here, empty header maps as
 * PHP arrays, template validation, and batch sub-requests with their `Allow` headers and `_fields`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { contentStreamId } from '../../src/resources/content/events';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('posts: the pipeline around them');
let t: TestSite;
let admin: TestUser;
let post: { id: number; slug: string };

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  const created = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Pipeline', status: 'publish' },
  });
  post = created.body;
});
test.after(async () => t.close());

test('_jsonp: a valid callback wraps the answer in JavaScript; an invalid one is 400 rest_callback_invalid without data', async () => {
  const wrapped = await t.request('GET', `/core/v2/posts/${post.id}?_jsonp=my.callback_1`);
  assert.is(wrapped.status, 200);
  assert.match(wrapped.headers.get('content-type') ?? '', /^application\/javascript/);
  assert.ok(wrapped.text.startsWith('/**/my.callback_1({'), wrapped.text.slice(0, 40));
  assert.is(JSON.parse(wrapped.text.slice('/**/my.callback_1('.length, -1)).id, post.id);
  const refused = await t.request('GET', `/core/v2/posts/${post.id}?_jsonp=${encodeURIComponent('bad callback!')}`);
  assert.is(refused.status, 400);
  assert.equal(refused.body, { code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.' });
});

test("a malformed JSON body is reported with PHP's reason", async () => {
  const send = (data: string | Buffer) =>
    t.request('POST', '/core/v2/posts', { as: admin, raw: { data, type: 'application/json' } });
  const unterminated = await send('{"title": "unterminated');
  assert.is(unterminated.body.code, 'rest_invalid_json');
  assert.equal(unterminated.body.data, {
    status: 400,
    json_error_code: 3,
    json_error_message: 'Control character error, possibly incorrectly encoded',
  });
  const syntax = await send('{"title":');
  assert.equal(syntax.body.data, { status: 400, json_error_code: 4, json_error_message: 'Syntax error' });
  const control = await send('{"title": "a\nb"}');
  assert.is(control.body.data.json_error_code, 3);
});

test('a JSON body that is not UTF-8 is refused as PHP refuses it (5), unless a syntax error comes first; nothing is created', async () => {
  const send = (data: Buffer, as: TestUser | null = admin) =>
    t.request('POST', '/core/v2/posts', { as, raw: { data, type: 'application/json' } });
  const subscriber = await t.createUser('utf8-subscriber', 'subscriber');
  const malformed = {
    status: 400,
    json_error_code: 5,
    json_error_message: 'Malformed UTF-8 characters, possibly incorrectly encoded',
  };
  const before = await t.request('GET', '/core/v2/posts?status=any&context=edit&per_page=100', { as: admin });
  const inString = await send(
    Buffer.concat([Buffer.from('{"title":"a'), Buffer.from([0xff]), Buffer.from('b","status":"publish"}')]),
  );
  assert.is(inString.status, 400);
  assert.is(inString.body.code, 'rest_invalid_json');
  assert.equal(inString.body.data, malformed);
  // Outside a string, in a truncated body, and before the permission check alike (checked against WordPress 6.1).
  assert.equal(
    (await send(Buffer.concat([Buffer.from('{"title": '), Buffer.from([0xff]), Buffer.from('}')]))).body.data,
    malformed,
  );
  assert.equal(
    (await send(Buffer.concat([Buffer.from('{"title":"a'), Buffer.from([0xc3, 0x28])]))).body.data,
    malformed,
  );
  assert.equal(
    (await send(Buffer.concat([Buffer.from('{"title":"a'), Buffer.from([0xff]), Buffer.from('"}')]), subscriber)).body
      .data,
    malformed,
  );
  // An anonymous caller's body is not read where no endpoint admits one (docs/compatibility.md): the rule's refusal.
  assert.is(
    (await send(Buffer.concat([Buffer.from('{"title":"a'), Buffer.from([0xff]), Buffer.from('"}')]), null)).body.code,
    'rest_cannot_create',
  );
  // An overlong encoding of "/" is malformed too.
  assert.equal(
    (await send(Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]))).body.data,
    malformed,
  );
  const syntaxFirst = await send(
    Buffer.concat([Buffer.from('{"title":"ok",,"x":"'), Buffer.from([0xff]), Buffer.from('"}')]),
  );
  assert.equal(syntaxFirst.body.data, { status: 400, json_error_code: 4, json_error_message: 'Syntax error' });
  const after = await t.request('GET', '/core/v2/posts?status=any&context=edit&per_page=100', { as: admin });
  assert.is(after.body.length, before.body.length);
  // Valid multi-byte text still goes through.
  const fine = await send(Buffer.from('{"title":"Grüße ✓ 𝄞"}'));
  assert.is(fine.status, 201, fine.text);
  assert.is(fine.body.title.raw, 'Grüße ✓ 𝄞');
});

test('_embed leaves out a rel whose embeds are all empty (replies of a post without comments), as WordPress does', async () => {
  const response = await t.request('GET', `/core/v2/posts/${post.id}?_embed`);
  assert.ok(response.body._links.replies);
  assert.ok(response.body._embedded.author);
  assert.is(response.body._embedded.replies, undefined);
  const made = await t.request('POST', '/core/v2/comments', { as: admin, body: { post: post.id, content: 'First' } });
  assert.is(made.status, 201);
  const withReply = await t.request('GET', `/core/v2/posts/${post.id}?_embed`);
  assert.equal(
    withReply.body._embedded.replies[0].map((c: { id: number }) => c.id),
    [made.body.id],
  );
});

test('an _envelope without headers has them as [] (an empty PHP array)', async () => {
  const response = await t.request('GET', '/core/v2/posts/999999?_envelope');
  assert.equal(response.body.headers, []);
});

test('a template the theme does not offer is refused while validating; "" is always fine', async () => {
  const refused = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'T', template: 'no-such-template.php' },
  });
  assert.is(refused.status, 400);
  assert.equal(refused.body, {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): template',
    data: {
      status: 400,
      params: { template: 'template is not one of .' },
      details: { template: { code: 'rest_invalid_param', message: 'template is not one of .', data: null } },
    },
  });
  const fine = await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'T', template: '' } });
  assert.is(fine.status, 201);
});

test("on update, the item's current template is accepted even though the theme does not offer it; any other is refused first", async () => {
  const page = await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Imported', status: 'publish' } });
  // An item with a template of an earlier theme (written to its stream, as an import would).
  const appended = await t.site.store.appendToStream(
    contentStreamId(page.body.id),
    [
      {
        type: 'PostUpdated',
        data: { id: page.body.id, postType: 'page', changes: { template: 'old-theme-wide.php' } },
        metadata: t.site.metadata(admin.id, 'import'),
      },
    ],
    { expectedRevision: 'any' },
  );
  await t.site.settle(appended.position);
  const same = await t.request('POST', `/core/v2/pages/${page.body.id}`, {
    as: admin,
    body: { template: 'old-theme-wide.php', title: 'Kept' },
  });
  assert.is(same.status, 200, same.text);
  assert.is(same.body.template, 'old-theme-wide.php');
  assert.is(same.body.title.raw, 'Kept');
  const other = await t.request('POST', `/core/v2/pages/${page.body.id}`, {
    as: admin,
    body: { template: 'old-theme-narrow.php' },
  });
  assert.is(other.status, 400);
  assert.equal(other.body.data.params, { template: 'template is not one of .' });
  // A validation failure: reported before the permission check, and for an item that does not exist.
  const subscriber = await t.createUser('template-subscriber', 'subscriber');
  const anonymous = await t.request('POST', `/core/v2/pages/${page.body.id}`, {
    as: subscriber,
    body: { template: 'old-theme-narrow.php' },
  });
  assert.is(anonymous.status, 400);
  assert.is(anonymous.body.code, 'rest_invalid_param');
  const missing = await t.request('POST', '/core/v2/pages/999999', {
    as: admin,
    body: { template: 'old-theme-wide.php' },
  });
  assert.is(missing.status, 400);
  // Not a rule of creation.
  const created = await t.request('POST', '/core/v2/pages', {
    as: admin,
    body: { title: 'New', template: 'old-theme-wide.php' },
  });
  assert.is(created.status, 400);
  // "" clears it.
  const cleared = await t.request('POST', `/core/v2/pages/${page.body.id}`, { as: admin, body: { template: '' } });
  assert.is(cleared.body.template, '');
});

test('batch: refusals carry Allow, entries without headers have [], and _fields narrows an answer', async () => {
  const response = await t.request('POST', '/batch/v1', {
    as: admin,
    body: {
      requests: [
        { path: '/core/v2/posts', body: { title: 'Bad', status: 'bogus' } },
        { path: '/core/v2/nowhere', body: {} },
        { path: '/core/v2/posts?_fields=id,slug', body: { title: 'Narrow' } },
      ],
    },
  });
  assert.is(response.status, 207);
  const [invalid, missing, narrowed] = response.body.responses;
  assert.is(invalid.status, 400);
  assert.equal(invalid.headers, { Allow: 'GET, POST' });
  assert.is(missing.status, 404);
  assert.equal(missing.headers, []);
  assert.is(narrowed.status, 201);
  assert.equal(Object.keys(narrowed.body).sort(), ['id', 'slug']);
  assert.is(narrowed.body.slug, '');

  const anonymous = await t.request('POST', '/batch/v1', {
    body: { requests: [{ path: '/core/v2/posts', body: { title: 'No' } }] },
  });
  assert.is(anonymous.body.responses[0].status, 401);
  assert.equal(anonymous.body.responses[0].headers, { Allow: 'GET' });
});

test('batch with require-all-validate: the failures are listed without Allow headers', async () => {
  const response = await t.request('POST', '/batch/v1', {
    as: admin,
    body: {
      validation: 'require-all-validate',
      requests: [
        { path: '/core/v2/posts', body: { title: 'Fine' } },
        { path: '/core/v2/posts', body: { status: 'bogus' } },
      ],
    },
  });
  assert.is(response.body.failed, 'validation');
  assert.is(response.body.responses[0], null);
  assert.is(response.body.responses[1].status, 400);
  assert.equal(response.body.responses[1].headers, []);
});

test('the index lists the empty property maps of the batch arguments as []', async () => {
  const index = await t.request('GET', '/');
  const properties = index.body.routes['/batch/v1'].endpoints[0].args.requests.items.properties;
  assert.equal(properties.body.properties, []);
  assert.equal(properties.headers.properties, []);
});

test.run();
