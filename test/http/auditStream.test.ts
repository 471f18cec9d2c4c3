/**
 * GET /audit/v1/stream: the audit log as a live Server-Sent Events feed, read by a real HTTP client as it arrives.
 * Resuming by position, filters, permissions, bounds, clean-up on disconnect, hostile input, and events appended
 * by a second site sharing the SQLite store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { jsonOf, openSse } from '../support/sse';
import type { SseClient } from '../support/sse';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import type { EventStore, NewEvent } from '../../src/ports/eventStore';
import { REDACTED } from '../../src/resources/audit/log';

/** A store that counts the subscriptions open on it. */
function countingStore(inner: EventStore): { store: EventStore; open(): number } {
  let open = 0;
  const store: EventStore = {
    appendToStream: (streamId, events, options) => inner.appendToStream(streamId, events, options),
    readStream: (streamId, options) => inner.readStream(streamId, options),
    readAll: (options) => inner.readAll(options),
    headPosition: () => inner.headPosition(),
    close: () => inner.close(),
    subscribeToAll(options) {
      const subscription = inner.subscribeToAll(options);
      open++;
      let closed = false;
      return {
        async close() {
          await subscription.close();
          if (!closed) {
            closed = true;
            open--;
          }
        },
      };
    },
  };
  return { store, open: () => open };
}

const probe = (n: number): NewEvent => ({
  type: 'Probe',
  data: { n },
  metadata: { userId: null, requestId: `probe-${n}`, at: new Date(0).toISOString() },
});

/** Waits, within a bound, until `check` holds; returns whether it did. */
async function eventually(check: () => boolean | Promise<boolean>, waitMs = 5000): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

const test = suite('audit stream');
let t: TestSite;
let counted: ReturnType<typeof countingStore>;
let admin: TestUser;
let admin2: TestUser;
let editor: TestUser;
/** Subscriptions open besides the feeds (the projector's). */
let baseline = 0;
const clients: SseClient[] = [];

const auth = (user: TestUser) => ({ authorization: user.auth });
const open = async (query: string, user: TestUser | null = admin, headers: Record<string, string> = {}, root = '') => {
  const client = await openSse(`${t.url}${root}/audit/v1/stream${query}`, { ...(user ? auth(user) : {}), ...headers });
  clients.push(client);
  return client;
};

test.before(async () => {
  counted = countingStore(createMemoryEventStore());
  t = await startTestSite({ store: counted.store, auditStreams: { heartbeatMs: 100, perUser: 2, total: 3 } });
  admin = await t.createUser('admin', 'administrator');
  admin2 = await t.createUser('admin2', 'administrator');
  editor = await t.createUser('editor', 'editor');
  baseline = counted.open();
});
// Each test starts with no feed open.
test.after.each(async () => {
  for (const client of clients.splice(0)) client.close();
  assert.ok(await eventually(() => counted.open() === baseline), 'a feed was left open');
});
test.after(async () => t.close());

test('a client receives a post created after it connected, as the audit log shows it', async () => {
  const client = await open('?stream=content-');
  assert.is(client.status, 200);
  assert.ok(client.headers.get('content-type')?.startsWith('text/event-stream'));
  assert.match(client.headers.get('cache-control') ?? '', /no-cache/);
  assert.is(client.headers.get('content-length'), null);
  const created = await t.request('POST', '/core/v2/posts', {
    as: editor,
    body: { title: 'Streamed', status: 'publish' },
  });
  assert.is(created.status, 201);
  const message = await client.next();
  assert.is(message.event, 'PostCreated');
  const entry = JSON.parse(message.data);
  assert.is(message.id, String(entry.position));
  assert.is(entry.type, 'PostCreated');
  assert.is(entry.stream, `content-${created.body.id}`);
  assert.is(entry.user, editor.id);
  assert.is(entry.request_id, created.headers.get('x-request-id') ?? entry.request_id);
  assert.is(entry.data.post.title, 'Streamed');
  // The same entry /audit/v1/events gives for that position.
  const listed = await t.request('GET', `/audit/v1/events?order=asc&after_position=${entry.position - 1}&per_page=1`, {
    as: admin,
  });
  assert.equal(listed.body[0], entry);
});

test('secrets are redacted in the feed as in the log', async () => {
  const client = await open('?stream=user-');
  const made = await t.request('POST', '/core/v2/users', {
    as: admin,
    body: { username: 'secretive', email: 'secretive@example.test', password: 'plain-text-secret' },
  });
  assert.is(made.status, 201);
  const message = await client.next();
  assert.ok(message.data.includes(REDACTED));
  assert.not.ok(message.data.includes('plain-text-secret'));
  assert.not.ok(/\$argon|\$2[aby]\$|scrypt/.test(message.data));
});

