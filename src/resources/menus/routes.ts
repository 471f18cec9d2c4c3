/**
 * Routes of navigation menus: `/core/v2/menu-items` (the nav_menu_item post type), `/core/v2/menus` (the
 * nav_menu taxonomy) and `/core/v2/menu-locations` (none: there is no theme). Reading takes edit_theme_options
 * or the right to edit posts of some type; writing takes edit_theme_options (administrators).
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canManageMenus, canReadMenus } from '../../access/capabilities';
import type { ArgSchema } from '../../rest/args/schema';
import { argsFromSchema, contextParam } from '../../rest/schema';
import type { Context } from '../../rest/schema';
import { collectionParams, offsetArg, sortArgs } from '../../rest/collectionParams';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { collectionResult, linkQuery, offsetGiven, readModelOffset } from '../../rest/collection';
import { created, ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { Filter, Order } from '../../ports/readModel';
import { sanitizeSlug } from '../../text/slug';
import { sanitizeTextField } from '../terms/sanitize';
import { TAXONOMIES, ancestorChain, readTermDoc } from '../terms/operations';
import { termLink } from '../terms/present';
import { permalink } from '../content/present';
import { ancestorPath } from '../content/operations';
import type { ContentDoc } from '../../../projections/content';
import { MENU_COLLECTION } from '../../../projections/menus';
import type { MenuDoc } from '../../../projections/menus';
import { MENU_ITEM_COLLECTION } from '../../../projections/menuItems';
import type { MenuItemDoc } from '../../../projections/menuItems';
import { NotFound } from '../../core/errors';
import { restErrorOf } from '../../rest/domainErrors';
import { menuItemStreamId, menuStreamId } from './events';
import { readCurrent, readWritten } from '../../projection/written';
import type { MenuItemInput } from './decider';
import {
  createMenu,
  createMenuItem,
  deleteMenu,
  deleteMenuItem,
  joinClasses,
  readMenuItemDoc,
  updateMenu,
  updateMenuItem,
} from './operations';
import type { MenuInput } from './operations';
import { buildMenuItemPlan, menuItemListArgs } from './listQuery';
import { listPaging } from '../content/listQuery';
import { menuItemAutosaveRoutes } from './autosaves';
import { archiveTitle, presentMenu, presentMenuItem } from './present';
import type { LinkedObject } from './present';
import { menuItemSchema, menuLocationSchema, menuSchema, noSuchLocation } from './schema';

const NS = 'core/v2';
const status = (ctx: HandlerContext) => authorizationStatus(ctx.actor?.id ?? null);
/** What an administrator may do with a menu item in the edit context (WordPress's order). */
const ITEM_ACTIONS = ['publish', 'unfiltered-html', 'create-menus', 'assign-menus'];

export function menuRoutes(site: Site): RouteDefinition[] {
  return [...menuItemRoutes(site), ...menuItemAutosaveRoutes(site), ...menuTermRoutes(site), ...menuLocationRoutes()];
}

// --- menu items ------------------------------------------------------------------------------------------------

