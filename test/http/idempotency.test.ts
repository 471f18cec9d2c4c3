/**
 * Safe retries with `Idempotency-Key` (src/resources/idempotency/guard.ts): a retry with the same key and request gets
 * the first answer and appends nothing; another request under the key is refused 422; a retry while the first runs
 * 409. The key's claim and answer are in the log, so a retry on another node, after the first node lost its answer,
 * or after a failure whose outcome was unknown, still leaves one post. Hostile keys are refused with 400.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import type { EventStore, RecordedEvent } from '../../src/ports/eventStore';
import { restError } from '../../src/rest/errors';
import { MAX_KEY_LENGTH, parseIdempotencyKey } from '../../src/resources/idempotency/header';
import { DEFAULT_IN_FLIGHT_MS } from '../../src/resources/idempotency/guard';

const test = suite('Idempotency-Key: safe retries');

/** The events of a type in the log whose metadata carries `key`. */
async function eventsWithKey(store: EventStore, type: string, key: string): Promise<RecordedEvent[]> {
  return (await store.readAll()).filter((event) => event.type === type && event.metadata.idempotencyKey === key);
}

const postsTitled = async (t: TestSite, as: TestUser, title: string) =>
  (
    (await t.request('GET', `/core/v2/posts?per_page=100&status=any&context=edit`, { as })).body as {
      title: { raw: string };
    }[]
  ).filter((post) => post.title.raw === title);

async function site(store: EventStore = createMemoryEventStore()) {
  const t = await startTestSite({ store });
  const admin = await t.createUser('admin', 'administrator');
  // The first authenticated request notes the password's use (once a day): done here, so heads compare exactly.
  await t.request('GET', '/core/v2/posts', { as: admin });
  return { t, admin, store };
}

/** Sends a request with exactly these header lines (names and bytes as given), for headers fetch would refuse. */
function rawRequest(
  url: string,
  method: string,
  lines: [string, string | Buffer][],
  body: string,
): Promise<{ status: number; body: any }> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, path: pathname, method, setHost: true });
    const values = new Map<string, string[]>();
    for (const [name, value] of lines)
      values.set(name, [...(values.get(name) ?? []), typeof value === 'string' ? value : value.toString('latin1')]);
    for (const [name, all] of values) request.setHeader(name, all.length === 1 ? all[0]! : all);
    request.setHeader('content-length', Buffer.byteLength(body));
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: text === '' ? null : JSON.parse(text) }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

test('a create retried with the same key answers the first answer, byte for byte, and appends nothing', async () => {
  const { t, admin, store } = await site();
  try {
    const body = { title: 'Once', content: 'only once', status: 'publish' };
    const headers = { 'Idempotency-Key': '"create-once-1"' };
    const first = await t.request('POST', '/core/v2/posts', { as: admin, body, headers });
    assert.is(first.status, 201, first.text);
    assert.is(first.headers.get('idempotent-replayed'), null);
    const head = await store.headPosition();
    t.clock.advance(30_000);
    const again = await t.request('POST', '/core/v2/posts', { as: admin, body, headers });
    assert.is(again.status, 201);
    assert.is(again.text, first.text, 'the same bytes');
    assert.is(again.headers.get('location'), first.headers.get('location'));
    assert.is(again.headers.get('idempotent-replayed'), 'true');
    assert.is(await store.headPosition(), head, 'the retry appended nothing');
    assert.is((await postsTitled(t, admin, 'Once')).length, 1);
    // The key is kept with the events of the request that used it.
    const [created] = await eventsWithKey(store, 'PostCreated', 'create-once-1');
    assert.is(created?.data && (created.data as { id: number }).id, first.body.id);
    // The same key sent bare (as many clients send a UUID) is the same key.
    const bare = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body,
      headers: { 'Idempotency-Key': 'create-once-1' },
    });
    assert.is(bare.text, first.text);
  } finally {
    await t.close();
  }
});

