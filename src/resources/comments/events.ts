/**
 * Events of comments (`comment-{id}`; ids from their own `comments` sequence, as WordPress's comments table
 * numbers them apart from posts). Who and when are in the event metadata; `docs/events.md` is the catalogue.
 */
import type { DomainEvent } from '../../core/commandHandler';

/** WordPress's names on read; a write's `approve` is stored as `approved`. */
export const COMMENT_STATUSES = ['approved', 'hold', 'spam', 'trash'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

export interface CommentFields {
  post: number;
  /** The comment this one answers, 0 at the top of the thread. */
  parent: number;
  /** The signed-in user who wrote it, 0 for none. */
  author: number;
  author_name: string;
  author_email: string;
  author_url: string;
  author_ip: string;
  author_user_agent: string;
  /** Site-local and UTC times (`YYYY-MM-DDTHH:MM:SS`). */
  date: string;
  date_gmt: string;
  /** As stored (after the HTML filter for authors without unfiltered_html). */
  content: string;
  status: CommentStatus;
  type: 'comment';
  /** The status before the comment was trashed or marked spam, which `untrash`/`unspam` restore; null otherwise. */
  status_before: CommentStatus | null;
}

export interface CommentCreated {
  id: number;
  comment: CommentFields;
}

export interface CommentUpdated {
  id: number;
  /** Only the fields whose values changed. */
  changes: Partial<CommentFields>;
}

export interface CommentDeleted {
  id: number;
  post: number;
}

export type CommentEvent = DomainEvent<'CommentCreated', CommentCreated> | DomainEvent<'CommentUpdated', CommentUpdated> | DomainEvent<'CommentDeleted', CommentDeleted>;

export const COMMENT_EVENT_TYPES = ['CommentCreated', 'CommentUpdated', 'CommentDeleted'] as const;
export const commentStreamId = (id: number): string => `comment-${id}`;