function menuItemRoutes(site: Site): RouteDefinition[] {
  const idArg: Record<string, ArgSchema> = { id: { description: 'Unique identifier of the item.', type: 'integer' } };
  // As WordPress, the edit context is judged first (it is the posts' own rule; viewing menus is the menus' addition).
  const readRule = (ctx: HandlerContext, message: string): true | RestError => {
    if (ctx.params.context === 'edit' && !canManageMenus(ctx.actor))
      return restError('rest_forbidden_context', message, status(ctx));
    if (!canReadMenus(ctx.actor))
      return restError('rest_cannot_view', 'Sorry, you are not allowed to view menu items.', status(ctx));
    return true;
  };
  const existing = async (ctx: HandlerContext) =>
    memo(ctx, 'item', () => currentMenuItem(site, ctx.params.id as number));
  const writeRule = async (ctx: HandlerContext, code: string, message: string): Promise<true | RestError> => {
    if (!(await existing(ctx))) return restErrorOf(new NotFound('menuItem'));
    return canManageMenus(ctx.actor) ? true : restError(code, message, status(ctx));
  };
  const answer = async (ctx: HandlerContext, doc: MenuItemDoc, context: Context) =>
    presentItem(site, ctx.actor, doc, context);

  return [
    {
      namespace: NS,
      path: '/core/v2/menu-items',
      schema: menuItemSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: menuItemListArgs(site.instance.statuses),
          allowBatch: true,
          cacheable: true,
          permission: (ctx) => readRule(ctx, 'Sorry, you are not allowed to edit posts in this post type.'),
          handle: async (ctx) => {
            const plan = buildMenuItemPlan(ctx.params, site.settings.timezone);
            const { items, total } = await site.readModel.query(MENU_ITEM_COLLECTION, plan);
            const body = await Promise.all(
              (items as MenuItemDoc[]).map((doc) => answer(ctx, doc, ctx.params.context as Context)),
            );
            return collectionResult(
              body,
              listPaging(ctx.params, total, items.length),
              `${site.apiRoot}core/v2/menu-items`,
              linkQuery(ctx),
            );
          },
        },
        {
          methods: ['POST'],
          args: argsFromSchema(menuItemSchema, 'create'),
          allowBatch: true,
          permission: (ctx) =>
            canManageMenus(ctx.actor)
              ? true
              : restError(
                  'rest_cannot_create',
                  'Sorry, you are not allowed to create posts as this user.',
                  status(ctx),
                ),
          // Every write to menus and menu items takes edit_theme_options, which no anonymous caller holds.
          signedInOnly: true,
          handle: async (ctx) => {
            const outcome = await createMenuItem(site, itemInput(ctx.params), ctx.actor!, ctx.request.requestId);
            await site.settle(outcome.position);
            const doc = await writtenMenuItem(site, outcome.id, outcome.position);
            return created(await answer(ctx, doc, 'edit'), `${site.apiRoot}core/v2/menu-items/${outcome.id}`);
          },
        },
      ],
    },
    {
      namespace: NS,
      path: '/core/v2/menu-items/(?P<id>[\\d]+)',
      schema: menuItemSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: { ...idArg, context: contextParam('view', menuItemSchema) },
          allowBatch: true,
          cacheable: true,
          permission: async (ctx) => {
            const allowed = readRule(ctx, 'Sorry, you are not allowed to edit this post.');
            if (allowed !== true) return allowed;
            return (await existing(ctx)) ? true : restErrorOf(new NotFound('menuItem'));
          },
          handle: async (ctx) => ok(await answer(ctx, (await existing(ctx))!, ctx.params.context as Context)),
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: { ...idArg, ...argsFromSchema(menuItemSchema, 'update') },
          allowBatch: true,
          permission: (ctx) => writeRule(ctx, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.'),
          signedInOnly: true,
          handle: async (ctx) => {
            const id = ctx.params.id as number;
            const outcome = await updateMenuItem(site, id, itemInput(ctx.params), ctx.actor!, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok(await answer(ctx, await writtenMenuItem(site, id, outcome.position), 'edit'));
          },
        },
        {
          methods: ['DELETE'],
          args: {
            ...idArg,
            force: { type: 'boolean', default: false, description: 'Must be true: menu items have no trash.' },
          },
          allowBatch: true,
          permission: (ctx) => writeRule(ctx, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this post.'),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await existing(ctx))!;
            if (ctx.params.force !== true) {
              throw restError(
                'rest_trash_not_supported',
                "Menu items do not support trashing. Set 'force=true' to delete.",
                501,
              );
            }
            // WordPress answers with the item as it was, in the view context and without links.
            const previous = presentMenuItem(doc, {
              context: 'view',
              apiRoot: site.apiRoot,
              linked: await linkedObject(site, doc),
              links: false,
            });
            const outcome = await deleteMenuItem(site, doc.id, ctx.actor, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok({ deleted: true, previous });
          },
        },
      ],
    },
  ];
}