test('the same key with another request answers 422 and changes nothing; another user has keys of their own', async () => {
  const { t, admin, store } = await site();
  try {
    const editor = await t.createUser('editor', 'editor');
    await t.request('GET', '/core/v2/posts', { as: editor });
    const headers = { 'Idempotency-Key': 'shared-key' };
    const first = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'First use' }, headers });
    assert.is(first.status, 201);
    const head = await store.headPosition();
    const other = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Another payload' }, headers });
    assert.is(other.status, 422);
    assert.is(other.body.code, 'rest_idempotency_key_reused');
    assert.equal(other.body.data, { status: 422 });
    const elsewhere = await t.request('POST', `/core/v2/posts/${first.body.id}`, {
      as: admin,
      body: { title: 'First use' },
      headers,
    });
    assert.is(elsewhere.status, 422, 'another route is another request');
    assert.is(await store.headPosition(), head);
    const theirs = await t.request('POST', '/core/v2/posts', { as: editor, body: { title: 'First use' }, headers });
    assert.is(theirs.status, 201);
    assert.is.not(theirs.body.id, first.body.id, "another user's key is another key");
  } finally {
    await t.close();
  }
});

test('updates, deletions and refusals are answered as first given; an expired key starts anew', async () => {
  const { t, admin, store } = await site();
  try {
    const post = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'To change', status: 'publish' },
    });
    const update = { 'Idempotency-Key': 'update-1' };
    const updated = await t.request('POST', `/core/v2/posts/${post.body.id}`, {
      as: admin,
      body: { title: 'Changed' },
      headers: update,
    });
    assert.is(updated.status, 200);
    await t.request('POST', `/core/v2/posts/${post.body.id}`, { as: admin, body: { title: 'Changed again' } });
    const replayed = await t.request('POST', `/core/v2/posts/${post.body.id}`, {
      as: admin,
      body: { title: 'Changed' },
      headers: update,
    });
    assert.equal(
      [replayed.status, replayed.body.title.raw],
      [200, 'Changed'],
      'the first answer, not the post as it is now',
    );
    assert.is(
      (await t.request('GET', `/core/v2/posts/${post.body.id}?context=edit`, { as: admin })).body.title.raw,
      'Changed again',
      'and nothing was applied again',
    );
    // A permanent deletion retried: the first answer, though the post is gone.
    const remove = { 'Idempotency-Key': 'delete-1' };
    const deleted = await t.request('DELETE', `/core/v2/posts/${post.body.id}?force=true`, {
      as: admin,
      headers: remove,
    });
    assert.is(deleted.status, 200);
    const deletedAgain = await t.request('DELETE', `/core/v2/posts/${post.body.id}?force=true`, {
      as: admin,
      headers: remove,
    });
    assert.equal([deletedAgain.status, deletedAgain.text], [200, deleted.text]);
    // A refusal is an answer too: the retry gets it again without running.
    const refused = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'Bad', status: 'no-such-status' },
      headers: { 'Idempotency-Key': 'refused-1' },
    });
    assert.is(refused.status, 400);
    const head = await store.headPosition();
    const refusedAgain = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'Bad', status: 'no-such-status' },
      headers: { 'Idempotency-Key': 'refused-1' },
    });
    assert.equal([refusedAgain.status, refusedAgain.text], [400, refused.text]);
    assert.is(await store.headPosition(), head);
    // A day later the key is free again: another request under it runs.
    const key = { 'Idempotency-Key': 'expiring' };
    assert.is(
      (await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Day one' }, headers: key })).status,
      201,
    );
    t.clock.advance(24 * 60 * 60 * 1000 + 1000);
    const dayTwo = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Day two' }, headers: key });
    assert.equal([dayTwo.status, dayTwo.headers.get('idempotent-replayed')], [201, null]);
  } finally {
    await t.close();
  }
});

