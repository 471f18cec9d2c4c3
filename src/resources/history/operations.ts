/**
 * History operations, callable without HTTP: an item's events with their diffs, the item at a past moment,
 * and restoring a revision (an ordinary update, so the write rules and revisioning are the usual ones).
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canEditItem, capsOfPostType } from '../../access/capabilities';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { ok } from '../../rest/route';
import type { HandlerContext, RestResult } from '../../rest/route';
import type { ResourceSchema } from '../../rest/schema';
import { parseRestDate } from '../../text/dates';
import { contentStreamId } from '../content/events';
import type { PostType } from '../content/events';
import { updateItem } from '../content/operations';
import type { WriteOutcome } from '../content/operations';
import { presentContent, restBaseOf } from '../content/present';
import { itemExtras } from '../content/extras';
import type { ContentDoc } from '../../../projections/content';
import { documentAsOf, historyOf } from './fold';
import type { HistoryEntry } from './fold';

/** The item's whole stream, read from the event store (the source of truth), oldest first. */
export const itemEvents = (site: Site, id: number) => site.store.readStream(contentStreamId(id));

export async function itemHistory(site: Site, id: number): Promise<HistoryEntry[]> {
  return historyOf(await itemEvents(site, id));
}

/** Seeing an item's past takes the right to edit it: earlier states may hold text that was never public. */
export function historyRefusal(actor: Actor | null, doc: ContentDoc): RestError | null {
  const caps = capsOfPostType(doc.type);
  if (canEditItem(actor, caps, { author: doc.author, status: doc.status, trashedFrom: doc.trashed_from })) return null;
  return restError(
    'rest_cannot_read',
    `Sorry, you are not allowed to view the history of this ${doc.type}.`,
    authorizationStatus(actor?.id ?? null),
  );
}

/** The `as_of` argument of a single item: a date-time, in the site's time zone unless it carries an offset. */
export const asOfArg = {
  description:
    'Show the item as it was at this moment (site time zone unless an offset is given). An extension to WordPress.',
  type: 'string' as const,
  format: 'date-time',
};

/**
 * `GET /core/v2/{posts,pages}/{id}?as_of=…`: the item folded from its stream up to that moment, presented
 * like the live item. `current` is the live document the route already found (and checked readable).
 */
export async function itemAsOf(
  site: Site,
  ctx: HandlerContext,
  current: ContentDoc,
  schema: ResourceSchema,
): Promise<RestResult> {
  const refusal = historyRefusal(ctx.actor, current);
  if (refusal) throw refusal;
  const asOf = parseRestDate(String(ctx.params.as_of), site.settings.timezone);
  if (asOf === null) {
    throw restError('rest_invalid_param', 'Invalid parameter(s): as_of', 400, {
      params: { as_of: 'Invalid date.' },
      details: { as_of: { code: 'rest_invalid_date', message: 'Invalid date.', data: null } },
    });
  }
  const doc = documentAsOf(await itemEvents(site, current.id), asOf);
  if (!doc) throw restError('rest_post_invalid_id', 'Invalid post ID.', 404);
  const context = ctx.params.context as 'view' | 'edit' | 'embed';
  // As for the live item: protected text shows in edit context (the caller may edit) or with the password.
  const accepted = doc.password === '' || context === 'edit' || ctx.params.password === doc.password;
  const item = presentContent(doc, schema, {
    context,
    passwordAccepted: accepted,
    siteUrl: site.settings.siteUrl,
    apiRoot: site.apiRoot,
    timezone: site.settings.timezone,
    restBase: restBaseOf(doc.type),
    ...(await itemExtras(site, ctx, doc, context)),
  });
  return ok(item, { Link: `<${item.link ?? ''}>; rel="alternate"; type=text/html` });
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