function itemInput(params: Record<string, unknown>): MenuItemInput {
  const input: MenuItemInput = {};
  if (params.title !== undefined)
    input.title =
      typeof params.title === 'string'
        ? params.title
        : String((params.title as { raw?: unknown } | null | undefined)?.raw ?? '');
  for (const key of [
    'status',
    'url',
    'attr_title',
    'description',
    'type',
    'object',
    'object_id',
    'parent',
    'menu_order',
    'target',
  ] as const) {
    if (params[key] !== undefined) (input as Record<string, unknown>)[key] = params[key];
  }
  if (params.classes !== undefined) input.classes = joinClasses(params.classes as string[]);
  if (params.xfn !== undefined) input.xfn = joinClasses(params.xfn as string[]);
  if (params.menus !== undefined) input.menu = params.menus as number;
  return input;
}

/** The post or term an item links to, as it is now; null when it is gone (or trashed). */
export async function linkedObject(site: Site, doc: MenuItemDoc): Promise<LinkedObject | null> {
  const siteUrl = site.settings.siteUrl;
  if (doc.type === 'post_type') {
    if (doc.object !== 'post' && doc.object !== 'page') return null;
    const post = (await site.readModel.get(doc.object, doc.object_id)) as ContentDoc | null;
    if (!post || post.status === 'trash') return null;
    const parentPath = post.type === 'page' && post.parent > 0 ? await ancestorPath(site, post.parent) : '';
    return {
      title: post.title,
      url: permalink(post, siteUrl, parentPath),
      href: `${site.apiRoot}core/v2/${doc.object}s/${post.id}`,
    };
  }
  if (doc.type === 'taxonomy') {
    const tax =
      doc.object === 'category' ? TAXONOMIES.category : doc.object === 'post_tag' ? TAXONOMIES.post_tag : null;
    const term = tax ? await readTermDoc(site, doc.object_id) : null;
    if (!tax || !term || term.taxonomy !== tax.taxonomy) return null;
    const ancestors = term.parent > 0 ? await ancestorChain(site, term.parent) : [];
    return {
      title: term.name,
      url: termLink(
        term,
        tax,
        siteUrl,
        ancestors.map((a) => a.slug),
      ),
      href: `${site.apiRoot}core/v2/${tax.restBase}/${term.id}`,
    };
  }
  if (doc.type === 'post_type_archive') {
    const title = archiveTitle(doc.object);
    if (title === '') return null;
    // Only posts have an archive (the front page, on a site that lists its posts there).
    return { title, url: doc.object === 'post' ? `${siteUrl}/` : '' };
  }
  return null;
}

async function presentItem(
  site: Site,
  actor: Actor | null,
  doc: MenuItemDoc,
  context: Context,
): Promise<Record<string, unknown>> {
  const linked = doc.type === 'custom' ? null : await linkedObject(site, doc);
  const actions = context === 'edit' && canManageMenus(actor) ? ITEM_ACTIONS : [];
  return presentMenuItem(doc, { context, apiRoot: site.apiRoot, linked, actions });
}

// --- menus (the nav_menu taxonomy) -------------------------------------------------------------------------------

const MENU_ORDERBY = ['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'] as const;

