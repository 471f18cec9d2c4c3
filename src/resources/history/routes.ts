/**
 * `GET /core/v2/{posts,pages,blocks}/{id}/history` (an extension to WordPress, see docs/history.md): every event of
 * the item's stream, oldest first, with who, when and the fields it changed.
 */
import type { Site } from '../../site';
import { NotFound } from '../../core/errors';
import { restErrorOf } from '../../rest/domainErrors';
import { assertPageInRange, collectionResult, linkQuery } from '../../rest/collection';
import { ok } from '../../rest/route';
import type { HandlerContext, RestResult, RouteDefinition } from '../../rest/route';
import type { ResourceSchema } from '../../rest/schema';
import type { ArgSchema } from '../../rest/args/schema';
import { collectionParams } from '../../rest/collectionParams';
import type { ContentDoc } from '../../../projections/content';
import type { PostType } from '../content/events';
import { presentContent, restBaseOf } from '../content/present';
import { itemExtras } from '../content/extras';
import { historyRefusal, itemAsOf, itemHistory } from './operations';
import type { HistoryEntry } from './fold';

const ALL = ['view', 'edit', 'embed'];

export const historyEntrySchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'history-entry',
  type: 'object',
  properties: {
    revision: {
      description: "0-based index of the event in the item's stream.",
      type: 'integer',
      context: ALL,
      readonly: true,
    },
    position: {
      description: 'Position of the event in the global event log.',
      type: 'integer',
      context: ALL,
      readonly: true,
    },
    type: { description: 'Event type.', type: 'string', context: ALL, readonly: true },
    time: {
      description: 'When it happened, ISO 8601 UTC.',
      type: 'string',
      format: 'date-time',
      context: ALL,
      readonly: true,
    },
    user: {
      description: 'Identifier of the acting user; null for the system.',
      type: ['integer', 'null'],
      context: ALL,
      readonly: true,
    },
    request_id: {
      description: 'Identifier of the request that made it.',
      type: 'string',
      context: ALL,
      readonly: true,
    },
    diff: {
      description: "The item's fields it changed: {field: {from, to}}.",
      type: 'object',
      context: ALL,
      readonly: true,
    },
    revision_id: { description: 'The revision it made (PostRevised).', type: 'integer', context: ALL, readonly: true },
    autosave_id: { description: 'The autosave it wrote or dropped.', type: 'integer', context: ALL, readonly: true },
  },
} as ResourceSchema;

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
export async function presentItemAsOf(
  site: Site,
  ctx: HandlerContext,
  current: ContentDoc,
  schema: ResourceSchema,
): Promise<RestResult> {
  const doc = await itemAsOf(site, ctx.actor, current, String(ctx.params.as_of));
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

/** The args of a history route: the item, and the page of its events in either order. */
export const historyArgs = (): Record<string, ArgSchema> => ({
  id: { description: 'Unique identifier of the item.', type: 'integer' },
  ...collectionParams({ noun: 'events' }),
  order: {
    description: 'Oldest first (asc) or newest first (desc).',
    type: 'string',
    default: 'asc',
    enum: ['asc', 'desc'],
  },
});

/** The requested page of a stream's history entries (oldest first as given), with what its paging headers need. */
export function historyPage(entries: HistoryEntry[], params: Record<string, unknown>) {
  const { page, per_page: perPage, order } = params as { page: number; per_page: number; order: 'asc' | 'desc' };
  if (order === 'desc') entries.reverse();
  const total = entries.length;
  assertPageInRange({ total, page, perPage });
  // Page 0 (`page=1e400`, as PHP casts it) is the first, as for the item lists.
  const start = (Math.max(page, 1) - 1) * perPage;
  return { entries: entries.slice(start, start + perPage), paging: { total, page, perPage } };
}

export function historyRoutes(site: Site, postType: PostType): RouteDefinition[] {
  const restBase = restBaseOf(postType);
  const load = async (id: unknown): Promise<ContentDoc | null> => {
    const n = Number(id);
    return Number.isInteger(n) && n > 0 ? ((await site.readModel.get(postType, n)) as ContentDoc | null) : null;
  };
  const present = (entry: HistoryEntry, id: number) => {
    const links: Record<string, unknown[]> = {};
    if (entry.user !== null && entry.user > 0)
      links.author = [{ embeddable: true, href: `${site.apiRoot}core/v2/users/${entry.user}` }];
    if (entry.revision_id !== undefined)
      links.revision = [{ href: `${site.apiRoot}${restBase}/${id}/revisions/${entry.revision_id}` }];
    return { ...entry, _links: links };
  };

  return [
    {
      namespace: 'core/v2',
      path: `/${restBase}/(?P<id>[\\d]+)/history`,
      schema: historyEntrySchema,
      endpoints: [
        {
          methods: ['GET'],
          args: historyArgs(),
          permission: async (ctx) => {
            const doc = await load(ctx.params.id);
            if (!doc) return restErrorOf(new NotFound('post'));
            const refusal = historyRefusal(ctx.actor, doc);
            return refusal ? restErrorOf(refusal) : true;
          },
          handle: async (ctx) => {
            const id = Number(ctx.params.id);
            const { entries, paging } = historyPage(await itemHistory(site, id), ctx.params);
            return collectionResult(
              entries.map((entry) => present(entry, id)),
              paging,
              `${site.apiRoot}${restBase}/${id}/history`,
              linkQuery(ctx),
            );
          },
        },
      ],
    },
  ];
}
