/**
 * hooks/v1: webhooks made by administrators, and the event log delivered to loopback receivers as Standard Webhooks
 * (verified with the `standardwebhooks` package), in order, at least once, across a restart over the same SQLite log,
 * dead-lettered after the configured time and redelivered on request.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestSiteOptions, TestUser } from '../support/testSite';
import { startReceiver } from '../support/webhookReceiver';
import type { ReceivedDelivery } from '../support/webhookReceiver';
import { parseAllowedHosts } from '../../src/adapters/http/destinations';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { takesEvent } from '../../src/webhooks/deliveries';
import type { EventStore } from '../../src/ports/eventStore';

const test = suite('webhooks');

/** Loopback allowed, waits of a few milliseconds: the tests never sleep long. */
const FAST: TestSiteOptions['webhooks'] = {
  allowedHosts: parseAllowedHosts('127.0.0.1'),
  backoff: { initialMs: 5, maxMs: 40 },
  pollMs: 20,
};
/** The receiver's clock must be near the site's for a signature to verify (5 minutes' tolerance). */
const startSite = (options: TestSiteOptions = {}) => startTestSite({ now: Date.now(), webhooks: FAST, ...options });

const entryOf = (delivery: ReceivedDelivery) =>
  JSON.parse(delivery.body) as { id: string; position: number; stream: string; type: string; data: any };