function menuTermRoutes(site: Site): RouteDefinition[] {
  const idArg: Record<string, ArgSchema> = { id: { description: 'Unique identifier of the menu.', type: 'integer' } };
  const withLocationRule = (args: Record<string, ArgSchema>) => ({
    ...args,
    locations: { ...args.locations!, validate: noSuchLocation },
  });
  const existing = (ctx: HandlerContext) => memo(ctx, 'menu', () => currentMenu(site, ctx.params.id as number));
  const cannotView = (ctx: HandlerContext) =>
    restError('rest_cannot_view', 'Sorry, you are not allowed to view menus.', status(ctx));
  const writeRule = async (ctx: HandlerContext, code: string, message: string): Promise<true | RestError> => {
    if (!(await existing(ctx))) return restErrorOf(new NotFound('menu'));
    return canManageMenus(ctx.actor) ? true : restError(code, message, status(ctx));
  };

  const listArgs: Record<string, ArgSchema> = {
    ...collectionParams({
      context: contextParam('view', menuSchema),
      search: 'Only menus whose name or slug contains this text.',
    }),
    exclude: { description: 'Leave out these ids.', type: 'array', items: { type: 'integer' }, default: [] },
    include: { description: 'Only these ids.', type: 'array', items: { type: 'integer' }, default: [] },
    offset: offsetArg(),
    ...sortArgs('asc', 'name', MENU_ORDERBY),
    hide_empty: { description: 'Leave out menus without items.', type: 'boolean', default: false },
    post: { description: 'Only the menu of this menu item.', type: 'integer', default: null },
    slug: { description: 'Only menus with one of these slugs.', type: 'array', items: { type: 'string' } },
  };

  return [
    {
      namespace: NS,
      path: '/core/v2/menus',
      schema: menuSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: listArgs,
          allowBatch: true,
          cacheable: true,
          permission: async (ctx) => {
            // As WordPress, the edit context is judged first (the terms' own rule; viewing menus is the menus' addition).
            if (ctx.params.context === 'edit' && !canManageMenus(ctx.actor)) {
              return restError(
                'rest_forbidden_context',
                'Sorry, you are not allowed to edit terms in this taxonomy.',
                status(ctx),
              );
            }
            if (!canReadMenus(ctx.actor)) return cannotView(ctx);
            const postId = ctx.params.post;
            if (typeof postId === 'number' && postId !== 0) {
              const item = await readMenuItemDoc(site, postId);
              if (item) return true;
              const post = (await site.readModel.get('post', postId)) ?? (await site.readModel.get('page', postId));
              if (!post) return restError('rest_post_invalid_id', 'Invalid post ID.', 400);
              // Posts and pages have no menus: WordPress refuses to list their terms of this taxonomy.
              return restError(
                'rest_forbidden_context',
                'Sorry, you are not allowed to view terms for this post.',
                status(ctx),
              );
            }
            return true;
          },
          handle: (ctx) => listMenus(site, ctx),
        },
        {
          methods: ['POST'],
          args: withLocationRule(argsFromSchema(menuSchema, 'create')),
          allowBatch: true,
          permission: (ctx) =>
            canManageMenus(ctx.actor)
              ? true
              : restError(
                  'rest_cannot_create',
                  'Sorry, you are not allowed to create terms in this taxonomy.',
                  status(ctx),
                ),
          signedInOnly: true,
          handle: async (ctx) => {
            const outcome = await createMenu(site, menuInput(ctx.params), ctx.actor, ctx.request.requestId);
            await site.settle(outcome.position);
            const doc = await writtenMenu(site, outcome.id, outcome.position);
            return created(
              presentMenu(doc, { context: 'edit', apiRoot: site.apiRoot }),
              `${site.apiRoot}core/v2/menus/${outcome.id}`,
            );
          },
        },
      ],
    },
    {
      namespace: NS,
      path: '/core/v2/menus/(?P<id>[\\d]+)',
      schema: menuSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: { ...idArg, context: contextParam('view', menuSchema) },
          allowBatch: true,
          cacheable: true,
          permission: async (ctx) => {
            if (ctx.params.context === 'edit' && !canManageMenus(ctx.actor)) {
              return restError('rest_forbidden_context', 'Sorry, you are not allowed to edit this term.', status(ctx));
            }
            if (!canReadMenus(ctx.actor)) return cannotView(ctx);
            return (await existing(ctx)) ? true : restErrorOf(new NotFound('menu'));
          },
          handle: async (ctx) =>
            ok(presentMenu((await existing(ctx))!, { context: ctx.params.context as Context, apiRoot: site.apiRoot })),
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: withLocationRule({ ...idArg, ...argsFromSchema(menuSchema, 'update') }),
          allowBatch: true,
          permission: (ctx) => writeRule(ctx, 'rest_cannot_update', 'Sorry, you are not allowed to edit this term.'),
          signedInOnly: true,
          handle: async (ctx) => {
            const id = ctx.params.id as number;
            const outcome = await updateMenu(site, id, menuInput(ctx.params), ctx.actor, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok(
              presentMenu(await writtenMenu(site, id, outcome.position), { context: 'edit', apiRoot: site.apiRoot }),
            );
          },
        },
        {
          methods: ['DELETE'],
          args: {
            ...idArg,
            force: { type: 'boolean', default: false, description: 'Must be true: menus have no trash.' },
          },
          allowBatch: true,
          permission: (ctx) => writeRule(ctx, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this term.'),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await existing(ctx))!;
            if (ctx.params.force !== true)
              throw restError(
                'rest_trash_not_supported',
                "Menus do not support trashing. Set 'force=true' to delete.",
                501,
              );
            const previous = presentMenu(doc, { context: 'view', apiRoot: site.apiRoot, links: false });
            const outcome = await deleteMenu(site, doc.id, ctx.actor, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok({ deleted: true, previous });
          },
        },
      ],
    },
  ];
}

