/**
 * How the HTTP edge answers when a dependency is out (DependencyUnavailableError from an adapter): 503 with
 * Retry-After in WordPress's error shape, and for a write how far it got: nothing written, committed but not visible
 * yet, or unknown. And the read-your-writes wait, bounded from the request's start. The adapters here fail on cue,
 * so every case is exact; test/http/outageProcesses.test.ts has the same with real processes and a real Redis.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSite } from '../../src/site';
import type { Coordination, Site } from '../../src/site';
import { createApp } from '../../src/app';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { manualClock } from '../../src/ports/clock';
import type { EventStore } from '../../src/ports/eventStore';
import type { ReadModel } from '../../src/ports/readModel';
import { DependencyUnavailableError } from '../../src/ports/unavailable';
import { createApplicationPassword, registerUser } from '../../src/resources/users/operations';
import { ensureDefaultCategory } from '../../src/resources/terms/operations';
import { requestsTo, testAdapters } from '../support/testSite';
import type { TestUser } from '../support/testSite';

const test = suite('outages at the HTTP edge');

/** What the adapters are told to do, switched by each test. */
interface Faults {
  /** Appends to streams whose id starts with this fail. */
  appendsTo: string | null;
  /** Whether such a failed append leaves its outcome unknown. */
  unknown: boolean;
  /** Reads of the read model fail. */
  readModelDown: boolean;
  /** The shared applied position cannot be read (read-your-writes fails at once). */
  progressDown: boolean;
}

const outage = (dependency: 'event store' | 'read model', outcomeUnknown = false) =>
  new DependencyUnavailableError(dependency, `${dependency} did not answer (test)`, { outcomeUnknown });

function faultyStore(store: EventStore, faults: Faults): EventStore {
  return {
    ...store,
    appendToStream: async (streamId, events, options) => {
      if (faults.appendsTo !== null && streamId.startsWith(faults.appendsTo))
        throw outage('event store', faults.unknown);
      return store.appendToStream(streamId, events, options);
    },
  };
}

function faultyReadModel(readModel: ReadModel, faults: Faults): ReadModel {
  const failing = <T>(read: () => Promise<T>): Promise<T> =>
    faults.readModelDown ? Promise.reject(outage('read model')) : read();
  return {
    ...readModel,
    // Nothing at hand without asking: every read goes to get/query.
    peek: undefined,
    get: (collection, id) => failing(() => readModel.get(collection, id)),
    getMany: (collection, ids) => failing(() => readModel.getMany(collection, ids)),
    query: (collection, plan) => failing(() => readModel.query(collection, plan)),
    checkpoint: (name) => failing(() => readModel.checkpoint(name)),
    commit: (commit) => readModel.commit(commit),
  };
}

interface Harness {
  site: Site;
  faults: Faults;
  clock: ReturnType<typeof manualClock>;
  store: EventStore;
  /** The timeouts the read-your-writes waits were given. */
  waits: number[];
  request: ReturnType<typeof requestsTo>;
  admin: TestUser;
  close(): Promise<void>;
}

