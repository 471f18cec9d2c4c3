/** The pure parts of webhooks: the decider, which events a webhook takes, the backoff, where deliveries resume, URLs. */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rejectsWith } from '../support/domainErrors';
import { webhooksDecider } from '../../src/webhooks/decider';
import type { WebhookCommand, WebhooksState } from '../../src/webhooks/decider';
import type { WebhookEvent } from '../../src/webhooks/events';
import { backoffDelay, resumePoint, summarize, takesEvent } from '../../src/webhooks/deliveries';
import { EVENT_TYPES } from '../../src/webhooks/eventTypes';
import { refusedWebhookUrl } from '../../src/webhooks/destination';
import { parseAllowedHosts } from '../../src/adapters/http/destinations';
import type { RecordedEvent } from '../../src/ports/eventStore';

const test = suite('webhooks (pure)');

const NOW = '2026-01-01T00:00:00.000Z';
const create = (fromPosition = 0): WebhookCommand => ({
  kind: 'create',
  subscription: { url: 'https://hooks.example.test/', events: ['*'], streams: [], description: '' },
  active: true,
  fromPosition,
  secret: 'whsec_c2VjcmV0',
  now: NOW,
});

function run(commands: WebhookCommand[]): { state: WebhooksState; events: WebhookEvent[] } {
  let state = webhooksDecider.initialState();
  const events: WebhookEvent[] = [];
  for (const command of commands) {
    for (const event of webhooksDecider.decide(command, state)) {
      events.push(event);
      state = webhooksDecider.evolve(state, event);
    }
  }
  return { state, events };
}

test('ids are given in order and never reused', () => {
  const { state, events } = run([create(), create(), { kind: 'delete', id: 2 }, create()]);
  assert.equal(
    events.map((e) => e.type),
    ['WebhookCreated', 'WebhookCreated', 'WebhookDeleted', 'WebhookCreated'],
  );
  assert.equal([...state.webhooks.keys()], [1, 3]);
});

test('an update records only what changed, and nothing when nothing did', () => {
  const { events } = run([
    create(),
    { kind: 'update', id: 1, changes: { events: ['*'], active: false }, now: NOW },
    { kind: 'update', id: 1, changes: { active: false }, now: NOW },
  ]);
  assert.equal(
    events.slice(1).map((e) => e.data),
    [{ id: 1, changes: { active: false }, modified: NOW }],
  );
  rejectsWith(() => run([{ kind: 'update', id: 9, changes: {}, now: NOW }]), { code: 'not_found', subject: 'webhook' });
});

test('dead-lettering disables once; only that delivery is redelivered, which switches the webhook on again', () => {
  const disabled = run([
    create(),
    { kind: 'disable', id: 1, delivery: 'msg_a' },
    { kind: 'disable', id: 1, delivery: 'msg_a' },
  ]);
  assert.equal(
    disabled.events.map((e) => e.type),
    ['WebhookCreated', 'WebhookDisabled'],
  );
  assert.equal([disabled.state.webhooks.get(1)!.active, disabled.state.webhooks.get(1)!.deadLetter], [false, 'msg_a']);
  rejectsWith(() => webhooksDecider.decide({ kind: 'redeliver', id: 1, delivery: 'msg_b' }, disabled.state), {
    code: 'invalid_transition',
    subject: 'webhookDelivery',
    from: 'notDeadLettered',
    to: 'redelivered',
  });
  const [again] = webhooksDecider.decide({ kind: 'redeliver', id: 1, delivery: 'msg_a' }, disabled.state);
  const state = webhooksDecider.evolve(disabled.state, again!);
  assert.equal([state.webhooks.get(1)!.active, state.webhooks.get(1)!.disabledReason], [true, null]);
  // A deleted webhook is not disabled (the deliverer may learn of the deletion late).
  assert.equal(webhooksDecider.decide({ kind: 'disable', id: 5, delivery: 'msg_a' }, state), []);
});

test('which events a webhook takes: types, stream prefixes, never delivery records', () => {
  const event = (type: string, streamId: string) => ({ type, streamId });
  assert.ok(takesEvent({ events: ['*'], streams: [] }, event('PostCreated', 'content-1')));
  assert.not.ok(takesEvent({ events: ['*'], streams: [] }, event('WebhookDeliverySucceeded', 'webhook-deliveries-1')));
  assert.ok(takesEvent({ events: ['TermCreated'], streams: [] }, event('TermCreated', 'term-3')));
  assert.not.ok(takesEvent({ events: ['TermCreated'], streams: [] }, event('TermDeleted', 'term-3')));
  assert.ok(takesEvent({ events: ['*'], streams: ['content-', 'user-2'] }, event('UserUpdated', 'user-2')));
  assert.not.ok(takesEvent({ events: ['*'], streams: ['content-', 'user-2'] }, event('UserUpdated', 'user-3')));
});