test('hostile keys are refused with 400 before anything runs: too long, empty, malformed, non-ASCII, several', async () => {
  const { t, admin, store } = await site();
  try {
    const head = await store.headPosition();
    const send = (key: string | Buffer, ...more: string[]) =>
      rawRequest(
        `${t.url}/core/v2/posts`,
        'POST',
        [
          ['authorization', admin.auth],
          ['content-type', 'application/json'],
          ['idempotency-key', key],
          ...more.map((m) => ['idempotency-key', m] as [string, string]),
        ],
        JSON.stringify({ title: 'Hostile' }),
      );
    const refusals = [
      'x'.repeat(MAX_KEY_LENGTH + 1),
      `"${'y'.repeat(MAX_KEY_LENGTH + 1)}"`,
      'k'.repeat(64 * 1024),
      '""',
      '"unterminated',
      '"bad \\x escape"',
      'two words',
      'with,comma',
      Buffer.from('caf\u00e9', 'latin1'),
      Buffer.from('"caf\u00e9"', 'latin1'),
      Buffer.from('日本', 'utf8'),
    ];
    for (const key of refusals) {
      const answer = await send(key);
      // A 64 KiB header line is over node's header limit: refused by the HTTP parser (431) before the API.
      if (typeof key === 'string' && key.length > 16 * 1024)
        assert.ok(answer.status === 431 || answer.status === 400, `huge key: ${answer.status}`);
      else {
        assert.is(
          answer.status,
          400,
          `${JSON.stringify(String(key))}: ${answer.status} ${JSON.stringify(answer.body)}`,
        );
        assert.is(answer.body.code, 'rest_invalid_idempotency_key');
        assert.equal(answer.body.data, { status: 400 });
      }
    }
    const several = await send('"one"', '"two"');
    assert.equal([several.status, several.body.code], [400, 'rest_invalid_idempotency_key']);
    assert.is(await store.headPosition(), head, 'no refused key appended anything');
    assert.is((await postsTitled(t, admin, 'Hostile')).length, 0);
    // The longest key allowed, with every printable character and escapes, works and replays.
    const longest = `"${'\\"\\\\ !#$%&\'()*+,-./:;<=>?@[]^_`{|}~'.padEnd(MAX_KEY_LENGTH + 2, 'z')}"`;
    assert.is((parseIdempotencyKey(longest) as { key: string }).key.length, MAX_KEY_LENGTH);
    const first = await send(longest);
    assert.is(first.status, 201);
    const again = await send(longest);
    assert.equal(again, first);
  } finally {
    await t.close();
  }
});

test('two hundred keys in a row each create once, and their retries answer each its own post', async () => {
  const { t, admin, store } = await site();
  try {
    const ids: number[] = [];
    for (let i = 0; i < 200; i++) {
      const created = await t.request('POST', '/core/v2/posts', {
        as: admin,
        body: { title: `Many ${i}` },
        headers: { 'Idempotency-Key': `many-${i}` },
      });
      assert.is(created.status, 201);
      ids.push(created.body.id);
    }
    const head = await store.headPosition();
    for (let i = 199; i >= 0; i -= 7) {
      const again = await t.request('POST', '/core/v2/posts', {
        as: admin,
        body: { title: `Many ${i}` },
        headers: { 'Idempotency-Key': `many-${i}` },
      });
      assert.is(again.body.id, ids[i]);
    }
    assert.is(await store.headPosition(), head);
    assert.is(new Set(ids).size, 200);
  } finally {
    await t.close();
  }
});

test('concurrent requests with one key: one post; the others are told it is in flight or get its answer', async () => {
  const { t, admin, store } = await site();
  try {
    const body = { title: 'Raced', status: 'publish' };
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.request('POST', '/core/v2/posts', { as: admin, body, headers: { 'Idempotency-Key': 'race' } }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.ok(
      statuses.every((status) => status === 201 || status === 409),
      statuses.join(),
    );
    assert.ok(statuses.includes(201));
    for (const answer of answers.filter((a) => a.status === 409)) {
      assert.is(answer.body.code, 'rest_idempotency_key_in_flight');
      assert.is(answer.headers.get('retry-after'), '1');
    }
    assert.is(new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id)).size, 1);
    assert.is((await eventsWithKey(store, 'PostCreated', 'race')).length, 1);
    const after = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body,
      headers: { 'Idempotency-Key': 'race' },
    });
    assert.is(after.status, 201);
    assert.is((await postsTitled(t, admin, 'Raced')).length, 1);
  } finally {
    await t.close();
  }
});

test('keyed requests served at once under one X-Request-Id each keep their own key', async () => {
  const { t, admin, store } = await site();
  try {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.request('POST', '/core/v2/posts', {
          as: admin,
          body: { title: `Same id ${i}` },
          headers: { 'Idempotency-Key': `same-id-${i}`, 'X-Request-Id': 'one-id' },
        }),
      ),
    );
    assert.ok(answers.every((answer) => answer.status === 201));
    for (const [i, answer] of answers.entries()) {
      const created = await eventsWithKey(store, 'PostCreated', `same-id-${i}`);
      assert.equal(
        created.map((event) => (event.data as { id: number }).id),
        [answer.body.id],
        `key ${i}`,
      );
    }
    const again = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'Same id 3' },
      headers: { 'Idempotency-Key': 'same-id-3', 'X-Request-Id': 'one-id' },
    });
    assert.is(again.body.id, answers[3]!.body.id);
  } finally {
    await t.close();
  }
});

