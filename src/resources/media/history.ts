/**
 * `GET /core/v2/media/{id}/history` (an extension to WordPress, see docs/history.md): every event of the
 * attachment's stream, oldest first, with who, when and the fields it changed. Seeing it takes the right
 * to edit the attachment, as for posts.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import type { RecordedEvent } from '../../ports/eventStore';
import { authorizationStatus, restError } from '../../rest/errors';
import { assertPageInRange, collectionResult } from '../../rest/collection';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { MediaDoc } from '../../../projections/media';
import { historyEntrySchema } from '../history/routes';
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
    return { revision: event.revision, position: event.position, type: event.type, time: event.metadata.at, user: event.metadata.userId ?? null, request_id: event.metadata.requestId, diff };
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
        args: {
          id: { description: 'Unique identifier of the item.', type: 'integer' },
          page: { description: 'Page of the collection to return.', type: 'integer', default: 1, minimum: 1 },
          per_page: { description: 'Most events to return in one page.', type: 'integer', default: 10, minimum: 1, maximum: 100 },
          order: { description: 'Oldest first (asc) or newest first (desc).', type: 'string', default: 'asc', enum: ['asc', 'desc'] },
        },
        permission: async (ctx) => {
          const doc = await load(ctx);
          if (!doc) return restError('rest_post_invalid_id', 'Invalid post ID.', 404);
          if (await canEdit(ctx.actor, doc)) return true;
          return restError('rest_cannot_read', 'Sorry, you are not allowed to view the history of this attachment.', authorizationStatus(ctx.actor?.id ?? null));
        },
        handle: async (ctx) => {
          const id = Number(ctx.params.id);
          const { page, per_page: perPage, order } = ctx.params as { page: number; per_page: number; order: 'asc' | 'desc' };
          const entries = mediaHistoryOf(await site.store.readStream(attachmentStreamId(id)));
          if (order === 'desc') entries.reverse();
          const total = entries.length;
          assertPageInRange({ total, page, perPage });
          const body = entries.slice((page - 1) * perPage, page * perPage).map((entry) => ({ ...entry, _links: entry.user ? { author: [{ embeddable: true, href: `${site.apiRoot}core/v2/users/${entry.user}` }] } : {} }));
          return collectionResult(body, { total, page, perPage }, `${site.apiRoot}core/v2/media/${id}/history`, ctx.request.query);
        },
      },
    ],
  };
}
