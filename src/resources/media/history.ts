/**
 * `GET /core/v2/media/{id}/history` (an extension to WordPress, see docs/history.md): every event of the
 * attachment's stream, oldest first, with who, when and the fields it changed. Seeing it takes the right
 * to edit the attachment, as for posts.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import type { RecordedEvent } from '../../ports/eventStore';
import { InvalidValue, NotFound, NotPermitted } from '../../core/errors';
import { collectionResult, linkQuery } from '../../rest/collection';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { MediaDoc } from '../../../projections/media';
import { historyArgs, historyEntrySchema, historyPage } from '../history/routes';
import { happenedBy } from '../history/fold';
import mediaProjection from '../../../projections/media';
import { parseRestDate } from '../../text/dates';
import type { FieldChange, HistoryEntry } from '../history/fold';
import { evolveMedia, initialMediaState } from './decider';
import type { MediaState } from './decider';
import { attachmentStreamId } from './events';
import type { MediaEvent } from './events';

/** Every event of an attachment's stream with the fields it changed, oldest first (folded with the decider's evolve). */
export function mediaHistoryOf(events: readonly RecordedEvent[]): HistoryEntry[] {
  let state: MediaState = initialMediaState();
  return events.map((event) => {
    const before = (state.attachment ?? {}) as Record<string, unknown>;
    state = evolveMedia(state, event as unknown as MediaEvent);
    const after = (state.attachment ?? {}) as Record<string, unknown>;
    const diff: Record<string, FieldChange> = {};
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const from = before[key] ?? null;
      const to = after[key] ?? null;
      if (JSON.stringify(from) !== JSON.stringify(to)) diff[key] = { from, to };
    }
    return {
      revision: event.revision,
      position: event.position,
      type: event.type,
      time: event.metadata.at,
      user: event.metadata.userId ?? null,
      request_id: event.metadata.requestId,
      diff,
    };
  });
}

export function mediaHistoryRoute(
  site: Site,
  load: (ctx: HandlerContext) => Promise<MediaDoc | null>,
  canEdit: (actor: Actor | null, doc: MediaDoc) => Promise<boolean>,
): RouteDefinition {
  return {
    namespace: 'core/v2',
    path: '/core/v2/media/(?P<id>[\\d]+)/history',
    schema: historyEntrySchema,
    endpoints: [
      {
        methods: ['GET'],
        args: historyArgs(),
        permission: async (ctx) => {
          const doc = await load(ctx);
          if (!doc) throw new NotFound('attachment');
          if (await canEdit(ctx.actor, doc)) return true;
          throw historyRefusal(ctx.actor);
        },
        handle: async (ctx) => {
          const id = Number(ctx.params.id);
          const { entries, paging } = historyPage(
            mediaHistoryOf(await site.store.readStream(attachmentStreamId(id))),
            ctx.params,
          );
          const body = entries.map((entry) => ({
            ...entry,
            _links: entry.user
              ? { author: [{ embeddable: true, href: `${site.apiRoot}core/v2/users/${entry.user}` }] }
              : {},
          }));
          return collectionResult(body, paging, `${site.apiRoot}core/v2/media/${id}/history`, linkQuery(ctx));
        },
      },
    ],
  };
}

/**
 * The attachment's read-model document as it was at `asOfMs` (`GET /core/v2/media/{id}?as_of=…`, as posts have
 * it): its stream folded up to the last event that had happened by then; null before it existed.
 */
export function mediaDocumentAsOf(events: readonly RecordedEvent[], asOfMs: number): MediaDoc | null {
  let last = -1;
  events.forEach((event, i) => {
    if (happenedBy(event, asOfMs)) last = i;
  });
  let doc: MediaDoc | null = null;
  for (const event of events.slice(0, last + 1)) {
    if ((mediaProjection.handles as readonly string[]).includes(event.type)) doc = mediaProjection.evolve(doc, event);
  }
  return doc;
}

/** Seeing an attachment's past takes the right to edit it, as for posts. */
const historyRefusal = (actor: Actor | null): NotPermitted =>
  new NotPermitted('attachment', 'readHistory', actor !== null);

/** The attachment at the `as_of` moment, for one who may edit it (earlier states may never have been public). */
export async function mediaAsOf(
  site: Site,
  id: number,
  asOf: string,
  actor: Actor | null,
  canEdit: boolean,
): Promise<MediaDoc> {
  if (!canEdit) throw historyRefusal(actor);
  const ms = parseRestDate(asOf, site.settings.timezone);
  if (ms === null) throw new InvalidValue('attachment', ['as_of'], 'unparsable');
  const doc = mediaDocumentAsOf(await site.store.readStream(attachmentStreamId(id)), ms);
  if (!doc) throw new NotFound('attachment');
  return doc;
}
