/**
 * With processes sharing a read model, webhooks are delivered by the projector lease's holder only: two sites on one
 * event store, one holding the lease, deliver each event once; when the holder stops, the other takes the lease over
 * and goes on from the delivery records.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite } from '../support/testSite';
import { startReceiver } from '../support/webhookReceiver';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { parseAllowedHosts } from '../../src/adapters/http/destinations';
import type { Coordination } from '../../src/site';
import type { AppliedProgress, Lease } from '../../src/ports/coordination';
import type { EventStore } from '../../src/ports/eventStore';

const test = suite('webhooks: one deliverer, the lease holder');

const TTL_MS = 300;

/** A lease and an applied position shared by the "processes" of one test, in memory. */
function sharedCoordination() {
  let holder: string | null = null;
  let expires = 0;
  let fence = 0;
  let applied = 0;
  const lease = (owner: string): Lease => ({
    ttlMs: TTL_MS,
    owner,
    acquire: async () => {
      const now = Date.now();
      if (holder !== null && holder !== owner && expires > now) return null;
      if (holder !== owner) fence++;
      holder = owner;
      expires = now + TTL_MS;
      return fence;
    },
    release: async () => {
      if (holder === owner) holder = null;
    },
    holder: async () => holder,
  });
  const progress: AppliedProgress = {
    publish: async (position) => {
      applied = Math.max(applied, position);
      return true;
    },
    applied: async () => applied,
    current: async () => applied,
    waitFor: async (position, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (applied < position && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      return applied >= position;
    },
    close: async () => {},
  };
  return (owner: string): Coordination => ({ lease: lease(owner), progress, close: async () => {} });
}

test('only the holder delivers; the standby takes over when it stops, without losing or repeating an event', async () => {
  const receiver = await startReceiver();
  const shared = createMemoryEventStore();
  // One store for both "processes": a process that stops closes its own connection, not the store.
  const store = (): EventStore => ({
    appendToStream: (stream, events, options) => shared.appendToStream(stream, events, options),
    readStream: (stream, options) => shared.readStream(stream, options),
    readAll: (options) => shared.readAll(options),
    subscribeToAll: (options) => shared.subscribeToAll(options),
    headPosition: () => shared.headPosition(),
    close: async () => {},
  });
  const coordination = sharedCoordination();
  const webhooks = { allowedHosts: parseAllowedHosts('127.0.0.1'), backoff: { initialMs: 5, maxMs: 40 }, pollMs: 20 };
  let first: TestSite | null = await startTestSite({
    now: Date.now(),
    store: store(),
    coordination: coordination('first'),
    webhooks,
  });
  const second = await startTestSite({
    now: Date.now(),
    store: store(),
    coordination: coordination('second'),
    webhooks,
  });
  try {
    const admin = await first.createUser('admin', 'administrator');
    const made = await first.request('POST', '/hooks/v1/webhooks', {
      as: admin,
      body: { url: receiver.url, events: ['PostCreated'] },
    });
    assert.is(made.status, 201, made.text);
    for (const title of ['One', 'Two', 'Three'])
      await first.request('POST', '/core/v2/posts', { as: admin, body: { title, status: 'publish' } });
    await receiver.waitFor((all) => all.length >= 3);
    // Time for a second deliverer, were there one, to send the same events again.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const ids = () => receiver.received.map((d) => d.headers['webhook-id']);
    assert.is(receiver.received.length, 3);
    assert.is(new Set(ids()).size, 3, 'each event once');

    await first.close();
    first = null;
    // The second process holds the lease once the first's is released; its projector catches up, then it delivers.
    await second.projectorStarted;
    const deadline = Date.now() + 10_000;
    let post = await second.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'Four', status: 'publish' },
    });
    while (post.status !== 201 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      post = await second.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Four', status: 'publish' } });
    }
    assert.is(post.status, 201, post.text);
    await receiver.waitFor((all) => all.some((d) => JSON.parse(d.body).data.post?.title === 'Four'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.is(receiver.received.length, 4);
    assert.is(new Set(ids()).size, 4, 'nothing delivered again by the new holder');
  } finally {
    await first?.close();
    await second.close();
    await receiver.close();
  }
});

test.run();
