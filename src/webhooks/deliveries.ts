/**
 * Pure parts of delivering: which events a webhook takes, how long to wait before the next attempt, where a
 * webhook's deliveries resume (from its latest delivery record) and how deliveries are shown (from their records).
 */
import type { RecordedEvent } from '../ports/eventStore';
import type { Webhook } from './decider';
import { DELIVERIES_STREAM_PREFIX } from './events';
import type { DeliveryRecordEvent, WebhookDeliveryFailed } from './events';

/** True when the webhook delivers this event: its type and stream are subscribed to, and it is no delivery record. */
export function takesEvent(
  webhook: Pick<Webhook, 'events' | 'streams'>,
  event: Pick<RecordedEvent, 'type' | 'streamId'>,
): boolean {
  if (event.streamId.startsWith(DELIVERIES_STREAM_PREFIX)) return false;
  if (!webhook.events.includes('*') && !webhook.events.includes(event.type)) return false;
  return webhook.streams.length === 0 || webhook.streams.some((prefix) => event.streamId.startsWith(prefix));
}

export interface BackoffPolicy {
  /** The wait after the first failed attempt, before jitter (ms). */
  initialMs: number;
  /** The longest wait (ms). */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 5_000, maxMs: 60 * 60_000 };

/**
 * The wait after failed attempt `attempt` (1-based): exponential (`initialMs` doubled each time, at most `maxMs`),
 * with "equal jitter": half of it fixed, half random, so that receivers coming back after an outage are not hit by
 * every sender at once while the wait still grows. `random` gives a number in [0, 1).
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 52);
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Where a webhook resumes, from its latest delivery record (none: from its `fromPosition`). */
export interface ResumePoint {
  /** Every event the webhook takes up to here (inclusive) was delivered. */
  checkpoint: number;
  /** The delivery to go on with first, with its attempt count and when to try: after a failure, or a redelivery. */
  pending: { eventId: string; attempt: number; firstAttemptAt: number; notBefore: number } | null;
}

export function resumePoint(
  webhook: Pick<Webhook, 'fromPosition'>,
  latest: RecordedEvent | undefined,
  now: number,
): ResumePoint {
  if (!latest) return { checkpoint: webhook.fromPosition, pending: null };
  const record = latest as unknown as DeliveryRecordEvent;
  const { checkpoint, event } = record.data;
  switch (record.type) {
    case 'WebhookDeliverySucceeded':
      return { checkpoint, pending: null };
    case 'WebhookDeliveryFailed': {
      const data = record.data as WebhookDeliveryFailed;
      return {
        checkpoint,
        pending: {
          eventId: event.id,
          attempt: data.attempt + 1,
          firstAttemptAt: Date.parse(data.firstAttemptAt),
          notBefore: Date.parse(data.nextAttemptAt),
        },
      };
    }
    case 'WebhookDeliveryDeadLettered':
      // The webhook runs again (redelivered, or switched on): a new round of attempts for the same delivery.
      return { checkpoint, pending: { eventId: event.id, attempt: 1, firstAttemptAt: now, notBefore: now } };
    default:
      return { checkpoint: webhook.fromPosition, pending: null };
  }
}

export type DeliveryStatus = 'delivered' | 'failed' | 'dead_lettered';

/** A delivery as `/hooks/v1/webhooks/{id}/deliveries` shows it: its latest record. */
export interface DeliverySummary {
  id: string;
  event: { id: string; position: number; type: string; stream: string };
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  latency_ms: number;
  error: string | null;
  first_attempt: string;
  last_attempt: string;
  /** When the next attempt is due; null once delivered or dead-lettered. */
  next_attempt: string | null;
}

const STATUS: Record<DeliveryRecordEvent['type'], DeliveryStatus> = {
  WebhookDeliverySucceeded: 'delivered',
  WebhookDeliveryFailed: 'failed',
  WebhookDeliveryDeadLettered: 'dead_lettered',
};

export function summarize(latest: RecordedEvent): DeliverySummary | null {
  const record = latest as unknown as DeliveryRecordEvent;
  const status = STATUS[record.type];
  if (status === undefined) return null;
  const {
    delivery,
    event,
    attempt,
    status: responseStatus,
    latencyMs,
    error,
    firstAttemptAt,
    attemptedAt,
  } = record.data;
  return {
    id: delivery,
    event: { ...event },
    status,
    attempts: attempt,
    response_status: responseStatus,
    latency_ms: latencyMs,
    error,
    first_attempt: firstAttemptAt,
    last_attempt: attemptedAt,
    next_attempt: record.type === 'WebhookDeliveryFailed' ? record.data.nextAttemptAt : null,
  };
}
