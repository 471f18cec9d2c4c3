/**
 * Events of the content streams (`content-{id}`): posts, pages and reusable blocks (`wp_block`).
 * Each event names its post type so that projections can route it without knowing the stream's history.
 * Who and when are in the event metadata (userId, at); `docs/events.md` is the catalogue.
 */
import type { DomainEvent } from '../../core/commandHandler';

export type PostType = 'post' | 'page' | 'wp_block';

/** The stored fields of an item, named as WordPress's REST API names them. Raw (unrendered) text. */
export interface PostFields {
  title: string;
  content: string;
  excerpt: string;
  slug: string;
  status: string;
  password: string;
  author: number;
  featured_media: number;
  comment_status: 'open' | 'closed';
  ping_status: 'open' | 'closed';
  sticky: boolean;
  template: string;
  format: string;
  meta: { footnotes: string };
  categories: number[];
  tags: number[];
  parent: number;
  menu_order: number;
  /** Site-local wall-clock time, "YYYY-MM-DDTHH:MM:SS". */
  date: string;
  /** UTC, or null while a draft's date is floating (it follows its modification until fixed). */
  date_gmt: string | null;
  modified: string;
  modified_gmt: string;
  /** Fixed at creation: the item's permalink path then (`/slug/` when published, else `/?p=ID`). */
  guid: string;
}

export interface PostCreated {
  id: number;
  postType: PostType;
  post: PostFields;
}

export interface PostUpdated {
  id: number;
  postType: PostType;
  /** Only the fields whose values changed (modified dates always do). */
  changes: Partial<PostFields>;
}

/** A revision snapshot, appended with the update that made it (WordPress stores it after the update). */
export interface PostRevised {
  id: number;
  postType: PostType;
  revisionId: number;
  title: string;
  content: string;
  excerpt: string;
  /** The parent's modified time, which is the revision's date. */
  date: string;
  date_gmt: string;
}

export interface PostTrashed {
  id: number;
  postType: PostType;
  previousStatus: string;
  /** The slug after trashing (WordPress appends `__trashed`, freeing the original). */
  slug: string;
  modified: string;
  modified_gmt: string;
}

/** One autosave per user: a snapshot of unsaved edits, kept beside the item (the item itself is unchanged). */
export interface PostAutosaved {
  id: number;
  postType: PostType;
  autosaveId: number;
  /** Whose autosave it is (also the event's userId). */
  userId: number;
  title: string;
  content: string;
  excerpt: string;
  /** When it was saved, site-local and UTC. */
  date: string;
  date_gmt: string;
}

/** A user's autosave removed, because saving it would change nothing (WordPress answers rest_autosave_no_changes). */
export interface AutosaveDiscarded {
  id: number;
  postType: PostType;
  autosaveId: number;
  userId: number;
}

export interface PostDeleted {
  id: number;
  postType: PostType;
}

export type ContentEvent =
  | DomainEvent<'PostCreated', PostCreated>
  | DomainEvent<'PostUpdated', PostUpdated>
  | DomainEvent<'PostRevised', PostRevised>
  | DomainEvent<'PostTrashed', PostTrashed>
  | DomainEvent<'PostAutosaved', PostAutosaved>
  | DomainEvent<'AutosaveDiscarded', AutosaveDiscarded>
  | DomainEvent<'PostDeleted', PostDeleted>;

export const CONTENT_EVENT_TYPES = [
  'PostCreated',
  'PostUpdated',
  'PostRevised',
  'PostTrashed',
  'PostAutosaved',
  'AutosaveDiscarded',
  'PostDeleted',
] as const;

export const contentStreamId = (id: number): string => `content-${id}`;