test('a client that disconnects and resumes with Last-Event-ID gets exactly what it missed, in order', async () => {
  const first = await open('');
  await t.site.store.appendToStream('probe-resume', [probe(-1)], { expectedRevision: 'any' });
  const seen = await first.next();
  first.close();
  const missed: number[] = [];
  for (let batch = 0; batch < 5; batch++) {
    const { position } = await t.site.store.appendToStream(
      'probe-resume',
      Array.from({ length: 10 }, (_, i) => probe(batch * 10 + i)),
      { expectedRevision: 'any' },
    );
    for (let i = 9; i >= 0; i--) missed.push(position - i);
  }
  const resumed = await open('', admin, { 'last-event-id': seen.id! });
  const got = await resumed.take(50);
  assert.equal(
    got.map((m) => Number(m.id)),
    missed,
  );
  assert.equal(
    got.map((m) => JSON.parse(m.data).data.n),
    Array.from({ length: 50 }, (_, i) => i),
  );
  // Nothing repeated nor extra: the next message is the next event appended.
  const { position: marker } = await t.site.store.appendToStream('probe-resume', [probe(50)], {
    expectedRevision: 'any',
  });
  assert.is((await resumed.next()).id, String(marker));
});

test('last_event_id and after_position resume as the header does (the header wins)', async () => {
  const head = await t.site.store.headPosition();
  await t.site.store.appendToStream('probe-query', [probe(1), probe(2)], { expectedRevision: 'any' });
  const byQuery = await open(`?last_event_id=${head}&follow=false`);
  assert.equal(
    (await byQuery.rest()).map((m) => Number(m.id)),
    [head + 1, head + 2],
  );
  const byCursor = await open(`?after_position=${head + 1}&follow=false`);
  assert.equal(
    (await byCursor.rest()).map((m) => Number(m.id)),
    [head + 2],
  );
  const headerWins = await open(`?after_position=0&follow=false`, admin, { 'last-event-id': String(head + 1) });
  assert.equal(
    (await headerWins.rest()).map((m) => Number(m.id)),
    [head + 2],
  );
});

test('follow=false replays the log to the head and ends', async () => {
  const head = await t.site.store.headPosition();
  const client = await open('?after_position=0&follow=false');
  const all = await client.rest();
  assert.is(all.length, head);
  assert.equal(
    all.map((m) => Number(m.id)),
    Array.from({ length: head }, (_, i) => i + 1),
  );
});

test('filters by type, stream prefix and user apply to live events', async () => {
  const byUserAndType = await open(`?user[]=${editor.id}&type[]=PostCreated`);
  const byStream = await open('?stream=probe-wanted');
  await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'By someone else' } });
  const mine = await t.request('POST', '/core/v2/posts', { as: editor, body: { title: 'Mine' } });
  await t.request('POST', `/core/v2/posts/${mine.body.id}`, { as: editor, body: { title: 'Mine, updated' } });
  const again = await t.request('POST', '/core/v2/posts', { as: editor, body: { title: 'Mine again' } });
  const [a, b] = await byUserAndType.take(2);
  assert.equal(
    [a!.event, JSON.parse(a!.data).stream, JSON.parse(a!.data).user],
    ['PostCreated', `content-${mine.body.id}`, editor.id],
  );
  assert.equal([b!.event, JSON.parse(b!.data).stream], ['PostCreated', `content-${again.body.id}`]);
  await t.site.store.appendToStream('probe-other', [probe(1)], { expectedRevision: 'any' });
  await t.site.store.appendToStream('probe-wanted-1', [probe(2)], { expectedRevision: 'any' });
  const wanted = await byStream.next();
  assert.equal([JSON.parse(wanted.data).stream, JSON.parse(wanted.data).data.n], ['probe-wanted-1', 2]);
});

test('heartbeats are comment lines; the first thing sent is the reconnection delay', async () => {
  const client = await open('');
  assert.is(await client.nextComment(), 'heartbeat');
  assert.is(client.retry, 2000);
});

test('anonymous callers get 401, other roles 403, as on /audit/v1/events', async () => {
  const anonymous = await jsonOf(`${t.url}/audit/v1/stream`);
  assert.equal([anonymous.status, anonymous.body.code, anonymous.body.data.status], [401, 'rest_forbidden', 401]);
  const refused = await jsonOf(`${t.url}/audit/v1/stream`, auth(editor));
  assert.equal([refused.status, refused.body.code, refused.body.data.status], [403, 'rest_forbidden', 403]);
});

