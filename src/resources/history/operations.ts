/**
 * History operations, callable without HTTP: an item's events with their diffs, the item at a past moment,
 * and restoring a revision (an ordinary update, so the write rules and revisioning are the usual ones).
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canEditItem, capsOfPostType } from '../../access/capabilities';
import { InvalidValue, NotFound, NotPermitted } from '../../core/errors';
import { parseRestDate } from '../../text/dates';
import { contentStreamId } from '../content/events';
import type { PostType } from '../content/events';
import { updateItem } from '../content/operations';
import type { WriteOutcome } from '../content/operations';
import type { ContentDoc } from '../../../projections/content';
import { documentAsOf, historyOf } from './fold';
import type { HistoryEntry } from './fold';

/** The item's whole stream, read from the event store (the source of truth), oldest first. */
export const itemEvents = (site: Site, id: number) => site.store.readStream(contentStreamId(id));

export async function itemHistory(site: Site, id: number): Promise<HistoryEntry[]> {
  return historyOf(await itemEvents(site, id));
}

/** Seeing an item's past takes the right to edit it: earlier states may hold text that was never public. */
export function historyRefusal(actor: Actor | null, doc: ContentDoc): NotPermitted | null {
  const caps = capsOfPostType(doc.type);
  if (canEditItem(actor, caps, { author: doc.author, status: doc.status, trashedFrom: doc.trashed_from })) return null;
  return new NotPermitted('post', 'readHistory', actor !== null, { postType: doc.type });
}

/**
 * The item as it was at `asOf` (a date-time, in the site's time zone unless it carries an offset): folded from its
 * stream up to that moment. `current` is the live document (found, and readable by `actor`); seeing its past takes
 * the right to see its history.
 */
export async function itemAsOf(
  site: Site,
  actor: Actor | null,
  current: ContentDoc,
  asOf: string,
): Promise<ContentDoc> {
  const refusal = historyRefusal(actor, current);
  if (refusal) throw refusal;
  const at = parseRestDate(asOf, site.settings.timezone);
  if (at === null) throw new InvalidValue('post', ['as_of'], 'unparsable');
  const doc = documentAsOf(await itemEvents(site, current.id), at);
  if (!doc) throw new NotFound('post');
  return doc;
}

export interface RevisionText {
  title: string;
  content: string;
  excerpt: string;
}

/**
 * Restores a revision's title, content and excerpt through the normal update, so the item gets a new
 * revision (unless its text already equals the revision, when WordPress makes none either).
 */
export function restoreRevision(
  site: Site,
  postType: PostType,
  id: number,
  revision: RevisionText,
  actor: Actor,
  requestId: string,
): Promise<WriteOutcome> {
  // A reusable block has no excerpt to restore.
  const text =
    postType === 'wp_block'
      ? { title: revision.title, content: revision.content }
      : { title: revision.title, content: revision.content, excerpt: revision.excerpt };
  return updateItem(site, postType, id, text, actor, requestId);
}