test('a webhook on * gets a post creation, signed as Standard Webhooks; its secret is shown once', async () => {
  const receiver = await startReceiver();
  const t = await startSite();
  try {
    const admin = await t.createUser('admin', 'administrator');
    const made = await t.request('POST', '/hooks/v1/webhooks', {
      as: admin,
      body: { url: receiver.url, events: ['*'], description: 'everything' },
    });
    assert.is(made.status, 201, made.text);
    assert.match(made.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.is(made.headers.get('location'), `${t.url}/hooks/v1/webhooks/${made.body.id}`);
    assert.equal(
      [made.body.active, made.body.events, made.body.streams, made.body.disabled_reason],
      [true, ['*'], [], null],
    );
    const read = await t.request('GET', `/hooks/v1/webhooks/${made.body.id}`, { as: admin });
    assert.is(read.status, 200);
    assert.not.ok('secret' in read.body, 'a read never shows the secret');
    const listed = await t.request('GET', '/hooks/v1/webhooks', { as: admin });
    assert.equal(
      listed.body.map((w: any) => [w.id, 'secret' in w]),
      [[made.body.id, false]],
    );

    const post = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Hooked', status: 'publish' } });
    assert.is(post.status, 201);
    await receiver.waitFor((all) => all.some((d) => entryOf(d).type === 'PostCreated'));
    const delivery = receiver.received.find((d) => entryOf(d).type === 'PostCreated')!;
    const verified = new Webhook(made.body.secret).verify(delivery.body, delivery.headers) as any;
    assert.is(verified.stream, `content-${post.body.id}`);
    assert.is(verified.data.post.title, 'Hooked');
    assert.is(delivery.headers['webhook-id'], `msg_${verified.id}`);
    assert.match(delivery.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/);
    assert.is(delivery.headers['content-type'], 'application/json');
    // Signed with another secret, or altered: refused.
    assert.throws(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(delivery.body, delivery.headers),
    );
    assert.throws(() =>
      new Webhook(made.body.secret).verify(delivery.body.replace('Hooked', 'Forged'), delivery.headers),
    );

    // A second webhook's creation reaches the first with its secret redacted, as the audit log shows it.
    const second = await t.request('POST', '/hooks/v1/webhooks', {
      as: admin,
      body: { url: receiver.url, events: ['PostDeleted'] },
    });
    assert.is(second.status, 201);
    await receiver.waitFor((all) => all.some((d) => entryOf(d).type === 'WebhookCreated'));
    const creation = entryOf(receiver.received.find((d) => entryOf(d).type === 'WebhookCreated')!);
    assert.is(creation.data.secret, '[redacted]');
    assert.not.ok(
      receiver.received.some((d) => d.body.includes(second.body.secret.slice(6))),
      'no secret leaves in a delivery',
    );
    // Delivery records are never delivered.
    assert.not.ok(receiver.received.some((d) => entryOf(d).stream.startsWith('webhook-deliveries-')));

    const deliveries = await t.request('GET', `/hooks/v1/webhooks/${made.body.id}/deliveries?per_page=100`, {
      as: admin,
    });
    assert.is(deliveries.status, 200);
    const record = deliveries.body.find((d: any) => d.id === delivery.headers['webhook-id']);
    assert.equal(
      [record.status, record.attempts, record.response_status, record.next_attempt, record.event.type],
      ['delivered', 1, 200, null, 'PostCreated'],
    );
    assert.type(record.latency_ms, 'number');
  } finally {
    await t.close();
    await receiver.close();
  }
});

/** `read` again until `done` holds of its answer (at most 10 s), and that answer. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every event the webhook takes after `from`, as the log holds them. */
async function expectedEvents(store: EventStore, webhook: { events: string[]; streams: string[] }, from: number) {
  return (await store.readAll({ after: from, maxCount: 100_000 })).filter((event) => takesEvent(webhook, event));
}

test('a receiver failing, then well, across a restart over the same SQLite log: everything arrives, in order', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-webhooks-'));
  const file = path.join(dir, 'events.sqlite');
  const receiver = await startReceiver();
  let healthy = false;
  receiver.answer = () => (healthy ? 200 : 500);
  let t: TestSite | null = await startSite({ store: openSqliteEventStore({ file }) });
  try {
    const admin: TestUser = await t.createUser('admin', 'administrator');
    const subscription = { events: ['PostCreated', 'PostUpdated'], streams: ['content-'] };
    const made = await t.request('POST', '/hooks/v1/webhooks', {
      as: admin,
      body: { url: receiver.url, ...subscription },
    });
    assert.is(made.status, 201, made.text);
    const id = made.body.id as number;
    const from = made.body.from_position as number;
    const first = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'One', status: 'publish' } });
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Two', status: 'draft' } });
    await t.request('POST', `/core/v2/posts/${first.body.id}`, { as: admin, body: { title: 'One, again' } });
    await receiver.waitFor((all) => all.length >= 3);
    const failing = await t.request('GET', `/hooks/v1/webhooks/${id}/deliveries`, { as: admin });
    assert.is(failing.body[0].status, 'failed');
    assert.ok(failing.body[0].attempts >= 1);
    assert.is(failing.body[0].response_status, 500);
    assert.type(failing.body[0].next_attempt, 'string');
    await t.close();
    t = null;
    const attemptsWhileClosed = receiver.received.length;

    healthy = true;
    t = await startSite({ store: openSqliteEventStore({ file }) });
    // The same administrator: their application password is in the log.
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Three', status: 'publish' } });
    await t.request('POST', '/core/v2/categories', { as: admin, body: { name: 'Not subscribed' } });
    const expected = await expectedEvents(t.site.store, subscription, from);
    assert.is(expected.length, 4, 'three creations and an update (its PostRevised is not subscribed to)');
    const ids = expected.map((event) => event.id);
    const deliveredIds = () => new Set(receiver.received.filter((d) => d.status === 200).map((d) => entryOf(d).id));
    await receiver.waitFor(() => ids.every((event) => deliveredIds().has(event)));
    assert.ok(
      receiver.received.length > attemptsWhileClosed,
      'the failing delivery was taken up again after the restart',
    );

    // In log order: every attempt's position is at least the previous one's (a retry repeats, never goes back).
    const positions = receiver.received.map((d) => entryOf(d).position);
    assert.equal(
      positions,
      [...positions].sort((a, b) => a - b),
    );
    // Nothing the webhook does not take was sent.
    assert.ok(receiver.received.every((d) => ids.includes(entryOf(d).id)));
    // The last answer is recorded just after it came back.
    const site = t;
    const records = await eventually(
      () => site.request('GET', `/hooks/v1/webhooks/${id}/deliveries?per_page=100`, { as: admin }),
      (answer) => answer.body.length === 4 && answer.body.every((d: any) => d.status === 'delivered'),
    );
    assert.is(records.body.length, 4);
    assert.ok(records.body.every((d: any) => d.status === 'delivered'));
    const firstDelivery = records.body.find((d: any) => d.event.id === ids[0]);
    assert.ok(firstDelivery.attempts >= 2, 'the first event took several attempts');
    const webhook = await t.request('GET', `/hooks/v1/webhooks/${id}`, { as: admin });
    assert.is(webhook.body.delivered_position, expected[expected.length - 1]!.position);
  } finally {
    await t?.close();
    await receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('dead-lettered after the configured time: the webhook is disabled (an event); redelivery resumes it', async () => {
  const receiver = await startReceiver();
  let healthy = false;
  receiver.answer = () => (healthy ? 204 : 503);
  const t = await startSite({ webhooks: { ...FAST, deadLetterAfterMs: 60_000 } });
  try {
    const admin = await t.createUser('admin', 'administrator');
    const made = await t.request('POST', '/hooks/v1/webhooks', {
      as: admin,
      body: { url: receiver.url, events: ['PostCreated'] },
    });
    const id = made.body.id as number;
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Doomed', status: 'publish' } });
    await receiver.waitFor((all) => all.length >= 2);
    // The site's clock moves past the bound: the next failed attempt dead-letters the delivery.
    t.clock.advance(61_000);
    const webhook = await eventually(
      () => t.request('GET', `/hooks/v1/webhooks/${id}`, { as: admin }),
      (answer) => !answer.body.active,
    );
    assert.equal([webhook.body.active, webhook.body.disabled_reason], [false, 'dead_letter']);
    const delivery = webhook.body.dead_letter as string;
    assert.match(delivery, /^msg_/);
    const audit = await t.request('GET', '/audit/v1/events?type[]=WebhookDisabled', { as: admin });
    assert.equal(
      audit.body.map((e: any) => [e.type, e.data.id, e.data.delivery, e.user]),
      [['WebhookDisabled', id, delivery, null]],
    );
    const listed = await t.request('GET', `/hooks/v1/webhooks/${id}/deliveries`, { as: admin });
    assert.equal(
      [listed.body[0].id, listed.body[0].status, listed.body[0].next_attempt],
      [delivery, 'dead_lettered', null],
    );
    const attempts = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(receiver.received.length, attempts, 'a disabled webhook sends nothing');

    // Only the dead-lettered delivery may be redelivered.
    const other = await t.request(
      'POST',
      `/hooks/v1/webhooks/${id}/deliveries/msg_00000000-0000-0000-0000-000000000000/redeliver`,
      { as: admin },
    );
    assert.equal([other.status, other.body.code], [409, 'rest_webhook_delivery_not_dead_lettered']);
    healthy = true;
    const again = await t.request('POST', `/hooks/v1/webhooks/${id}/deliveries/${delivery}/redeliver`, { as: admin });
    assert.is(again.status, 202, again.text);
    assert.equal([again.body.active, again.body.disabled_reason], [true, null]);
    await receiver.waitFor((all) => all.some((d) => d.status === 204 && d.headers['webhook-id'] === delivery));
    const after = await eventually(
      () => t.request('GET', `/hooks/v1/webhooks/${id}/deliveries`, { as: admin }),
      (answer) => answer.body[0].status === 'delivered',
    );
    assert.equal([after.body[0].id, after.body[0].status, after.body[0].attempts], [delivery, 'delivered', 1]);
  } finally {
    await t.close();
    await receiver.close();
  }
});

test('a redirect is never followed: the attempt fails and the other place gets nothing', async () => {
  const elsewhere = await startReceiver();
  const receiver = await startReceiver();
  receiver.answer = () => 307;
  const t = await startSite();
  try {
    const admin = await t.createUser('admin', 'administrator');
    // The receiver's answer, with a Location to the other receiver.
    const made = await t.request('POST', '/hooks/v1/webhooks', {
      as: admin,
      body: { url: `${receiver.url}?to=${encodeURIComponent(elsewhere.url)}`, events: ['PostCreated'] },
    });
    assert.is(made.status, 201);
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Moved?', status: 'publish' } });
    await receiver.waitFor((all) => all.length >= 2);
    const listed = await eventually(
      () => t.request('GET', `/hooks/v1/webhooks/${made.body.id}/deliveries`, { as: admin }),
      (answer) => answer.body.length > 0,
    );
    assert.equal([listed.body[0].status, listed.body[0].response_status], ['failed', null]);
    assert.match(listed.body[0].error, /redirect/);
    assert.is(elsewhere.received.length, 0);
  } finally {
    await t.close();
    await receiver.close();
    await elsewhere.close();
  }
});

test('without the allow-list, loopback and private receivers are refused with a 400', async () => {
  const receiver = await startReceiver();
  const t = await startTestSite({ now: Date.now(), webhooks: { backoff: { initialMs: 5, maxMs: 40 }, pollMs: 20 } });
  try {
    const admin = await t.createUser('admin', 'administrator');
    for (const url of [
      receiver.url,
      'http://localhost:8080/x',
      'http://[::1]:9/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest/meta-data',
      'http://2130706433/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const refused = await t.request('POST', '/hooks/v1/webhooks', { as: admin, body: { url } });
      assert.equal([refused.status, refused.body.code], [400, 'rest_invalid_param'], url);
      assert.match(refused.body.data.params.url, /WEBHOOK_ALLOWED_HOSTS/, url);
    }
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'https://user:pw@example.com/', 'not a url']) {
      const refused = await t.request('POST', '/hooks/v1/webhooks', { as: admin, body: { url } });
      assert.equal([refused.status, refused.body.code], [400, 'rest_invalid_param'], url);
    }
    const listed = await t.request('GET', '/hooks/v1/webhooks', { as: admin });
    assert.equal(listed.body, [], 'nothing was made');
    // Made before the allow-list was taken away (here: changed to a loopback URL by name) it is refused at delivery too.
    const made = await t.request('POST', '/hooks/v1/webhooks', {
      as: admin,
      body: { url: 'https://hooks.example.invalid/x' },
    });
    assert.is(made.status, 201);
    const changed = await t.request('PATCH', `/hooks/v1/webhooks/${made.body.id}`, {
      as: admin,
      body: { url: receiver.url },
    });
    assert.equal([changed.status, changed.body.code], [400, 'rest_invalid_param']);
    assert.is(receiver.received.length, 0);
  } finally {
    await t.close();
    await receiver.close();
  }
});