/** A store whose appends of the given kind fail: after the append landed (outcome unknown to the writer) or before. */
function failing(
  store: EventStore,
  when: (streamId: string, type: string) => 'after' | 'before' | null,
  error: () => Error,
): EventStore & { armed: boolean } {
  const wrapped = {
    ...store,
    armed: true,
    async appendToStream(
      streamId: string,
      events: Parameters<EventStore['appendToStream']>[1],
      options: Parameters<EventStore['appendToStream']>[2],
    ) {
      const fail = wrapped.armed ? when(streamId, events[0]!.type) : null;
      if (fail === 'before') throw error();
      const result = await store.appendToStream(streamId, events, options);
      if (fail === 'after') throw error();
      return result;
    },
    close: async () => {},
  };
  return wrapped;
}

test('a create whose append landed but answered 503 (outcome unknown): the retry answers the post it made; one post', async () => {
  const shared = createMemoryEventStore();
  const store = failing(
    shared,
    (_streamId, type) => (type === 'PostCreated' ? 'after' : null),
    () => restError('rest_store_unavailable', 'The event store did not answer in time.', 503),
  );
  const { t, admin } = await site(store);
  try {
    const body = { title: 'Unknown outcome', content: 'made once', status: 'publish' };
    const headers = { 'Idempotency-Key': '"after-503"' };
    const failed = await t.request('POST', '/core/v2/posts', { as: admin, body, headers });
    assert.is(failed.status, 503, failed.text);
    store.armed = false;
    const retried = await t.request('POST', '/core/v2/posts', { as: admin, body, headers });
    assert.is(retried.status, 201, retried.text);
    assert.is(retried.headers.get('idempotent-replayed'), 'true');
    assert.is(retried.body.title.raw, 'Unknown outcome');
    assert.is(retried.headers.get('location'), `${t.url}/core/v2/posts/${retried.body.id}`);
    const posts = await postsTitled(t, admin, 'Unknown outcome');
    assert.equal(
      posts.map((post: any) => post.id),
      [retried.body.id],
      'one post',
    );
    const again = await t.request('POST', '/core/v2/posts', { as: admin, body, headers });
    assert.is(again.text, retried.text, 'the made-again answer is kept for later retries');
  } finally {
    await t.close();
    await shared.close();
  }
});

test('a create that failed before appending anything runs again on retry: one post', async () => {
  const shared = createMemoryEventStore();
  const store = failing(
    shared,
    (_streamId, type) => (type === 'PostCreated' ? 'before' : null),
    () => new Error('connection reset'),
  );
  const { t, admin } = await site(store);
  try {
    const body = { title: 'Failed first', status: 'publish' };
    const headers = { 'Idempotency-Key': 'before-append' };
    const failed = await t.request('POST', '/core/v2/posts', { as: admin, body, headers });
    assert.ok(failed.status >= 500, failed.text);
    store.armed = false;
    // The request ended with an append of unknown outcome: while it might still land, a retry is told to come back;
    // once the in-flight window is over with nothing under the key in the log, the retry runs anew.
    const early = await t.request('POST', '/core/v2/posts', { as: admin, body, headers });
    assert.equal([early.status, early.body.code], [409, 'rest_idempotency_key_in_flight']);
    t.clock.advance(DEFAULT_IN_FLIGHT_MS + 1000);
    const retried = await t.request('POST', '/core/v2/posts', { as: admin, body, headers });
    assert.is(retried.status, 201, retried.text);
    assert.is((await postsTitled(t, admin, 'Failed first')).length, 1);
  } finally {
    await t.close();
    await shared.close();
  }
});