function menuInput(params: Record<string, unknown>): MenuInput {
  const input: MenuInput = {};
  if (params.name !== undefined) input.name = params.name as string;
  if (params.description !== undefined) input.description = params.description as string;
  if (params.auto_add !== undefined) input.autoAdd = params.auto_add as boolean;
  if (params.locations !== undefined) input.locations = params.locations as string[];
  return input;
}

async function listMenus(site: Site, ctx: HandlerContext) {
  const p = ctx.params;
  const perPage = p.per_page as number;
  const page = p.page as number;
  const offset = offsetGiven(p) ? p.offset : (page - 1) * perPage;
  // As for flat taxonomies (menus are one): the offset's absolute value is skipped.
  const start = readModelOffset(Math.abs(offset));
  const filters: Filter[] = [];
  const include = p.include as number[];
  if (include.length > 0) filters.push({ kind: 'any', field: 'id', values: include });
  else if ((p.exclude as number[]).length > 0)
    filters.push({ kind: 'none', field: 'id', values: p.exclude as number[] });
  const search = typeof p.search === 'string' ? sanitizeTextField(p.search) : '';
  if (search !== '') filters.push({ kind: 'text', fields: ['name', 'slug'], includes: [search], excludes: [] });
  const slugs = Array.isArray(p.slug) ? (p.slug as unknown[]).map((s) => sanitizeSlug(String(s))) : [];
  if (slugs.length > 0) filters.push({ kind: 'any', field: 'slug', values: slugs });
  if (typeof p.post === 'number' && p.post !== 0) {
    const item = await readMenuItemDoc(site, p.post);
    filters.push({ kind: 'any', field: 'id', values: item && item.menu !== 0 ? [item.menu] : [] });
  }

  let orderby = p.orderby as (typeof MENU_ORDERBY)[number];
  const direction = p.order as 'asc' | 'desc';
  if ((orderby === 'include' && include.length === 0) || (orderby === 'include_slugs' && slugs.length === 0))
    orderby = 'name';
  let order: Order;
  if (orderby === 'include') order = { kind: 'list', field: 'id', values: include };
  else if (orderby === 'include_slugs') order = { kind: 'list', field: 'slug', values: slugs };
  else if (orderby === 'id' || orderby === 'slug') order = { kind: 'field', field: orderby, direction };
  else if (orderby === 'description')
    order = { kind: 'field', field: direction === 'desc' ? 'description_desc' : 'description', direction };
  // term_group is 0 for every menu, so it orders by id; `count` is ranked below.
  else if (orderby === 'term_group') order = { kind: 'field', field: 'id', direction: 'asc' };
  else order = { kind: 'field', field: direction === 'desc' ? 'name_desc' : 'name', direction };

  let docs: MenuDoc[];
  let total: number;
  if (orderby !== 'count' && p.hide_empty !== true) {
    const result = await site.readModel.query(MENU_COLLECTION, { filters, order, offset: start, limit: perPage });
    docs = result.items as MenuDoc[];
    total = result.total;
  } else {
    // A menu's count is how many items it has; counted here, as it is not a read-model sort key.
    const { items } = await site.readModel.query(MENU_COLLECTION, { filters, order, offset: 0, limit: null });
    const counts = new Map<number, number>();
    for (const menu of items as MenuDoc[]) {
      const { total: n } = await site.readModel.query(MENU_ITEM_COLLECTION, {
        filters: [{ kind: 'any', field: 'menus', values: [menu.id] }],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: 0,
      });
      counts.set(menu.id, n);
    }
    let matches = items as MenuDoc[];
    if (p.hide_empty === true) matches = matches.filter((m) => (counts.get(m.id) ?? 0) > 0);
    if (orderby === 'count') {
      const sign = direction === 'asc' ? 1 : -1;
      matches = [...matches].sort((a, b) => sign * ((counts.get(a.id) ?? 0) - (counts.get(b.id) ?? 0)) || a.id - b.id);
    }
    total = matches.length;
    docs = matches.slice(start, start + perPage);
  }
  const body = docs.map((doc) => presentMenu(doc, { context: p.context as Context, apiRoot: site.apiRoot }));
  return collectionResult(
    body,
    { total, page: Math.ceil(offset / perPage + 1), perPage },
    `${site.apiRoot}core/v2/menus`,
    linkQuery(ctx),
  );
}

