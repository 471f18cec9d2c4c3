/**
 * Every route of the API, assembled from the resource slices, plus the discovery routes generated from them.
 * Adding a resource means adding its routes here; the index, batch and OPTIONS follow.
 */
import type { Site } from './site';
import type { RouteDefinition } from './rest/route';
import { asOfArg, presentItemAsOf } from './resources/history/routes';
import { featuredMediaToKeep } from './resources/media/featuredMedia';
import { Dispatcher } from './rest/dispatch';
import { discoveryRoutes } from './rest/discovery';
import { gmtOffsetHours } from './text/dates';
import { contentRoutes } from './resources/content/routes';
import type { ContentRouteDeps } from './resources/content/routes';
import { contentPresenter } from './resources/content/presenter';
import {
  DEFAULT_CATEGORY_ID,
  descendantCategoryIds,
  ensureDefaultCategory,
  existingTermIds,
} from './resources/terms/operations';
import { applicationPasswordRoutes } from './resources/users/applicationPasswordRoutes';
import { userRoutes } from './resources/users/routes';
import { batchRoute } from './rest/batch';
import { revisionRoutes } from './resources/revisions/routes';
import { termRoutes } from './resources/terms/routes';
import { menuRoutes } from './resources/menus/routes';
import { historyRoutes } from './resources/history/routes';
import { mediaRoutes } from './resources/media/routes';
import { detachTermFromPosts } from './resources/content/termDetach';
import { oembedRoutes } from './resources/oembed/routes';
import { createRemoteEmbeds } from './resources/oembed/remote';
import { auditRoutes } from './resources/audit/routes';
import { webhookRoutes } from './resources/webhooks/routes';
import { customProjections, projectionRoutes } from './resources/projections/routes';
import { typeRoutes } from './resources/types/routes';
import { settingsRoutes } from './resources/settings/routes';
import { readSettings } from './resources/settings/operations';
import { uploadUrl } from './resources/media/present';
import type { MediaDoc } from '../projections/media';
import { searchRoutes } from './resources/search/routes';
import { commentRoutes } from './resources/comments/routes';
import { IdempotencyGuard } from './resources/idempotency/guard';
import { ACTIVE_THEME } from './resources/themes/theme';
import { mayReadActiveTheme, themeRoutes } from './resources/themes/routes';
import { globalStylesRoutes } from './resources/globalStyles/routes';
import { blockPatternRoutes } from './resources/blockPatterns/routes';
import { EMPTY_LIBRARY } from './resources/blockPatterns/library';
import { logLine } from './logger';

/** Namespaces with routes of ours, in the order the index lists them. */
const NAMESPACES = ['oembed/1.0', 'core/v2', 'projections/v1', 'audit/v1', 'hooks/v1'];
/** With those the instance adds (src/instances/), each right after the one it names. */
function namespacesOf(site: Site): string[] {
  const namespaces = [...NAMESPACES];
  for (const { name, after } of site.instance.namespaces) namespaces.splice(namespaces.indexOf(after) + 1, 0, name);
  return namespaces;
}
/** Listed by every WordPress site; of their routes (not part of this interface) only the namespace index is served. */
const LISTED_ONLY = ['site-health/v1', 'block-editor/v1'];

