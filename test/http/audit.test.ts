/** GET /audit/v1/events: the global event log for administrators, filtered and paged by a position cursor. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { matches, redact, REDACTED } from '../../src/resources/audit/log';
import type { RecordedEvent } from '../../src/ports/eventStore';

const test = suite('audit log');
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let postId: number;
let startedAt: number;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  startedAt = t.clock.now();
  t.clock.advance(60_000);
  const created = await t.request('POST', '/core/v2/posts', {
    as: editor,
    body: { title: 'Audited', content: 'x', status: 'publish' },
  });
  postId = created.body.id;
  t.clock.advance(60_000);
  await t.request('POST', `/core/v2/posts/${postId}`, { as: admin, body: { title: 'Audited again' } });
});
test.after(async () => t.close());

const restTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** The rel="next" target of a response's Link header, as a path below the API root; null when none. */
function nextLink(headers: Headers): string | null {
  const next = (headers.get('link') ?? '').split(/,\s*(?=<)/).find((part) => part.endsWith('rel="next"'));
  return next ? next.replace(/^<([^>]+)>.*$/, '$1').slice(t.url.length) : null;
}

test('administrators only: anonymous 401, others 403 rest_forbidden', async () => {
  const anonymous = await t.request('GET', '/audit/v1/events');
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_forbidden']);
  const refused = await t.request('GET', '/audit/v1/events', { as: editor });
  assert.equal([refused.status, refused.body.code], [403, 'rest_forbidden']);
});

test('newest first, each entry with position, stream, revision, type, time, user, request and data', async () => {
  const { status, body, headers } = await t.request('GET', '/audit/v1/events?per_page=100', { as: admin });
  assert.is(status, 200);
  const positions = body.map((e: any) => e.position);
  assert.equal(
    positions,
    [...positions].sort((a: number, b: number) => b - a),
  );
  const updated = body.find((e: any) => e.type === 'PostUpdated');
  assert.equal(Object.keys(updated).sort(), [
    'data',
    'id',
    'position',
    'request_id',
    'revision',
    'stream',
    'time',
    'type',
    'user',
  ]);
  assert.is(updated.stream, `content-${postId}`);
  assert.is(updated.revision, 1);
  assert.is(updated.user, admin.id);
  assert.is(updated.time, new Date(startedAt + 120_000).toISOString());
  assert.equal(updated.data.changes.title, 'Audited again');
  assert.is(nextLink(headers), null, 'everything fits: no next page');
  assert.is(headers.get('x-wp-total'), null, 'no total: counting would scan the whole log');
});

test('password hashes never leave the log', async () => {
  const { body } = await t.request('GET', '/audit/v1/events?per_page=100&stream=user-', { as: admin });
  const created = body.filter((e: any) => e.type === 'ApplicationPasswordCreated');
  assert.ok(created.length >= 2);
  for (const entry of created) assert.is(entry.data.passwordHash, REDACTED);
  assert.not.match(JSON.stringify(body), /\$[0-9a-z]+\$|[0-9a-f]{64}/, 'no hash-looking value at all');
});

test('filters: user (0 for the system), type list, stream prefix, request, time range', async () => {
  const byEditor = (await t.request('GET', `/audit/v1/events?per_page=100&user=${editor.id}`, { as: admin })).body;
  assert.ok(byEditor.length > 0);
  assert.ok(byEditor.every((e: any) => e.user === editor.id));
  assert.ok(byEditor.some((e: any) => e.type === 'PostCreated'));

  const system = (await t.request('GET', '/audit/v1/events?per_page=100&user=0', { as: admin })).body;
  assert.ok(system.length > 0 && system.every((e: any) => e.user === null));

  const types = (await t.request('GET', '/audit/v1/events?per_page=100&type=PostCreated,PostRevised', { as: admin }))
    .body;
  assert.equal([...new Set(types.map((e: any) => e.type))].sort(), ['PostCreated', 'PostRevised']);

  const stream = (await t.request('GET', `/audit/v1/events?per_page=100&stream=content-${postId}`, { as: admin })).body;
  assert.equal(
    stream.map((e: any) => e.revision),
    [2, 1, 0],
  );

  const request = stream[0].request_id;
  const sameRequest = (
    await t.request('GET', `/audit/v1/events?per_page=100&request_id=${encodeURIComponent(request)}`, { as: admin })
  ).body;
  assert.ok(
    sameRequest.some((e: any) => e.type === 'PostUpdated') && sameRequest.some((e: any) => e.type === 'PostRevised'),
  );
  assert.ok(sameRequest.every((e: any) => e.request_id === request));

  const window = (
    await t.request(
      'GET',
      `/audit/v1/events?per_page=100&after=${restTime(startedAt + 30_000)}&before=${restTime(startedAt + 90_000)}`,
      { as: admin },
    )
  ).body;
  assert.ok(window.length > 0);
  assert.ok(window.every((e: any) => e.time === new Date(startedAt + 60_000).toISOString()));
  assert.ok(window.some((e: any) => e.type === 'PostCreated'));

  const invalid = await t.request('GET', '/audit/v1/events?after=soon', { as: admin });
  assert.equal([invalid.status, invalid.body.code], [400, 'rest_invalid_param']);
});