// --- menu locations --------------------------------------------------------------------------------------------

function menuLocationRoutes(): RouteDefinition[] {
  const rule = (ctx: HandlerContext): true | RestError =>
    canManageMenus(ctx.actor)
      ? true
      : restError('rest_cannot_view', 'Sorry, you are not allowed to view menu locations.', status(ctx));
  return [
    {
      namespace: NS,
      path: '/core/v2/menu-locations',
      schema: menuLocationSchema,
      // No theme registers a location, so the list is always empty.
      endpoints: [
        {
          methods: ['GET'],
          args: { context: contextParam('view', menuLocationSchema) },
          cacheable: true,
          permission: rule,
          handle: () => ok([]),
        },
      ],
    },
    {
      namespace: NS,
      path: '/core/v2/menu-locations/(?P<location>[\\w-]+)',
      schema: menuLocationSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            location: { description: 'An alphanumeric identifier for the menu location.', type: 'string' },
            context: contextParam('view', menuLocationSchema),
          },
          cacheable: true,
          permission: rule,
          handle: () => {
            throw restError('rest_menu_location_invalid', 'Invalid menu location.', 404);
          },
        },
      ],
    },
  ];
}

async function memo<T>(ctx: HandlerContext, key: string, load: () => Promise<T>): Promise<T> {
  if (!ctx.memo.has(key)) ctx.memo.set(key, load());
  return (await ctx.memo.get(key)) as T;
}

/** The menu item `id` as the log has it now, for its item routes (also while its projection rebuilds). */
async function currentMenuItem(site: Site, id: number): Promise<MenuItemDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return readCurrent<MenuItemDoc>(site, {
    projection: 'menu-items',
    collection: MENU_ITEM_COLLECTION,
    id,
    stream: menuItemStreamId(id),
  });
}

/** The menu `id` as the log has it now, for its item routes (also while its projection rebuilds). */
async function currentMenu(site: Site, id: number): Promise<MenuDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return readCurrent<MenuDoc>(site, { projection: 'menus', collection: MENU_COLLECTION, id, stream: menuStreamId(id) });
}

/** The menu item as the write at `position` left it, for the write's answer (also while its projection rebuilds). */
async function writtenMenuItem(site: Site, id: number, position: number): Promise<MenuItemDoc> {
  const doc = await readWritten<MenuItemDoc>(site, {
    projection: 'menu-items',
    collection: MENU_ITEM_COLLECTION,
    id,
    stream: menuItemStreamId(id),
    position,
  });
  if (!doc) throw restErrorOf(new NotFound('menuItem'));
  return doc;
}

/** The menu as the write at `position` left it, for the write's answer (also while its projection rebuilds). */
async function writtenMenu(site: Site, id: number, position: number): Promise<MenuDoc> {
  const doc = await readWritten<MenuDoc>(site, {
    projection: 'menus',
    collection: MENU_COLLECTION,
    id,
    stream: menuStreamId(id),
    position,
  });
  if (!doc) throw restErrorOf(new NotFound('menu'));
  return doc;
}
