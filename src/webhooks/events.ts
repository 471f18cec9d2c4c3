/**
 * Events of webhooks. Every webhook's settings are in one stream, `webhooks` (webhooks are few and rarely
 * changed: one stream keeps ids unique and lists them without a read model), and each webhook's deliveries in a
 * stream of its own, `webhook-deliveries-{id}`, appended by the one process delivering (src/webhooks/deliverer.ts).
 * Who and when are in the metadata; docs/events.md is the catalogue.
 */
import type { DomainEvent } from '../core/commandHandler';

export const WEBHOOKS_STREAM = 'webhooks';
/** Delivery records are never delivered themselves: a webhook on `*` would otherwise feed itself for ever. */
export const DELIVERIES_STREAM_PREFIX = 'webhook-deliveries-';
export const deliveriesStreamId = (id: number): string => `${DELIVERIES_STREAM_PREFIX}${id}`;

/** What a webhook is subscribed to and where it delivers. */
export interface WebhookSubscription {
  url: string;
  /** Event types, or `*` for every one. */
  events: string[];
  /** Stream-name prefixes (`content-`, `attachment-12`); empty: every stream. */
  streams: string[];
  description: string;
}

export interface WebhookCreated extends WebhookSubscription {
  id: number;
  active: boolean;
  /** Deliveries start with the first event after this log position (0: the whole log). */
  fromPosition: number;
  /** `whsec_<base64>`: the key deliveries are signed with. Shown once, in the creation's answer; redacted in the audit log. */
  secret: string;
  /** ISO 8601 UTC. */
  created: string;
}

export interface WebhookUpdated {
  id: number;
  /** Only what changed. */
  changes: Partial<WebhookSubscription & { active: boolean }>;
  modified: string;
}

export interface WebhookDeleted {
  id: number;
}

/** Deliveries stopped: a delivery was dead-lettered. */
export interface WebhookDisabled {
  id: number;
  reason: 'dead_letter';
  delivery: string;
}

/** The dead-lettered delivery is to be tried again: the webhook is active again and resumes with it. */
export interface WebhookRedeliveryRequested {
  id: number;
  delivery: string;
}

export type WebhookEvent =
  | DomainEvent<'WebhookCreated', WebhookCreated>
  | DomainEvent<'WebhookUpdated', WebhookUpdated>
  | DomainEvent<'WebhookDeleted', WebhookDeleted>
  | DomainEvent<'WebhookDisabled', WebhookDisabled>
  | DomainEvent<'WebhookRedeliveryRequested', WebhookRedeliveryRequested>;

// --- deliveries ------------------------------------------------------------------------------------------------

/** The event a delivery carries, as the log names it. */
export interface DeliveredEventRef {
  id: string;
  position: number;
  type: string;
  stream: string;
}

/** What every delivery record holds. */
interface DeliveryRecordBase {
  webhook: number;
  /** The delivery's id, sent as `webhook-id`: `msg_{event id}`, the same on every attempt. */
  delivery: string;
  event: DeliveredEventRef;
  /** 1-based number of the attempt the record is about. */
  attempt: number;
  /** ISO 8601 UTC of the delivery's first attempt (of its latest round, after a redelivery). */
  firstAttemptAt: string;
  /** ISO 8601 UTC of this attempt. */
  attemptedAt: string;
  /** The receiver's HTTP status; null when none came back (refused, timed out, unreachable). */
  status: number | null;
  latencyMs: number;
  /** Why it failed, for people; null on success. */
  error: string | null;
  /**
   * Where the webhook's deliveries resume: every event the webhook takes up to this position (inclusive) was
   * delivered. On a success, the event's own position.
   */
  checkpoint: number;
}

export type WebhookDeliverySucceeded = DeliveryRecordBase;
export interface WebhookDeliveryFailed extends DeliveryRecordBase {
  /** ISO 8601 UTC of the next attempt. */
  nextAttemptAt: string;
}
export type WebhookDeliveryDeadLettered = DeliveryRecordBase;

export type DeliveryRecordEvent =
  | DomainEvent<'WebhookDeliverySucceeded', WebhookDeliverySucceeded>
  | DomainEvent<'WebhookDeliveryFailed', WebhookDeliveryFailed>
  | DomainEvent<'WebhookDeliveryDeadLettered', WebhookDeliveryDeadLettered>;

export const deliveryIdOf = (eventId: string): string => `msg_${eventId}`;