test('backoff: grows exponentially to its bound, half of it jitter', () => {
  const policy = { initialMs: 1_000, maxMs: 60_000 };
  assert.equal(
    [1, 2, 3, 4].map((n) => backoffDelay(n, policy, () => 0)),
    [500, 1_000, 2_000, 4_000],
  );
  assert.equal(
    [1, 2, 3].map((n) => backoffDelay(n, policy, () => 0.999999)),
    [1_000, 2_000, 4_000],
  );
  assert.is(
    backoffDelay(40, policy, () => 0),
    30_000,
  );
  assert.is(
    backoffDelay(10_000, policy, () => 0.5),
    45_000,
  );
});

const record = (type: string, data: Record<string, unknown>, revision = 0): RecordedEvent =>
  ({
    id: 'r',
    streamId: 'webhook-deliveries-1',
    revision,
    position: 99,
    type,
    data,
    metadata: { userId: null, requestId: 'x', at: NOW },
  }) as RecordedEvent;
const base = {
  webhook: 1,
  delivery: 'msg_e',
  event: { id: 'e', position: 7, type: 'PostCreated', stream: 'content-1' },
  firstAttemptAt: NOW,
  attemptedAt: NOW,
  status: 500,
  latencyMs: 3,
  error: 'the receiver answered 500',
};

test('where deliveries resume: from the records, a failure continuing its attempts', () => {
  const now = Date.parse(NOW) + 5_000;
  assert.equal(resumePoint({ fromPosition: 4 }, undefined, now), { checkpoint: 4, pending: null });
  assert.equal(
    resumePoint(
      { fromPosition: 4 },
      record('WebhookDeliverySucceeded', { ...base, attempt: 2, status: 200, error: null, checkpoint: 7 }),
      now,
    ),
    { checkpoint: 7, pending: null },
  );
  const failed = record('WebhookDeliveryFailed', {
    ...base,
    attempt: 3,
    checkpoint: 6,
    nextAttemptAt: '2026-01-01T00:00:09.000Z',
  });
  assert.equal(resumePoint({ fromPosition: 4 }, failed, now), {
    checkpoint: 6,
    pending: { eventId: 'e', attempt: 4, firstAttemptAt: Date.parse(NOW), notBefore: Date.parse(NOW) + 9_000 },
  });
  const dead = record('WebhookDeliveryDeadLettered', { ...base, attempt: 9, checkpoint: 6 });
  assert.equal(resumePoint({ fromPosition: 4 }, dead, now), {
    checkpoint: 6,
    pending: { eventId: 'e', attempt: 1, firstAttemptAt: now, notBefore: now },
  });
  assert.equal(summarize(failed), {
    id: 'msg_e',
    event: base.event,
    status: 'failed',
    attempts: 3,
    response_status: 500,
    latency_ms: 3,
    error: 'the receiver answered 500',
    first_attempt: NOW,
    last_attempt: NOW,
    next_attempt: '2026-01-01T00:00:09.000Z',
  });
});

test('receiver URLs: http(s), no credentials, no loopback or private address unless allowed', () => {
  const none = parseAllowedHosts('');
  assert.is(refusedWebhookUrl('https://hooks.example.test/x', none), null);
  for (const url of [
    'http://127.0.0.1:9/',
    'http://localhost/',
    'http://api.localhost/',
    'http://[::1]/',
    'http://192.168.1.2/',
    'http://0x7f.1/',
  ]) {
    assert.match(refusedWebhookUrl(url, none) ?? '', /WEBHOOK_ALLOWED_HOSTS/, url);
  }
  assert.match(refusedWebhookUrl('ftp://example.test/', none) ?? '', /http or https/);
  assert.match(refusedWebhookUrl('https://a:b@example.test/', none) ?? '', /user name or password/);
  assert.match(refusedWebhookUrl('::', none) ?? '', /not a URL/);
  const loopback = parseAllowedHosts('127.0.0.1');
  assert.is(refusedWebhookUrl('http://127.0.0.1:9/', loopback), null);
  assert.match(refusedWebhookUrl('http://10.0.0.1/', loopback) ?? '', /WEBHOOK_ALLOWED_HOSTS/);
  assert.is(refusedWebhookUrl('http://localhost:8080/', parseAllowedHosts('localhost:8080')), null);
});

test('the event types a webhook may name are those of docs/events.md', () => {
  const docs = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
  const documented = new Set([...docs.matchAll(/^\| `([A-Z][A-Za-z]+)` \|/gm)].map((m) => m[1]!));
  const deliveryRecords = ['WebhookDeliverySucceeded', 'WebhookDeliveryFailed', 'WebhookDeliveryDeadLettered'];
  assert.equal([...EVENT_TYPES].sort(), [...documented].filter((type) => !deliveryRecords.includes(type)).sort());
});

test.run();