/** A site whose projector runs here, with a stand-in for the shared coordination (the applied position is this projector's). */
async function harness(readYourWritesTimeoutMs = 5000): Promise<Harness> {
  const faults: Faults = { appendsTo: null, unknown: false, readModelDown: false, progressDown: false };
  const clock = manualClock(Date.parse('2024-05-01T12:00:00Z'));
  const store = createMemoryEventStore();
  const waits: number[] = [];
  let site: Site;
  const coordination: Coordination = {
    lease: {
      ttlMs: 60_000,
      owner: 'test',
      acquire: async () => 1,
      release: async () => undefined,
      holder: async () => 'test',
    },
    progress: {
      publish: async () => true,
      applied: async () => site.projector.appliedPosition,
      current: async () => {
        if (faults.progressDown) throw outage('read model');
        return site.projector.appliedPosition;
      },
      waitFor: async (position, timeoutMs) => {
        waits.push(timeoutMs);
        if (faults.progressDown) throw outage('read model');
        return site.projector.waitFor(position, Math.max(timeoutMs, 1));
      },
      close: async () => undefined,
    },
    close: async () => undefined,
  };
  site = createSite(
    {
      siteUrl: 'http://127.0.0.1',
      name: 't',
      description: '',
      timezone: 'UTC',
      authSecret: 's',
      idBlockSize: 5,
      readYourWritesTimeoutMs,
    },
    {
      store: faultyStore(store, faults),
      readModel: faultyReadModel(createMemoryReadModel(), faults),
      clock,
      coordination,
      ...testAdapters(),
    },
  );
  await site.projector.start();
  const server = http.createServer(createApp(site).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const request = requestsTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const { id } = await registerUser(
    site,
    { login: 'admin', role: 'administrator', email: 'admin@example.test' },
    null,
    'setup',
  );
  const { password, position } = await createApplicationPassword(site, id, { name: 'tests' }, null, 'setup');
  await site.settle(position);
  // As the server does at start: "Uncategorized" exists before any post is written.
  await site.settle((await ensureDefaultCategory(site)).position);
  waits.length = 0;
  const admin = { id, login: 'admin', password, auth: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` };
  return {
    site,
    faults,
    clock,
    store,
    waits,
    request,
    admin,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await site.close();
    },
  };
}

const postsInLog = async (store: EventStore) =>
  (await store.readAll()).filter((event) => event.streamId.startsWith('content-'));

test('a read with the read model out answers 503 with Retry-After, in WordPress error shape, without an outcome', async () => {
  const h = await harness();
  try {
    h.faults.readModelDown = true;
    for (const path of ['/core/v2/posts', '/core/v2/posts/1', '/wp-json/wp/v2/pages']) {
      const response = await h.request('GET', path);
      assert.is(response.status, 503, path);
      assert.is(response.headers.get('retry-after'), '5', path);
      assert.is(response.body.code, 'rest_service_unavailable', path);
      assert.equal(response.body.data, { status: 503, dependency: 'read model' }, path);
    }
    // A page outside the API (an embed view) alike.
    const embed = await h.request('GET', '/hello-world/embed/');
    assert.is(embed.status, 503, embed.text);
    assert.is(embed.headers.get('retry-after'), '5');
    assert.is(embed.body.code, 'rest_service_unavailable');
    h.faults.readModelDown = false;
    assert.is((await h.request('GET', '/core/v2/posts')).status, 200, 'answers again once it is back');
    assert.is((await h.request('GET', '/hello-world/embed/')).status, 404, 'no such post, once it can tell');
  } finally {
    await h.close();
  }
});

test('a write refused before it appended anything has no outcome: sending it again is safe', async () => {
  const h = await harness();
  try {
    // The slug's claim is the create's first append; nothing is written when it fails.
    h.faults.appendsTo = 'name-';
    const response = await h.request('POST', '/core/v2/posts', {
      as: h.admin,
      body: { title: 'Refused', status: 'publish' },
    });
    assert.is(response.status, 503, response.text);
    assert.is(response.headers.get('retry-after'), '5');
    assert.equal(response.body.data, { status: 503, dependency: 'event store' });
    assert.equal(await postsInLog(h.store), []);
  } finally {
    await h.close();
  }
});

test('a write whose own append had no answer says its outcome is unknown', async () => {
  const h = await harness();
  try {
    h.faults.appendsTo = 'content-';
    h.faults.unknown = true;
    const response = await h.request('POST', '/core/v2/posts', {
      as: h.admin,
      body: { title: 'Lost answer', status: 'publish' },
    });
    assert.is(response.status, 503, response.text);
    assert.equal(response.body.data, { status: 503, dependency: 'event store', outcome: 'unknown' });
    assert.match(response.body.message, /may or may not have been saved/);
  } finally {
    await h.close();
  }
});

test('a write whose own append failed saying nothing was written has no outcome, even after earlier appends', async () => {
  const h = await harness();
  try {
    // The slug is claimed (appended), then the post's own append fails and says nothing was written: the post is not.
    h.faults.appendsTo = 'content-';
    h.faults.unknown = false;
    const response = await h.request('POST', '/core/v2/posts', {
      as: h.admin,
      body: { title: 'Half way', status: 'publish' },
    });
    assert.is(response.status, 503, response.text);
    assert.equal(response.body.data, { status: 503, dependency: 'event store' });
    assert.equal(await postsInLog(h.store), []);
  } finally {
    await h.close();
  }
});

test('a write committed but not yet visible says so, with its position; it is in the log', async () => {
  const h = await harness();
  try {
    h.faults.progressDown = true;
    const response = await h.request('POST', '/core/v2/posts', {
      as: h.admin,
      body: { title: 'Saved', status: 'publish' },
    });
    assert.is(response.status, 503, response.text);
    assert.is(response.headers.get('retry-after'), '5');
    const [created] = await postsInLog(h.store);
    assert.ok(created, 'the post is in the log');
    assert.equal(response.body.data, {
      status: 503,
      dependency: 'read model',
      outcome: 'committed',
      position: (await h.store.readAll()).at(-1)!.position,
    });
    assert.is(created!.position, response.body.data.position);
    assert.match(response.body.message, /The change was saved/);
    h.faults.progressDown = false;
    const read = await h.request('GET', `/core/v2/posts/${(created!.data as { id: number }).id}`, { as: h.admin });
    assert.is(read.status, 200, 'readable once the read model is back');
    assert.is(read.body.title.rendered, 'Saved');
  } finally {
    await h.close();
  }
});

test('a batch cut short by an outage answers 503, saying what of it was committed', async () => {
  const h = await harness();
  try {
    h.faults.progressDown = true;
    const response = await h.request('POST', '/batch/v1', {
      as: h.admin,
      body: { requests: [{ path: '/core/v2/posts', body: { title: 'In a batch', status: 'publish' } }] },
    });
    assert.is(response.status, 503, response.text);
    assert.is(response.body.data.outcome, 'committed');
  } finally {
    await h.close();
  }
});

test('the read-your-writes wait is what is left of READ_YOUR_WRITES_TIMEOUT_MS since the request started', async () => {
  const h = await harness(5000);
  try {
    const append = (requestId: string, id: number) =>
      h.site.store.appendToStream(
        `note-${id}`,
        [{ type: 'Noted', data: { id }, metadata: h.site.metadata(null, requestId) }],
        { expectedRevision: 'no_stream' },
      );
    const first = h.site.requests.begin('first')!;
    const { position: one } = await append('first', 1);
    h.clock.advance(3_000);
    await h.site.settle(one);
    const late = h.site.requests.begin('late')!;
    const { position: two } = await append('late', 2);
    h.clock.advance(7_000);
    await h.site.settle(two);
    // A position no request in progress appended (a command-line tool's) waits the whole bound from now.
    const { position: three } = await append('elsewhere', 3);
    await h.site.settle(three);
    assert.equal(h.waits, [2_000, 0, 5_000]);
    assert.is(first.settled, one);
    assert.is(late.appended, two);
    first.end();
    late.end();
    // Once answered, a request's positions are forgotten.
    await h.site.settle(one);
    assert.is(h.waits[3], 5_000);
    assert.is(h.site.requests.begin('first') !== null, true, 'its id can be used again');
  } finally {
    await h.close();
  }
});

test('a request id used twice at once is followed once: the second request is not mistaken for the first', async () => {
  const h = await harness();
  try {
    const first = h.site.requests.begin('same');
    assert.ok(first);
    assert.is(h.site.requests.begin('same'), null);
    first!.end();
  } finally {
    await h.close();
  }
});

test.run();
