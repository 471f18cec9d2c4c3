/**
 * Events of comments (`comment-{id}`; ids from their own `comments` sequence, as WordPress's comments table
 * numbers them apart from posts). Who and when are in the event metadata; `docs/events.md` is the catalogue.
 */
import type { DomainEvent } from '../../core/commandHandler';

/**
 * WordPress's names on read; a write's `approve` is stored as `approved`. `post-trashed`: hidden with its post while
 * the post is in the trash (CommentPostTrashed), never set by a write.
 */
export const COMMENT_STATUSES = ['approved', 'hold', 'spam', 'trash', 'post-trashed'] as const;
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
  /** Set when the comment went with its post (the post was deleted for good); absent when deleted on its own. */
  withPost?: true;
}

/** The comment's post went to the trash: the comment is hidden with it (`post-trashed`) and remembers its status. */
export interface CommentPostTrashed {
  id: number;
  post: number;
  /** The status it had, which the post's restore gives back. */
  previousStatus: CommentStatus;
}

/** The comment's post left the trash: the comment has the status it had when the post was trashed. */
export interface CommentPostRestored {
  id: number;
  post: number;
  status: CommentStatus;
}

export type CommentEvent =
  | DomainEvent<'CommentCreated', CommentCreated>
  | DomainEvent<'CommentUpdated', CommentUpdated>
  | DomainEvent<'CommentDeleted', CommentDeleted>
  | DomainEvent<'CommentPostTrashed', CommentPostTrashed>
  | DomainEvent<'CommentPostRestored', CommentPostRestored>;

export const COMMENT_EVENT_TYPES = [
  'CommentCreated',
  'CommentUpdated',
  'CommentDeleted',
  'CommentPostTrashed',
  'CommentPostRestored',
] as const;
export const commentStreamId = (id: number): string => `comment-${id}`;
