/**
 * A live post or page as a caller is shown it: its document, the extras looked up for this caller (a page's
 * ancestors; in edit context the generated slug and the `wp:action-*` links) and the type's presentation cache.
 * One per post type, shared by every route that answers with the live item (its own routes, a revision's restore),
 * so they all answer the same item with the same links.
 */
import type { Site } from '../../site';
import type { HandlerContext } from '../../rest/route';
import type { ContentDoc } from '../../../projections/content';
import { contentSchema, writableStatuses } from './schema';
import { PresentationCache, restBaseOf } from './present';
import { itemExtras, plainItemExtras } from './extras';
import type { ItemExtras } from './extras';
import type { PostType } from './events';

export interface ContentPresenter {
  readonly postType: PostType;
  readonly schema: ReturnType<typeof contentSchema>;
  /** The REST base of the type, e.g. `core/v2/posts`. */
  readonly restBase: string;
  /** The item for this caller, with the extras it needs looked up. `accepted`: whether protected content is shown. */
  present(
    ctx: HandlerContext,
    doc: ContentDoc,
    context: 'view' | 'edit' | 'embed',
    accepted: boolean,
    options?: { withoutLinks?: boolean },
  ): Promise<Record<string, unknown>>;
}

export function contentPresenter(site: Site, postType: PostType): ContentPresenter {
  const schema = contentSchema(postType, { statuses: writableStatuses(site.instance.statuses) });
  const restBase = restBaseOf(postType);
  const presented = new PresentationCache(schema, { maxBytes: site.caches.budget.bytes('presentations') }, (doc) =>
    site.readModel.keepIdentity?.(doc),
  );
  site.caches.watch('presentations', () => presented.held());
  const presentWith = (doc: ContentDoc, context: 'view' | 'edit' | 'embed', accepted: boolean, extras: ItemExtras) =>
    presented.present(doc, {
      context,
      passwordAccepted: accepted,
      siteUrl: site.settings.siteUrl,
      apiRoot: site.apiRoot,
      timezone: site.settings.timezone,
      restBase,
      ...extras,
    });
  return {
    postType,
    schema,
    restBase,
    async present(ctx, doc, context, accepted, options = {}) {
      const extras = plainItemExtras(doc, context, options) ?? (await itemExtras(site, ctx, doc, context, options));
      return presentWith(doc, context, accepted, extras);
    },
  };
}