test('a retry on another node after the first node lost its answer: 409 while it may still run, then the first answer made again', async () => {
  const shared = createMemoryEventStore();
  // The first node appends the post, then dies before recording its answer (its recording append never lands).
  const first = failing(
    shared,
    (_streamId, type) => (type === 'IdempotentResponseRecorded' ? 'before' : null),
    () => new Error('process died'),
  );
  const a = await site(first);
  const b = await startTestSite({ store: { ...shared, close: async () => {} } });
  try {
    const body = { title: 'Lost answer', status: 'publish' };
    const headers = { 'Idempotency-Key': 'lost-answer' };
    const original = await a.t.request('POST', '/core/v2/posts', { as: a.admin, body, headers });
    assert.is(original.status, 201);
    b.clock.set(a.t.clock.now());
    const early = await b.request('POST', '/core/v2/posts', { as: a.admin, body, headers });
    assert.equal([early.status, early.body.code], [409, 'rest_idempotency_key_in_flight']);
    b.clock.advance(DEFAULT_IN_FLIGHT_MS + 1000);
    const later = await b.request('POST', '/core/v2/posts', { as: a.admin, body, headers });
    assert.is(later.status, 201, later.text);
    assert.is(later.body.id, original.body.id);
    assert.is(later.body.title.raw, 'Lost answer');
    assert.is((await eventsWithKey(shared, 'PostCreated', 'lost-answer')).length, 1);
    assert.is((await postsTitled(b, a.admin, 'Lost answer')).length, 1);
  } finally {
    await a.t.close();
    await b.close();
    await shared.close();
  }
});

test('batch sub-requests with keys of their own are carried out once; a batch with a key replays whole', async () => {
  const { t, admin, store } = await site();
  try {
    const requests = [
      {
        method: 'POST',
        path: '/core/v2/posts',
        body: { title: 'Batched A' },
        headers: { 'Idempotency-Key': 'batch-a' },
      },
      {
        method: 'POST',
        path: '/core/v2/posts',
        body: { title: 'Batched B' },
        headers: { 'Idempotency-Key': 'batch-b' },
      },
      { method: 'POST', path: '/core/v2/posts', body: { title: 'Batched C' } },
    ];
    const first = await t.request('POST', '/batch/v1', { as: admin, body: { requests } });
    assert.is(first.status, 207, first.text);
    const ids = first.body.responses.map((r: any) => r.body.id);
    const second = await t.request('POST', '/batch/v1', { as: admin, body: { requests } });
    const again = second.body.responses.map((r: any) => r.body.id);
    assert.equal(again.slice(0, 2), ids.slice(0, 2), 'the keyed sub-requests answered their first answers');
    assert.is.not(again[2], ids[2], 'the one without a key ran again');
    assert.equal(second.body.responses[0].body, first.body.responses[0].body);
    assert.equal(second.body.responses[0].headers, {
      ...first.body.responses[0].headers,
      'Idempotent-Replayed': 'true',
    });
    assert.is((await postsTitled(t, admin, 'Batched A')).length, 1);
    assert.is((await postsTitled(t, admin, 'Batched C')).length, 2);
    const reused = await t.request('POST', '/batch/v1', {
      as: admin,
      body: { requests: [{ ...requests[0], body: { title: 'Other' } }] },
    });
    assert.equal(
      [reused.body.responses[0].status, reused.body.responses[0].body.code],
      [422, 'rest_idempotency_key_reused'],
    );
    // The batch itself under a key: the whole answer again, nothing run.
    const whole = { 'Idempotency-Key': 'whole-batch' };
    const batch = { requests: [{ method: 'POST', path: '/core/v2/posts', body: { title: 'Whole batch' } }] };
    const once = await t.request('POST', '/batch/v1', { as: admin, body: batch, headers: whole });
    const head = await store.headPosition();
    const twice = await t.request('POST', '/batch/v1', { as: admin, body: batch, headers: whole });
    assert.equal([twice.status, twice.text], [207, once.text]);
    assert.is(await store.headPosition(), head);
  } finally {
    await t.close();
  }
});

test('keys are not honoured for anonymous callers, nor where the answer holds a secret shown once', async () => {
  const { t, admin } = await site();
  try {
    const anonymous = await t.request('POST', '/core/v2/posts', {
      body: { title: 'x' },
      headers: { 'Idempotency-Key': 'anon' },
    });
    assert.is(anonymous.status, 401);
    const key = { 'Idempotency-Key': 'new-password' };
    const one = await t.request('POST', `/core/v2/users/${admin.id}/application-passwords`, {
      as: admin,
      body: { name: 'app' },
      headers: key,
    });
    // Another request under the same key runs too (no 422): the key is not looked at here.
    const two = await t.request('POST', `/core/v2/users/${admin.id}/application-passwords`, {
      as: admin,
      body: { name: 'app 2' },
      headers: key,
    });
    assert.equal([one.status, two.status], [201, 201], one.text + two.text);
    assert.is.not(one.body.uuid, two.body.uuid, 'each request made its own password');
    assert.is(two.headers.get('idempotent-replayed'), null);
  } finally {
    await t.close();
  }
});

test.run();
