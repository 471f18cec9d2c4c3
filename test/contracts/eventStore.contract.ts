/**
 * The behaviour every EventStore adapter must have. An adapter's test file calls `eventStoreContract` with a
 * factory that returns a new, empty store for each test, and a cleanup that disposes of it.
 *
 * Positions are only compared, never computed: EventStoreDB's are not contiguous.
 * Event ids are UUIDs because EventStoreDB accepts nothing else.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
} from '../../src/ports/eventStore';

interface Context {
  store: EventStore;
  cleanup(): Promise<void>;
}

const metadata: EventMetadata = { userId: 7, requestId: 'req-1', at: '2024-05-01T12:00:00.000Z' };
const event = (type: string, data: unknown = {}, id?: string): NewEvent =>
  id ? { type, data, metadata, id } : { type, data, metadata };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Long enough for a polling adapter to have delivered anything it was going to deliver. */
const QUIET_PERIOD_MS = 250;

async function eventually(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.unreachable(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function assertConflict(
  attempt: Promise<unknown>,
  expected: { streamId: string; expected: ExpectedRevision; actual: number | 'no_stream' },
  message?: string,
): Promise<void> {
  let failure: unknown;
  try {
    await attempt;
  } catch (error) {
    failure = error;
  }
  assert.instance(
    failure,
    WrongExpectedRevisionError,
    message ?? 'the append should fail with WrongExpectedRevisionError',
  );
  const { streamId, expected: expectedRevision, actual } = failure as WrongExpectedRevisionError;
  assert.equal({ streamId, expected: expectedRevision, actual }, expected, message);
}

/** Subscribes and records everything the subscription reports. */
function record(store: EventStore, options: Partial<SubscribeToAllOptions> = {}) {
  const seen = {
    batches: [] as RecordedEvent[][],
    events: [] as RecordedEvent[],
    caughtUpCalls: 0,
    eventsWhenCaughtUp: -1,
    errors: [] as unknown[],
    subscription: undefined as unknown as Subscription,
  };
  seen.subscription = store.subscribeToAll({
    ...options,
    async onEvents(events) {
      seen.batches.push(events);
      seen.events.push(...events);
      await options.onEvents?.(events);
    },
    onCaughtUp() {
      seen.caughtUpCalls += 1;
      if (seen.eventsWhenCaughtUp === -1) seen.eventsWhenCaughtUp = seen.events.length;
    },
    onError: (error) => seen.errors.push(error),
  });
  return seen;
}

const summary = (events: RecordedEvent[]) =>
  events.map(({ streamId, revision, position, type }) => ({ streamId, revision, position, type }));

export function eventStoreContract(name: string, factory: () => Promise<Context>): void {
  const test = suite<Context>(`EventStore contract: ${name}`, {} as Context);

  test.before.each(async (context) => {
    Object.assign(context, await factory());
  });
  test.after.each(async (context) => {
    await context.cleanup();
  });

  // --- expected revision ---

  test('no_stream: succeeds on an absent stream, conflicts once it exists', async ({ store }) => {
    const result = await store.appendToStream('post-1', [event('Created'), event('Titled')], {
      expectedRevision: 'no_stream',
    });
    assert.is(result.nextExpectedRevision, 1);
    await assertConflict(store.appendToStream('post-1', [event('Created')], { expectedRevision: 'no_stream' }), {
      streamId: 'post-1',
      expected: 'no_stream',
      actual: 1,
    });
    assert.is((await store.readStream('post-1')).length, 2, 'a rejected append writes nothing');
  });

  test('stream_exists: conflicts on an absent stream, succeeds at any revision', async ({ store }) => {
    await assertConflict(store.appendToStream('post-1', [event('Titled')], { expectedRevision: 'stream_exists' }), {
      streamId: 'post-1',
      expected: 'stream_exists',
      actual: 'no_stream',
    });
    assert.equal(await store.readStream('post-1'), [], 'a rejected append writes nothing');
    await store.appendToStream('post-1', [event('Created'), event('Titled')], { expectedRevision: 'no_stream' });
    const result = await store.appendToStream('post-1', [event('Titled')], { expectedRevision: 'stream_exists' });
    assert.is(result.nextExpectedRevision, 2);
  });

  test('any: succeeds whether or not the stream exists', async ({ store }) => {
    assert.is(
      (await store.appendToStream('post-1', [event('Created')], { expectedRevision: 'any' })).nextExpectedRevision,
      0,
    );
    assert.is(
      (await store.appendToStream('post-1', [event('Titled')], { expectedRevision: 'any' })).nextExpectedRevision,
      1,
    );
  });

  test('a revision number: succeeds only when it is the last revision', async ({ store }) => {
    await assertConflict(store.appendToStream('post-1', [event('Created')], { expectedRevision: 0 }), {
      streamId: 'post-1',
      expected: 0,
      actual: 'no_stream',
    });
    await store.appendToStream('post-1', [event('Created'), event('Titled'), event('Published')], {
      expectedRevision: 'no_stream',
    });
    await assertConflict(store.appendToStream('post-1', [event('Titled')], { expectedRevision: 1 }), {
      streamId: 'post-1',
      expected: 1,
      actual: 2,
    });
    await assertConflict(store.appendToStream('post-1', [event('Titled')], { expectedRevision: 3 }), {
      streamId: 'post-1',
      expected: 3,
      actual: 2,
    });
    assert.is((await store.readStream('post-1')).length, 3, 'rejected appends write nothing');
    const result = await store.appendToStream('post-1', [event('Titled')], { expectedRevision: 2 });
    assert.is(result.nextExpectedRevision, 3);
  });

  // --- revisions and positions ---

  test('revisions are 0-based and contiguous across appends', async ({ store }) => {
    let result = await store.appendToStream('post-1', [event('A')], { expectedRevision: 'no_stream' });
    result = await store.appendToStream('post-1', [event('B'), event('C'), event('D')], {
      expectedRevision: result.nextExpectedRevision,
    });
    result = await store.appendToStream('post-1', [event('E')], { expectedRevision: result.nextExpectedRevision });
    assert.is(result.nextExpectedRevision, 4);
    const stream = await store.readStream('post-1');
    assert.equal(
      stream.map((e) => [e.revision, e.type]),
      [
        [0, 'A'],
        [1, 'B'],
        [2, 'C'],
        [3, 'D'],
        [4, 'E'],
      ],
    );
    assert.is(result.position, stream[4]!.position, "the result reports the last event's position");
  });

  test('global positions strictly increase across streams in commit order', async ({ store }) => {
    const results = [
      await store.appendToStream('post-1', [event('A1')], { expectedRevision: 'any' }),
      await store.appendToStream('user-1', [event('B1'), event('B2')], { expectedRevision: 'any' }),
      await store.appendToStream('post-1', [event('A2')], { expectedRevision: 'any' }),
      await store.appendToStream('post-2', [event('C1')], { expectedRevision: 'any' }),
    ];
    const all = await store.readAll();
    assert.equal(
      all.map((e) => e.type),
      ['A1', 'B1', 'B2', 'A2', 'C1'],
    );
    all.slice(1).forEach((e, i) => {
      assert.ok(e.position > all[i]!.position, `position ${e.position} follows ${all[i]!.position}`);
    });
    assert.ok(all[0]!.position >= 1, 'positions are 1-based');
    assert.equal(
      results.map((r) => r.position),
      [all[0]!.position, all[2]!.position, all[3]!.position, all[4]!.position],
    );
    const post = await store.readStream('post-1');
    assert.equal(
      post.map((e) => e.position),
      [all[0]!.position, all[3]!.position],
      'a stream read reports global positions',
    );
  });

  // --- reads ---

  test('readStream reads forwards and backwards from a revision, up to maxCount', async ({ store }) => {
    for (let i = 0; i < 6; i++) {
      await store.appendToStream('post-1', [event(`P${i}`)], { expectedRevision: 'any' });
      await store.appendToStream('post-2', [event(`Other${i}`)], { expectedRevision: 'any' });
    }
    const revisions = async (options: Parameters<EventStore['readStream']>[1]) =>
      (await store.readStream('post-1', options)).map((e) => e.revision);
    assert.equal(await revisions(undefined), [0, 1, 2, 3, 4, 5]);
    assert.equal(await revisions({ fromRevision: 4 }), [4, 5]);
    assert.equal(await revisions({ fromRevision: 2, maxCount: 3 }), [2, 3, 4]);
    assert.equal(await revisions({ maxCount: 2 }), [0, 1]);
    assert.equal(await revisions({ fromRevision: 6 }), []);
    assert.equal(await revisions({ direction: 'backwards' }), [5, 4, 3, 2, 1, 0]);
    assert.equal(await revisions({ direction: 'backwards', fromRevision: 3 }), [3, 2, 1, 0]);
    assert.equal(await revisions({ direction: 'backwards', fromRevision: 4, maxCount: 2 }), [4, 3]);
    assert.equal(await revisions({ direction: 'backwards', maxCount: 1 }), [5]);
    const stream = await store.readStream('post-1');
    assert.ok(stream.every((e) => e.streamId === 'post-1' && e.type === `P${e.revision}`));
  });

  test('an absent stream reads as [] in both directions; stream ids match exactly', async ({ store }) => {
    assert.equal(await store.readStream('post-1'), []);
    assert.equal(await store.readStream('post-1', { direction: 'backwards' }), []);
    await store.appendToStream('post-10', [event('Created')], { expectedRevision: 'no_stream' });
    assert.equal(await store.readStream('post-1'), []);
    assert.equal(await store.readStream('post-1', { direction: 'backwards' }), []);
  });

  test('readAll reads forwards and backwards from a position, up to maxCount', async ({ store }) => {
    for (let i = 0; i < 8; i++)
      await store.appendToStream(`post-${i % 3}`, [event(`E${i}`)], { expectedRevision: 'any' });
    const all = await store.readAll();
    assert.equal(
      all.map((e) => e.type),
      ['E0', 'E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7'],
    );
    const types = async (options: Parameters<EventStore['readAll']>[0]) =>
      (await store.readAll(options)).map((e) => e.type);
    assert.equal(await types({ fromPosition: all[2]!.position, maxCount: 3 }), ['E2', 'E3', 'E4']);
    assert.equal(await types({ fromPosition: all[6]!.position }), ['E6', 'E7']);
    assert.equal(await types({ maxCount: 2 }), ['E0', 'E1']);
    assert.equal(await types({ fromPosition: all[7]!.position + 1 }), []);
    assert.equal(await types({ direction: 'backwards' }), ['E7', 'E6', 'E5', 'E4', 'E3', 'E2', 'E1', 'E0']);
    assert.equal(await types({ direction: 'backwards', fromPosition: all[4]!.position, maxCount: 2 }), ['E4', 'E3']);
    assert.equal(await types({ direction: 'backwards', fromPosition: all[0]!.position }), ['E0']);
    assert.equal(await types({ direction: 'backwards', maxCount: 3 }), ['E7', 'E6', 'E5']);
  });

  test('readAll of an empty store is []', async ({ store }) => {
    assert.equal(await store.readAll(), []);
    assert.equal(await store.readAll({ direction: 'backwards' }), []);
    assert.equal(await store.readAll({ after: 0 }), []);
  });

  test('readAll after an exclusive position reads what follows each event, and nothing past the head', async ({
    store,
  }) => {
    for (let i = 0; i < 6; i++)
      await store.appendToStream(`post-${i % 2}`, [event(`E${i}`)], { expectedRevision: 'any' });
    const all = await store.readAll();
    const types = async (options: Parameters<EventStore['readAll']>[0]) =>
      (await store.readAll(options)).map((e) => e.type);
    assert.equal(await types({ after: 0 }), ['E0', 'E1', 'E2', 'E3', 'E4', 'E5']);
    for (let i = 0; i < all.length; i++) {
      assert.equal(
        await types({ after: all[i]!.position }),
        all.slice(i + 1).map((e) => e.type),
        `after E${i}`,
      );
    }
    assert.equal(await types({ after: all[1]!.position, maxCount: 2 }), ['E2', 'E3']);
    assert.equal(await types({ after: all[5]!.position + 1_000_000 }), [], 'past the head');
  });

  test('readAll refuses `after` with a backward read or beside fromPosition', async ({ store }) => {
    await store.appendToStream('post-1', [event('E0')], { expectedRevision: 'any' });
    const [first] = await store.readAll();
    for (const options of [
      { after: 0, direction: 'backwards' as const },
      { after: 0, fromPosition: first!.position },
      { after: -1 },
    ]) {
      let failure: unknown;
      try {
        await store.readAll(options);
      } catch (error) {
        failure = error;
      }
      assert.instance(failure, RangeError, JSON.stringify(options));
    }
  });

  test('data, metadata and ids round-trip; stored events are copies', async ({ store }) => {
    const data = {
      title: 'Grüße — “quoted” 🌍',
      count: 3,
      ratio: 0.25,
      draft: false,
      excerpt: null,
      tags: [1, 'two', { three: 3 }],
      nested: { a: { b: { c: 'd' } } },
    };
    const richMetadata: EventMetadata = {
      userId: null,
      requestId: 'req-42',
      at: '2024-02-29T23:59:59.999Z',
      causationId: 'cmd-9',
      client: { ip: '127.0.0.1', agents: ['cli'] },
    };
    const id = randomUUID();
    const input: NewEvent = { type: 'PostCreated', data, metadata: richMetadata, id };
    await store.appendToStream('post-1', [input, event('PostTitled', { title: 'x' })], {
      expectedRevision: 'no_stream',
    });
    data.nested.a.b.c = 'mutated after append';
    richMetadata.requestId = 'mutated after append';

    const [created, titled] = await store.readStream('post-1');
    assert.equal(created!.data, { ...data, nested: { a: { b: { c: 'd' } } } });
    assert.equal(created!.metadata, { ...richMetadata, requestId: 'req-42' });
    assert.is(created!.id, id, 'a given id is kept');
    assert.is(created!.type, 'PostCreated');
    assert.equal(titled!.metadata, metadata);
    assert.type(titled!.id, 'string');
    assert.ok(titled!.id.length > 0 && titled!.id !== id, 'a missing id is generated');

    (created!.data as typeof data).title = 'mutated after read';
    const [createdAgain] = await store.readAll();
    assert.is((createdAgain!.data as typeof data).title, 'Grüße — “quoted” 🌍');
  });

  test('generated ids are unique', async ({ store }) => {
    await store.appendToStream('post-1', [event('A'), event('B'), event('C')], { expectedRevision: 'no_stream' });
    await store.appendToStream('post-2', [event('A')], { expectedRevision: 'no_stream' });
    const ids = (await store.readAll()).map((e) => e.id);
    assert.is(new Set(ids).size, 4);
  });

  test('headPosition is 0 when empty, then the last appended position', async ({ store }) => {
    assert.is(await store.headPosition(), 0);
    await store.appendToStream('post-1', [event('A')], { expectedRevision: 'no_stream' });
    const last = await store.appendToStream('post-2', [event('B'), event('C')], { expectedRevision: 'no_stream' });
    assert.is(await store.headPosition(), last.position);
    await store.appendToStream('post-1', [event('D')], { expectedRevision: 'no_stream' }).catch(() => {});
    assert.is(await store.headPosition(), last.position, 'a rejected append leaves the head alone');
  });

  test('re-appending the same event ids after the same expected revision returns the original result', async ({
    store,
  }) => {
    const created = [event('Created', {}, randomUUID()), event('Titled', {}, randomUUID())];
    const first = await store.appendToStream('post-1', created, { expectedRevision: 'no_stream' });
    assert.equal(await store.appendToStream('post-1', created, { expectedRevision: 'no_stream' }), first);

    const published = [event('Published', {}, randomUUID())];
    const second = await store.appendToStream('post-1', published, { expectedRevision: first.nextExpectedRevision });
    assert.equal(
      await store.appendToStream('post-1', published, { expectedRevision: first.nextExpectedRevision }),
      second,
    );
    assert.equal(
      (await store.readStream('post-1')).map((e) => e.type),
      ['Created', 'Titled', 'Published'],
      'retries append nothing',
    );

    await assertConflict(
      store.appendToStream('post-1', [event('Published', {}, randomUUID())], { expectedRevision: 1 }),
      {
        streamId: 'post-1',
        expected: 1,
        actual: 2,
      },
      'new ids after an old revision are a conflict, not a retry',
    );
    await assertConflict(
      store.appendToStream('post-1', [...published, event('Archived', {}, randomUUID())], { expectedRevision: 1 }),
      {
        streamId: 'post-1',
        expected: 1,
        actual: 2,
      },
      'a batch only partly matching the stored events is a conflict, not a retry',
    );
  });

  // --- concurrency ---

  test('20 concurrent appends expecting the same revision: exactly one wins, the rest conflict', async ({ store }) => {
    await store.appendToStream('post-1', [event('Created')], { expectedRevision: 'no_stream' });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        store.appendToStream('post-1', [event(`Edit${i}`)], { expectedRevision: 0 }),
      ),
    );
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    assert.is(won.length, 1);
    assert.is(lost.length, 19);
    for (const { reason } of lost) {
      assert.instance(reason, WrongExpectedRevisionError);
      assert.equal([reason.streamId, reason.expected, reason.actual], ['post-1', 0, 1]);
    }
    assert.is((await store.readStream('post-1')).length, 2);
  });

  test('20 concurrent appends to 20 streams all succeed', async ({ store }) => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.appendToStream(`post-${i}`, [event('Created')], { expectedRevision: 'no_stream' }),
      ),
    );
    assert.ok(results.every((r) => r.nextExpectedRevision === 0));
    assert.is(new Set(results.map((r) => r.position)).size, 20, 'each got its own position');
    const all = await store.readAll();
    assert.is(all.length, 20);
    assert.equal(new Set(all.map((e) => e.streamId)).size, 20);
  });

  // --- subscriptions ---

  test('a subscription from the start delivers the log in batches, then reports caught up once', async ({ store }) => {
    await store.appendToStream('post-1', [event('A'), event('B')], { expectedRevision: 'no_stream' });
    await store.appendToStream('user-1', [event('C')], { expectedRevision: 'no_stream' });
    await store.appendToStream('post-1', [event('D'), event('E')], { expectedRevision: 1 });
    const seen = record(store, { maxBatchSize: 2 });
    try {
      await eventually(() => seen.caughtUpCalls > 0, 'onCaughtUp');
      assert.equal(seen.events, await store.readAll());
      assert.is(seen.eventsWhenCaughtUp, 5, 'caught up only after the whole log was delivered');
      assert.ok(
        seen.batches.every((batch) => batch.length >= 1 && batch.length <= 2),
        'batches are non-empty and at most maxBatchSize',
      );
      await sleep(QUIET_PERIOD_MS);
      assert.is(seen.caughtUpCalls, 1);
      assert.is(seen.events.length, 5, 'nothing delivered twice');
    } finally {
      await seen.subscription.close();
    }
  });

  test('a subscription naming its types gets every event of those types and each batch ends where it has read to', async ({
    store,
  }) => {
    const types = ['Wanted', 'AlsoWanted'];
    for (let i = 0; i < 9; i++) {
      await store.appendToStream(
        `s-${i}`,
        [event('Other'), event(i % 2 === 0 ? 'Wanted' : 'AlsoWanted', { i }), event('Other')],
        { expectedRevision: 'no_stream' },
      );
    }
    const all = await store.readAll();
    const seen = record(store, { maxBatchSize: 4, types });
    await eventually(() => seen.caughtUpCalls === 1, 'caught up');
    const wanted = all.filter((e) => types.includes(e.type));
    assert.equal(
      summary(seen.events.filter((e) => types.includes(e.type))),
      summary(wanted),
      'every event of the types, in order',
    );
    assert.equal(
      seen.events.filter((e) => types.includes(e.type)).map((e) => e.data),
      wanted.map((e) => e.data),
    );
    const delivered = new Set(seen.events.map((e) => e.position));
    assert.ok(
      seen.events.every((e) => all.some((a) => a.position === e.position && a.type === e.type)),
      'only events of the log',
    );
    assert.is(delivered.size, seen.events.length, 'no repeats');
    assert.is(
      seen.events[seen.events.length - 1]!.position,
      all[all.length - 1]!.position,
      'the last batch ends at the head, whatever its type',
    );
    for (const batch of seen.batches) assert.ok(batch.length > 0 && batch.length <= 4);
    await store.appendToStream('s-live', [event('Wanted', { live: true }), event('Other')], {
      expectedRevision: 'no_stream',
    });
    await eventually(
      () => seen.events.some((e) => (e.data as { live?: boolean }).live === true),
      'the live event of a named type',
    );
    const head = (await store.readAll({ direction: 'backwards', maxCount: 1 }))[0]!.position;
    await eventually(() => seen.events[seen.events.length - 1]!.position === head, 'the live batch ends at the head');
    await seen.subscription.close();
  });

  test('a subscription starts after its exclusive checkpoint', async ({ store }) => {
    for (let i = 0; i < 6; i++)
      await store.appendToStream(`post-${i % 2}`, [event(`E${i}`)], { expectedRevision: 'any' });
    const all = await store.readAll();
    const seen = record(store, { after: all[2]!.position });
    try {
      await eventually(() => seen.caughtUpCalls > 0, 'onCaughtUp');
      assert.equal(seen.events, all.slice(3));
    } finally {
      await seen.subscription.close();
    }
  });

  test('a subscription at the head is caught up at once and delivers only new events', async ({ store }) => {
    await store.appendToStream('post-1', [event('Old')], { expectedRevision: 'no_stream' });
    const seen = record(store, { after: await store.headPosition() });
    try {
      await eventually(() => seen.caughtUpCalls > 0, 'onCaughtUp');
      assert.equal(seen.events, []);
      await store.appendToStream('post-1', [event('New')], { expectedRevision: 0 });
      await eventually(() => seen.events.length > 0, 'the new event');
      assert.equal(
        seen.events.map((e) => e.type),
        ['New'],
      );
    } finally {
      await seen.subscription.close();
    }
  });

  test('a subscription catches up, then delivers live appends', async ({ store }) => {
    await store.appendToStream('post-1', [event('A'), event('B'), event('C')], { expectedRevision: 'no_stream' });
    const seen = record(store);
    try {
      await eventually(() => seen.caughtUpCalls > 0, 'onCaughtUp');
      assert.is(seen.eventsWhenCaughtUp, 3);
      await store.appendToStream('post-1', [event('D')], { expectedRevision: 2 });
      await store.appendToStream('user-1', [event('E')], { expectedRevision: 'no_stream' });
      await eventually(() => seen.events.length === 5, 'the live events');
      assert.equal(seen.events, await store.readAll());
      assert.is(seen.caughtUpCalls, 1);
    } finally {
      await seen.subscription.close();
    }
  });

  test('a subscription to an empty store is caught up at once, then live', async ({ store }) => {
    const seen = record(store);
    try {
      await eventually(() => seen.caughtUpCalls > 0, 'onCaughtUp');
      assert.is(seen.eventsWhenCaughtUp, 0);
      await store.appendToStream('post-1', [event('A')], { expectedRevision: 'no_stream' });
      await eventually(() => seen.events.length === 1, 'the live event');
    } finally {
      await seen.subscription.close();
    }
  });

  test('batches arrive one at a time, in order, with no gaps or repeats under concurrent appends', async ({
    store,
  }) => {
    for (let i = 0; i < 15; i++) await store.appendToStream('seed', [event(`Seed${i}`)], { expectedRevision: 'any' });
    let inFlight = 0;
    let maxInFlight = 0;
    const seen = record(store, {
      maxBatchSize: 7,
      async onEvents() {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(1);
        inFlight -= 1;
      },
    });
    try {
      const writers = Array.from({ length: 5 }, async (_, writer) => {
        for (let i = 0; i < 12; i++) {
          const events =
            i % 3 === 0 ? [event(`W${writer}-${i}a`), event(`W${writer}-${i}b`)] : [event(`W${writer}-${i}`)];
          await store.appendToStream(`writer-${writer}`, events, { expectedRevision: 'any' });
          await sleep(i % 4);
        }
      });
      await Promise.all(writers);
      const total = 15 + 5 * 16;
      await eventually(() => seen.events.length >= total, `${total} events`);
      await sleep(QUIET_PERIOD_MS);
      assert.equal(summary(seen.events), summary(await store.readAll()), 'exactly the log, in order');
      assert.is(maxInFlight, 1, 'never two batches at once');
      assert.ok(seen.batches.every((batch) => batch.length >= 1 && batch.length <= 7));
      assert.is(seen.caughtUpCalls, 1);
    } finally {
      await seen.subscription.close();
    }
  });

  test('close stops delivery', async ({ store }) => {
    const seen = record(store);
    await eventually(() => seen.caughtUpCalls > 0, 'onCaughtUp');
    await seen.subscription.close();
    await store.appendToStream('post-1', [event('AfterClose')], { expectedRevision: 'no_stream' });
    await sleep(QUIET_PERIOD_MS);
    assert.equal(seen.events, []);
  });

  test('close resolves only after the batch in flight is handled', async ({ store }) => {
    let release!: () => void;
    const handlerMayFinish = new Promise<void>((resolve) => {
      release = resolve;
    });
    let handled = false;
    const seen = record(store, {
      async onEvents() {
        await handlerMayFinish;
        handled = true;
      },
    });
    await store.appendToStream('post-1', [event('A')], { expectedRevision: 'no_stream' });
    await eventually(() => seen.batches.length === 1, 'the batch to start');
    let closed = false;
    const closing = seen.subscription.close().then(() => {
      closed = true;
    });
    await sleep(20);
    assert.not.ok(closed, 'close waits for the handler');
    release();
    await closing;
    assert.ok(handled);
    await store.appendToStream('post-1', [event('B')], { expectedRevision: 0 });
    await sleep(QUIET_PERIOD_MS);
    assert.is(seen.batches.length, 1);
  });

  test('a throwing handler goes to onError and stops the subscription', async ({ store }) => {
    const failure = new Error('projection broke');
    const seen = record(store, {
      onEvents() {
        throw failure;
      },
    });
    try {
      await store.appendToStream('post-1', [event('A')], { expectedRevision: 'no_stream' });
      await eventually(() => seen.errors.length > 0, 'onError');
      assert.is(seen.errors[0], failure);
      await store.appendToStream('post-1', [event('B')], { expectedRevision: 0 });
      await sleep(QUIET_PERIOD_MS);
      assert.is(seen.batches.length, 1, 'nothing delivered after the failure');
      assert.is(seen.errors.length, 1);
    } finally {
      await seen.subscription.close();
    }
  });

  test.run();
}