test('paging by cursor: Link rel="next" carries before_position; pages neither overlap nor skip', async () => {
  const seen: number[] = [];
  let url: string | null =
    '/audit/v1/events?per_page=3&type[]=NameClaimed&type[]=PostCreated&type[]=PostUpdated&type[]=PostRevised&type[]=UserRegistered&type[]=ApplicationPasswordCreated&type[]=IdBlockReserved';
  let pages = 0;
  while (url) {
    const response = await t.request('GET', url, { as: admin });
    assert.is(response.status, 200);
    assert.ok(response.body.length <= 3);
    seen.push(...response.body.map((e: any) => e.position));
    url = nextLink(response.headers);
    if (url) assert.match(url, /before_position=\d+/);
    pages++;
  }
  assert.ok(pages > 2);
  const expected = (
    await t.request(
      'GET',
      '/audit/v1/events?per_page=100&type=NameClaimed,PostCreated,PostUpdated,PostRevised,UserRegistered,ApplicationPasswordCreated,IdBlockReserved',
      { as: admin },
    )
  ).body.map((e: any) => e.position);
  assert.equal(seen, expected);
  assert.is(new Set(seen).size, seen.length, 'no event twice');
});

test('oldest first with order=asc and the after_position cursor', async () => {
  const first = await t.request('GET', '/audit/v1/events?order=asc&per_page=2', { as: admin });
  assert.equal(
    first.body.map((e: any) => e.position),
    [1, 2],
  );
  assert.match(nextLink(first.headers)!, /after_position=2/);
  const second = await t.request('GET', '/audit/v1/events?order=asc&per_page=2&after_position=2', { as: admin });
  assert.equal(
    second.body.map((e: any) => e.position),
    [3, 4],
  );
  const below = await t.request('GET', '/audit/v1/events?per_page=2&before_position=3', { as: admin });
  assert.equal(
    below.body.map((e: any) => e.position),
    [2, 1],
  );
  assert.is(nextLink(below.headers), null);
});

test('the namespace index lists the routes', async () => {
  const { body } = await t.request('GET', '/audit/v1');
  assert.equal(Object.keys(body.routes), ['/audit/v1', '/audit/v1/events', '/audit/v1/stream']);
});

test('redaction and matching are pure rules', () => {
  assert.equal(
    redact({ passwordHash: 'h', nested: [{ tokenHash: 'x', secret: 's', name: 'n' }], none: { passwordHash: null } }),
    {
      passwordHash: REDACTED,
      nested: [{ tokenHash: REDACTED, secret: REDACTED, name: 'n' }],
      none: { passwordHash: null },
    },
  );
  const event = {
    streamId: 'content-12',
    type: 'PostUpdated',
    metadata: { userId: null, requestId: 'r1', at: '2024-05-01T12:00:00.600Z' },
  } as RecordedEvent;
  const noon = Date.parse('2024-05-01T12:00:00Z');
  assert.ok(matches(event, { users: [0], types: ['PostUpdated'], streamPrefix: 'content-1', requestId: 'r1' }));
  assert.not.ok(matches(event, { users: [1] }));
  assert.not.ok(matches(event, { streamPrefix: 'user-' }));
  assert.ok(matches(event, { after: noon - 1000, before: noon + 1000 }));
  assert.not.ok(matches(event, { after: noon }), 'after is exclusive, to the second');
  assert.not.ok(matches(event, { before: noon }), 'before is exclusive, to the second');
});

test.run();