test('forged and malformed input: refused, never a 500, never anyone but administrators', async () => {
  const t = await startSite();
  try {
    const admin = await t.createUser('admin', 'administrator');
    const editor = await t.createUser('editor', 'editor');
    const url = 'https://hooks.example.test/in';
    const anonymous = await t.request('POST', '/hooks/v1/webhooks', { body: { url } });
    assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_forbidden']);
    const notAdmin = await t.request('GET', '/hooks/v1/webhooks', { as: editor });
    assert.equal([notAdmin.status, notAdmin.body.code], [403, 'rest_forbidden']);
    const bad: [unknown, string][] = [
      [{}, 'rest_missing_callback_param'],
      [{ url: 42 }, 'rest_invalid_param'],
      [{ url, events: [] }, 'rest_invalid_param'],
      [{ url, events: ['NoSuchEvent'] }, 'rest_invalid_param'],
      [{ url, events: ['post_created'] }, 'rest_invalid_param'],
      [{ url, events: [42] }, 'rest_invalid_param'],
      [{ url, events: ['*', '*'] }, 'rest_invalid_param'],
      [{ url, streams: ['../etc'] }, 'rest_invalid_param'],
      [{ url, streams: [''] }, 'rest_invalid_param'],
      [{ url, active: 'maybe' }, 'rest_invalid_param'],
      [{ url, from_position: -1 }, 'rest_invalid_param'],
      [{ url, from_position: 1e12 }, 'rest_invalid_param'],
      [{ url, from_position: 'start' }, 'rest_invalid_param'],
      [{ url: `${url}/${'x'.repeat(3000)}` }, 'rest_invalid_param'],
      [{ url, description: { toString: 'x' } }, 'rest_invalid_param'],
    ];
    for (const [body, code] of bad) {
      const answer = await t.request('POST', '/hooks/v1/webhooks', { as: admin, body });
      assert.equal([answer.status, answer.body?.code], [400, code], JSON.stringify(body));
    }
    const beyond = await t.request('POST', '/hooks/v1/webhooks', { as: admin, body: { url, from_position: 1e9 } });
    assert.match(beyond.body.data.params.from_position, /beyond the end of the log/);

    // A secret or id sent by the client is not taken; from_position is fixed once made.
    const made = await t.request('POST', '/hooks/v1/webhooks', {
      as: admin,
      body: { url, secret: 'whsec_Zm9yZ2Vk', id: 77, from_position: 0 },
    });
    assert.is(made.status, 201);
    assert.is.not(made.body.secret, 'whsec_Zm9yZ2Vk');
    assert.is.not(made.body.id, 77);
    assert.is(made.body.from_position, 0);
    const patched = await t.request('PATCH', `/hooks/v1/webhooks/${made.body.id}`, {
      as: admin,
      body: { from_position: 5, active: false, events: ['PostCreated'] },
    });
    assert.is(patched.status, 200);
    assert.equal([patched.body.from_position, patched.body.active, patched.body.events], [0, false, ['PostCreated']]);
    const nothing = await t.request('PATCH', `/hooks/v1/webhooks/${made.body.id}`, { as: admin, body: {} });
    assert.equal([nothing.status, nothing.body.modified], [200, patched.body.modified]);

    for (const [method, route] of [
      ['GET', '/hooks/v1/webhooks/999999'],
      ['PATCH', '/hooks/v1/webhooks/999999'],
      ['DELETE', '/hooks/v1/webhooks/999999'],
      ['GET', '/hooks/v1/webhooks/999999/deliveries'],
      ['POST', '/hooks/v1/webhooks/999999/deliveries/msg_x/redeliver'],
    ] as const) {
      const answer = await t.request(method, route, { as: admin, ...(method === 'GET' ? {} : { body: {} }) });
      assert.equal([answer.status, answer.body.code], [404, 'rest_webhook_invalid_id'], `${method} ${route}`);
    }
    for (const route of [
      '/hooks/v1/webhooks/abc',
      '/hooks/v1/webhooks/1/deliveries/../redeliver',
      '/hooks/v1/webhooks/1/deliveries/evil/redeliver',
    ]) {
      const answer = await t.request('POST', route, { as: admin, body: {} });
      assert.equal([answer.status, answer.body.code], [404, 'rest_no_route'], route);
    }
    const paging = await t.request('GET', `/hooks/v1/webhooks/${made.body.id}/deliveries?per_page=1000`, { as: admin });
    assert.equal([paging.status, paging.body.code], [400, 'rest_invalid_param']);
    const notDead = await t.request('POST', `/hooks/v1/webhooks/${made.body.id}/deliveries/msg_abc/redeliver`, {
      as: admin,
    });
    assert.equal([notDead.status, notDead.body.code], [409, 'rest_webhook_delivery_not_dead_lettered']);
    const editorDelete = await t.request('DELETE', `/hooks/v1/webhooks/${made.body.id}`, { as: editor });
    assert.is(editorDelete.status, 403);

    const deleted = await t.request('DELETE', `/hooks/v1/webhooks/${made.body.id}`, { as: admin });
    assert.equal(
      [deleted.status, deleted.body.deleted, deleted.body.previous.id, 'secret' in deleted.body.previous],
      [200, true, made.body.id, false],
    );
    const gone = await t.request('GET', `/hooks/v1/webhooks/${made.body.id}`, { as: admin });
    assert.is(gone.status, 404);
    // Ids are not reused.
    const next = await t.request('POST', '/hooks/v1/webhooks', { as: admin, body: { url } });
    assert.ok(next.body.id > made.body.id);
    // Each change is an event, the secret redacted in the audit log.
    const audit = await t.request('GET', '/audit/v1/events?stream=webhooks&per_page=100&order=asc', { as: admin });
    assert.equal(
      audit.body.map((e: any) => e.type),
      ['WebhookCreated', 'WebhookUpdated', 'WebhookDeleted', 'WebhookCreated'],
    );
    assert.is(audit.body[0].data.secret, '[redacted]');
  } finally {
    await t.close();
  }
});

test.run();