test('streams are bounded per user and in all (429), and a closed one frees its place', async () => {
  const one = await open('');
  const two = await open('');
  assert.equal([one.status, two.status], [200, 200]);
  const third = await jsonOf(`${t.url}/audit/v1/stream`, auth(admin));
  assert.equal([third.status, third.body.code, third.body.data.status], [429, 'rest_too_many_streams', 429]);
  const other = await open('', admin2);
  assert.is(other.status, 200);
  const overall = await jsonOf(`${t.url}/audit/v1/stream`, auth(admin2));
  assert.equal([overall.status, overall.body.code], [429, 'rest_too_many_streams']);
  one.close();
  let reopened: SseClient | null = null;
  const freed = await eventually(async () => {
    const attempt = await openSse(`${t.url}/audit/v1/stream`, auth(admin));
    if (attempt.status === 200) reopened = attempt;
    else await attempt.rest().catch(() => []);
    return attempt.status === 200;
  });
  assert.ok(freed);
  clients.push(reopened!);
});

test('a client that disconnects leaves no subscription behind', async () => {
  const before = counted.open();
  const streams = [await open(''), await open('?after_position=0', admin2)];
  assert.is(counted.open(), before + 2);
  // One is following live, the other replaying (with the server waiting for it to read).
  await t.site.store.appendToStream('probe-cleanup', [probe(1)], { expectedRevision: 'any' });
  await streams[0]!.next();
  for (const client of streams) client.close();
  assert.ok(
    await eventually(() => counted.open() === before),
    `${counted.open()} subscriptions open, ${before} expected`,
  );
});

test('hostile positions and filters answer WordPress-style 400s', async () => {
  const head = await t.site.store.headPosition();
  const cases: [string, Record<string, string>][] = [
    ['', { 'last-event-id': 'abc' }],
    ['', { 'last-event-id': '-1' }],
    ['', { 'last-event-id': '1e3' }],
    ['', { 'last-event-id': '99999999999999999999999' }],
    ['', { 'last-event-id': String(head + 1000) }],
    ['?last_event_id=abc', {}],
    ['?last_event_id=-3', {}],
    ['?after_position=1.5', {}],
    ['?after_position=1e30', {}],
    [`?after_position=${Number.MAX_SAFE_INTEGER}`, {}],
    ['?user=abc', {}],
    ['?type[a][b]=c', {}],
    ['?after=not-a-date', {}],
    ['?stream[]=x', {}],
    ['?follow=maybe', {}],
  ];
  for (const [query, headers] of cases) {
    const answer = await jsonOf(`${t.url}/audit/v1/stream${query}`, { ...auth(admin), ...headers });
    assert.is(
      answer.status,
      400,
      `${query} ${JSON.stringify(headers)}: ${answer.status} ${JSON.stringify(answer.body)}`,
    );
    assert.is(answer.body.code, 'rest_invalid_param', query);
    assert.is(answer.body.data.status, 400);
  }
});

test('served through the /wp-json/ dialect as well', async () => {
  const client = await open('?stream=probe-dialect', admin, {}, '/wp-json');
  assert.is(client.status, 200);
  await t.site.store.appendToStream('probe-dialect', [probe(7)], { expectedRevision: 'any' });
  assert.is(JSON.parse((await client.next()).data).data.n, 7);
});

test('a HEAD request gets the headers and no feed', async () => {
  const before = counted.open();
  const response = await fetch(`${t.url}/audit/v1/stream`, { method: 'HEAD', headers: auth(admin) });
  assert.is(response.status, 200);
  assert.ok(response.headers.get('content-type')?.startsWith('text/event-stream'));
  assert.ok(await eventually(() => counted.open() === before));
});

test.run();

const shared = suite('audit stream across sites sharing a SQLite store');

shared('an event appended through another site sharing the store arrives', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-audit-stream-'));
  const file = path.join(dir, 'events.sqlite');
  const a = await startTestSite({ store: openSqliteEventStore({ file }) });
  let b: TestSite | null = null;
  let client: SseClient | null = null;
  try {
    const boss = await a.createUser('boss', 'administrator');
    b = await startTestSite({ store: openSqliteEventStore({ file }) });
    client = await openSse(`${a.url}/audit/v1/stream?type[]=PostCreated`, auth(boss));
    assert.is(client.status, 200);
    const created = await b.request('POST', '/core/v2/posts', { as: boss, body: { title: 'From the other node' } });
    assert.is(created.status, 201);
    const message = await client.next();
    assert.equal([message.event, JSON.parse(message.data).stream], ['PostCreated', `content-${created.body.id}`]);
  } finally {
    client?.close();
    await b?.close();
    await a.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

shared.run();