export function buildDispatcher(site: Site): Dispatcher {
  // The default category is created once, on first need (safe with several processes: first append wins).
  let defaultCategory: Promise<number> | null = null;
  const content: ContentRouteDeps = {
    categoryDescendants: async (ids) => (await descendantCategoryIds(site, ids)).filter((id) => !ids.includes(id)),
    existingTerms: (taxonomy, ids) => existingTermIds(site, taxonomy, ids),
    defaultCategory: () => {
      defaultCategory ??= ensureDefaultCategory(site).then(async ({ position }) => {
        await site.settle(position);
        return DEFAULT_CATEGORY_ID;
      });
      defaultCategory.catch(() => (defaultCategory = null));
      return defaultCategory;
    },
    asOf: { arg: asOfArg, item: (ctx, current, schema) => presentItemAsOf(site, ctx, current, schema) },
    featuredMediaToKeep: (requested) => featuredMediaToKeep(site.readModel, requested),
  };
  // One presentation per post type, for every route that answers with a live item.
  // Every route, filled in below: the index and the type descriptions read it once it is complete.
  const all: RouteDefinition[] = [];
  const posts = contentPresenter(site, 'post');
  const pages = contentPresenter(site, 'page');
  const blocks = contentPresenter(site, 'wp_block');
  const resourceRoutes: RouteDefinition[] = [
    ...contentRoutes(site, posts, content),
    ...revisionRoutes(site, posts),
    ...contentRoutes(site, pages, content),
    ...revisionRoutes(site, pages),
    ...mediaRoutes(site),
    ...contentRoutes(site, blocks, content),
    ...revisionRoutes(site, blocks),
    // Types, statuses and taxonomies describe what the site serves, read from every route (`all`) on first use.
    ...typeRoutes(() => all, site.apiRoot),
    ...termRoutes(site, {
      // A deleted term leaves its posts; a post left without a category goes to the default one.
      afterDelete: async (taxonomy, id, actor, requestId) =>
        detachTermFromPosts(
          site,
          taxonomy,
          id,
          taxonomy === 'category' ? await content.defaultCategory() : null,
          actor,
          requestId,
        ),
    }),
  ];
  resourceRoutes.push(...menuRoutes(site));
  resourceRoutes.push(
    ...themeRoutes(site, ACTIVE_THEME),
    ...globalStylesRoutes(site, ACTIVE_THEME),
    ...blockPatternRoutes(site.settings.blockPatterns ?? EMPTY_LIBRARY),
  );
  resourceRoutes.push(...settingsRoutes(site), ...searchRoutes(site));
  const remoteEmbeds = createRemoteEmbeds({
    fetcher: site.http,
    clock: site.clock,
    maxEntries: site.caches.budget.entries('remoteEmbeds'),
  });
  site.caches.watch('remoteEmbeds', remoteEmbeds.held);
  resourceRoutes.push(...oembedRoutes(site, remoteEmbeds));
  resourceRoutes.push(...site.instance.routes(site));
  resourceRoutes.push(...userRoutes(site), ...applicationPasswordRoutes(site), ...commentRoutes(site));
  resourceRoutes.push(
    ...historyRoutes(site, 'post'),
    ...historyRoutes(site, 'page'),
    ...historyRoutes(site, 'wp_block'),
    ...auditRoutes(site),
    ...projectionRoutes(site, customProjections(site)),
  );
  resourceRoutes.push(...webhookRoutes(site));
  const namespaces = namespacesOf(site);
  const [root, ...indexes] = discoveryRoutes(
    () => all,
    {
      current: async () => {
        const { title, description, page_for_posts, page_on_front, show_on_front, site_logo, site_icon } =
          await readSettings(site);
        const image = async (id: number) =>
          id > 0 ? ((await site.readModel.get('attachment', id)) as MediaDoc | null) : null;
        const [logo, icon] = await Promise.all([image(site_logo ?? 0), image(site_icon)]);
        return {
          name: title,
          description,
          page_for_posts,
          page_on_front,
          show_on_front,
          logo: { id: site_logo ?? 0, exists: logo !== null },
          // The icon at 512 pixels, which WordPress takes as the full image.
          icon: {
            id: site_icon,
            exists: icon !== null,
            url: icon ? uploadUrl(site.settings.siteUrl, icon.media_details.file) : site_icon > 0 ? false : '',
          },
        };
      },
      activeTheme: (actor) =>
        mayReadActiveTheme(actor) ? `${site.apiRoot}core/v2/themes/${ACTIVE_THEME.stylesheet}` : null,
      url: site.settings.siteUrl,
      home: site.settings.siteUrl,
      gmtOffset: () => String(gmtOffsetHours(site.settings.timezone, site.clock.now())),
      timezoneString: site.settings.timezone === 'UTC' ? '' : site.settings.timezone,
      extraNamespaces: LISTED_ONLY,
      authorizationUrl: `${site.settings.siteUrl}/wp-admin/authorize-application.php`,
    },
    site.apiRoot,
    namespaces,
  );
  let dispatcher: Dispatcher | null = null;
  // As WordPress registers them: the extra namespaces' indexes come after every route of ours.
  all.push(
    root!,
    batchRoute(() => dispatcher!),
    ...indexes.slice(0, namespaces.length),
    ...resourceRoutes,
    ...indexes.slice(namespaces.length),
  );
  // Safe retries: requests with an Idempotency-Key are carried out once (src/resources/idempotency/guard.ts).
  const idempotency = new IdempotencyGuard(
    {
      store: site.store,
      readModel: site.readModel,
      clock: site.clock,
      metadata: site.metadata,
      settle: site.settle,
      apiRoot: site.apiRoot,
      log: logLine,
    },
    { ttlMs: site.settings.idempotencyTtlMs },
  );
  dispatcher = new Dispatcher(all, {
    apiRoot: site.apiRoot,
    validatedArgsKept: site.caches.budget.entries('validatedArgs'),
    guard: (request, endpoint, serve) => idempotency.guard(request, endpoint, serve),
  });
  const built = dispatcher;
  site.caches.watch('validatedArgs', () => built.validatedArgsHeld());
  // A lost answer is made again by reading what the request changed, as its caller, in the edit context.
  idempotency.present = (request, path) =>
    dispatcher!.dispatch({
      method: 'GET',
      path,
      query: { context: 'edit' },
      json: null,
      form: null,
      headers: {},
      actor: request.actor,
      requestId: request.requestId,
      ip: request.ip,
    });
  return dispatcher;
}
