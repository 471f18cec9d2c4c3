/**
 * Input beyond PHP's limits, answered as WordPress answers it, never with a 500: a form variable nested deeper than
 * 64 levels is dropped (the rest of the form is read), a JSON body nested past json_decode's depth is
 * `rest_invalid_json` with json_error_code 1, and the paging Link header stays bounded whatever the query. `_method`
 * in a batch sub-request's path is ignored, as WordPress ignores it there (the sub-request runs with its own method).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { MAX_LINK_HEADER_LENGTH } from '../../src/rest/collection';

const test = suite('input limits');
let t: TestSite;
let admin: TestUser;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  for (const title of ['One', 'Two', 'Three']) {
    const created = await t.request('POST', '/core/v2/posts', { as: admin, body: { title, status: 'publish' } });
    assert.is(created.status, 201);
  }
});
test.after(async () => t.close());

const form = (data: string) => ({ raw: { data, type: 'application/x-www-form-urlencoded' } });

test('a form nested 10,000 levels deep: the deep variable is dropped, the rest read', async () => {
  const deep = `a${'[x]'.repeat(10_000)}=1`;
  const anonymous = await t.request('POST', '/core/v2/posts', form(`title=Deep&${deep}`));
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  const created = await t.request('POST', '/core/v2/posts', { as: admin, ...form(`title=Kept&status=draft&${deep}`) });
  assert.is(created.status, 201);
  assert.is(created.body.title.raw, 'Kept');
  // The same in a query string (as deep as a request line may be) and in a batch sub-request's path.
  const listed = await t.request('GET', `/core/v2/posts?a${'[x]'.repeat(1000)}=1&per_page=1`);
  assert.is(listed.status, 200);
  assert.not.match(listed.headers.get('link') ?? '', /%5Bx%5D/);
  const batch = await t.request('POST', '/batch/v1', {
    as: admin,
    body: { requests: [{ path: `/core/v2/posts?${deep}`, body: { title: 'Batched' } }] },
  });
  assert.equal([batch.status, batch.body.responses[0].status], [207, 201]);
});

test('JSON nested past json_decode depth is rest_invalid_json (code 1); up to it, read', async () => {
  const nested = (containers: number) =>
    `{"title":"x","meta":${'['.repeat(containers - 1)}${']'.repeat(containers - 1)}}`;
  // Signed in, so that the body is read (an anonymous write to this route is refused before its body is).
  const within = await t.request('POST', '/core/v2/posts', {
    as: admin,
    raw: { data: nested(511), type: 'application/json' },
  });
  assert.is(within.status, 201, within.text);
  for (const containers of [512, 100_000]) {
    const deep = await t.request('POST', '/core/v2/posts', {
      as: admin,
      raw: { data: nested(containers), type: 'application/json' },
    });
    assert.is(deep.status, 400, `${containers} levels`);
    assert.equal(deep.body, {
      code: 'rest_invalid_json',
      message: 'Invalid JSON body passed.',
      data: { status: 400, json_error_code: 1, json_error_message: 'Maximum stack depth exceeded' },
    });
  }
  // A syntax error before the depth is reached is still a syntax error.
  const broken = await t.request('POST', '/core/v2/posts', {
    as: admin,
    raw: { data: `{"a":1,,${'['.repeat(600)}`, type: 'application/json' },
  });
  assert.equal([broken.status, broken.body.data.json_error_code], [400, 4]);
});

test('the paging Link header is bounded: a long query leaves it out, a short one keeps it', async () => {
  const short = await t.request('GET', '/core/v2/posts?per_page=1&page=2&_fields=id');
  assert.match(short.headers.get('link') ?? '', /rel="prev".*rel="next"/);
  const fields = Array.from({ length: 1500 }, (_, i) => `f${i}`).join(',');
  assert.ok(fields.length > 5000);
  const long = await t.request('GET', `/core/v2/posts?per_page=1&page=2&_fields=${fields}`);
  assert.is(long.status, 200);
  assert.is(long.headers.get('x-wp-totalpages'), '3');
  const link = long.headers.get('link') ?? '';
  assert.ok(link.length <= MAX_LINK_HEADER_LENGTH, `Link of ${link.length} characters`);
  assert.not.match(link, /rel="(prev|next)"/);
});

test('_method in a batch sub-request path is ignored, as WordPress ignores it there', async () => {
  const post = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Batch target', status: 'publish' },
  });
  const { status, body } = await t.request('POST', '/batch/v1', {
    as: admin,
    body: {
      requests: [{ method: 'POST', path: `/core/v2/posts/${post.body.id}?_method=DELETE`, body: { title: 'Changed' } }],
    },
  });
  assert.is(status, 207);
  assert.is(body.responses[0].status, 200);
  assert.is(body.responses[0].body.title.raw, 'Changed');
  const after = await t.request('GET', `/core/v2/posts/${post.body.id}?context=edit`, { as: admin });
  assert.equal([after.body.status, after.body.title.raw], ['publish', 'Changed']);
});

test.run();
