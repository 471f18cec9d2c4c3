/**
 * What is recorded of a keyed request in the log, and the pure pieces shared by the request guard (guard.ts) and the
 * `idempotency` projection: the per-user scope a key lives in, the events of a key's stream and how they fold, and
 * the resources a keyed request changed. Reading the `Idempotency-Key` header is the HTTP edge's (header.ts).
 */
import { createHash } from 'node:crypto';
import type { RecordedEvent } from '../../ports/eventStore';
import { CONTENT_EVENT_TYPES } from '../content/events';
import { USER_EVENT_TYPES } from '../users/events';
import { TERM_EVENT_TYPES } from '../terms/events';
import { MEDIA_EVENT_TYPES } from '../media/events';
import { MENU_EVENT_TYPES, MENU_ITEM_EVENT_TYPES } from '../menus/events';
import { COMMENT_EVENT_TYPES } from '../comments/events';
import { SETTINGS_EVENT_TYPES } from '../settings/events';
import { CONTACT_FORM_EVENT_TYPES } from '../contactForms/events';

/** The `idempotency` projection's collection: one document per key scope (projections/idempotency.ts). */
export const IDEMPOTENCY_COLLECTION = 'idempotency-keys';

/**
 * Where a user's key lives: a key is the user's own (another user sending the same key is another request). A hash,
 * so any key (quotes, slashes, 255 characters) gives a short, plain stream and document name.
 */
export function idempotencyScope(userId: number, key: string): string {
  return createHash('sha256').update(`${userId}\n${key}`).digest('hex').slice(0, 40);
}

export const idempotencyStream = (scope: string) => `idempotency-${scope}`;

/** Event types of the key streams (`idempotency-{scope}`). */
export const IDEMPOTENCY_EVENT_TYPES = [
  'IdempotencyKeyClaimed',
  'IdempotentResponseRecorded',
  'IdempotencyKeyReleased',
  'IdempotentRequestEnded',
] as const;

export interface IdempotencyKeyClaimed {
  scope: string;
  userId: number;
  key: string;
  fingerprint: string;
  method: string;
  path: string;
}

/** The first answer, as sent (after `_fields`, `_envelope` and `_embed`): replayed byte for byte. */
export interface IdempotentResponseRecorded {
  scope: string;
  status: number;
  headers: Record<string, string>;
  /** The body's JSON text; null for none. */
  body: string | null;
  /** Made after the request's own answer was lost (its process stopped, or it failed after appending). */
  recovered?: boolean;
}

/** The request ended without an answer to keep and without appending anything: the key is free for a retry. */
export interface IdempotencyKeyReleased {
  scope: string;
  status: number;
}

/**
 * The request ended without an answer to keep after appending events, or after an append whose outcome it could not
 * know: a retry answers from what they changed.
 */
export interface IdempotentRequestEnded {
  scope: string;
  status: number;
  /** Some append is known to have landed (false: only appends of unknown outcome). */
  appended: boolean;
}

/**
 * The events a keyed request appends that say what it changed: the resources' own events. They carry the key in
 * their metadata (`idempotencyKey`); the `idempotency` projection indexes them by key, which is how an answer lost
 * with its process is made again.
 */
export const RESOURCE_EVENT_TYPES: readonly string[] = [
  ...CONTENT_EVENT_TYPES,
  ...USER_EVENT_TYPES.filter((type) => type !== 'ApplicationPasswordUsed'),
  ...TERM_EVENT_TYPES,
  ...MEDIA_EVENT_TYPES,
  ...MENU_EVENT_TYPES,
  ...MENU_ITEM_EVENT_TYPES,
  ...COMMENT_EVENT_TYPES,
  ...SETTINGS_EVENT_TYPES,
  ...CONTACT_FORM_EVENT_TYPES,
];

/** A key's stream folded: the latest claim and what became of it. */
export interface KeyState {
  /** The stream's last revision ('no_stream' before the first claim): the next append expects it. */
  revision: number | 'no_stream';
  claim: {
    revision: number;
    /** When it was claimed, ms. */
    at: number;
    fingerprint: string;
    requestId: string;
  } | null;
  outcome: IdempotentResponseRecorded | null;
  ended: 'released' | 'appended' | null;
  /** Ended having appended events known to have landed. */
  appended: boolean;
}

export function foldKeyStream(events: readonly RecordedEvent[]): KeyState {
  const state: KeyState = { revision: 'no_stream', claim: null, outcome: null, ended: null, appended: false };
  for (const event of events) {
    state.revision = event.revision;
    if (event.type === 'IdempotencyKeyClaimed') {
      const data = event.data as IdempotencyKeyClaimed;
      state.claim = {
        revision: event.revision,
        at: Date.parse(event.metadata.at),
        fingerprint: data.fingerprint,
        requestId: event.metadata.requestId,
      };
      state.outcome = null;
      state.ended = null;
      state.appended = false;
    } else if (event.type === 'IdempotentResponseRecorded') state.outcome = event.data as IdempotentResponseRecorded;
    else if (event.type === 'IdempotencyKeyReleased') state.ended = 'released';
    else if (event.type === 'IdempotentRequestEnded') {
      state.ended = 'appended';
      state.appended = (event.data as IdempotentRequestEnded).appended !== false;
    }
  }
  return state;
}

/** The resource an event of a keyed request changed, as a route path of this API; null when it has no route of its own. */
export function resourcePathOf(event: { type: string; streamId: string; data: unknown }): string | null {
  const data = (event.data ?? {}) as { id?: unknown; postType?: unknown; taxonomy?: unknown };
  const id = typeof data.id === 'number' ? data.id : null;
  if (event.type === 'SiteSettingsChanged') return '/core/v2/settings';
  if (id === null) return null;
  if (event.streamId.startsWith('content-'))
    return data.postType === 'post' ? `/core/v2/posts/${id}` : data.postType === 'page' ? `/core/v2/pages/${id}` : null;
  if (event.streamId.startsWith('attachment-')) return `/core/v2/media/${id}`;
  if (event.streamId.startsWith('user-')) return `/core/v2/users/${id}`;
  if (event.streamId.startsWith('term-'))
    return data.taxonomy === 'category'
      ? `/core/v2/categories/${id}`
      : data.taxonomy === 'post_tag'
        ? `/core/v2/tags/${id}`
        : null;
  if (event.streamId.startsWith('menu-item-')) return `/core/v2/menu-items/${id}`;
  if (event.streamId.startsWith('menu-')) return `/core/v2/menus/${id}`;
  if (event.streamId.startsWith('comment-')) return `/core/v2/comments/${id}`;
  if (event.streamId.startsWith('contact-form-') && !event.streamId.startsWith('contact-form-submission-'))
    return `/contact-form/v1/contact-forms/${id}`;
  return null;
}
