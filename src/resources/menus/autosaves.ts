/**
 * Autosaves of menu items (`/core/v2/menu-items/{id}/autosaves`, `/core/v2/menu-items/{parent}/autosaves/{id}`),
 * as WordPress 6.1 gives every post type with REST support, nav_menu_item included. They fall out of the item's
 * own stream (`MenuItemAutosaved`, `MenuItemAutosaveDiscarded`) into its read-model document. Reading and
 * writing them takes what editing the item takes: edit_theme_options.
 */
import type { Site } from '../../site';
import { canManageMenus } from '../../access/capabilities';
import type { ArgSchema } from '../../rest/args/schema';
import { argsFromSchema, contextParam, filterByContext } from '../../rest/schema';
import type { Context } from '../../rest/schema';
import { NotFound, NotPermitted } from '../../core/errors';
import { ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import { formatGmt, parseRestDate } from '../../text/dates';
import { renderTitle } from '../../text/render';
import type { MenuItemAutosaveEntry, MenuItemDoc } from '../../../projections/menuItems';
import { autosaveMenuItem, readMenuItemDoc } from './operations';
import { menuItemAutosaveSchema, menuItemSchema } from './schema';

const NS = 'core/v2';
const BASE = '/core/v2/menu-items';

const newestFirst = (a: MenuItemAutosaveEntry, b: MenuItemAutosaveEntry) =>
  a.date === b.date ? b.id - a.id : a.date < b.date ? 1 : -1;

export function menuItemAutosaveRoutes(site: Site): RouteDefinition[] {
  const schema = menuItemAutosaveSchema;
  const parentArg: ArgSchema = { description: 'Identifier of the menu item the autosave belongs to.', type: 'integer' };
  const guidOf = (id: number) => `${site.settings.siteUrl}/?p=${id}`;
  const itemHref = (id: number) => `${site.apiRoot}core/v2/menu-items/${id}`;

  const item = (ctx: HandlerContext, key: string): Promise<MenuItemDoc | null> => {
    const memoKey = `menu-item:${key}`;
    if (!ctx.memo.has(memoKey)) {
      const id = Number(ctx.params[key]);
      ctx.memo.set(memoKey, Number.isInteger(id) && id > 0 ? readMenuItemDoc(site, id) : Promise.resolve(null));
    }
    return ctx.memo.get(memoKey) as Promise<MenuItemDoc | null>;
  };

  /** WordPress checks the item first (404 for anyone), then the right to edit it. */
  const readRule = async (
    ctx: HandlerContext,
    key: string,
    action: 'readAutosaves' | 'readRevisions',
  ): Promise<true> => {
    if (!(await item(ctx, key))) throw new NotFound('menuItem', 'parent');
    if (!canManageMenus(ctx.actor)) throw new NotPermitted('menuItem', action, ctx.actor !== null);
    return true;
  };

  const present = (entry: MenuItemAutosaveEntry, parent: MenuItemDoc, context: Context): Record<string, unknown> => {
    const guid = guidOf(entry.id);
    const body: Record<string, unknown> = {
      author: entry.author,
      date: entry.date,
      date_gmt: entry.date_gmt,
      id: entry.id,
      modified: entry.date,
      modified_gmt: entry.date_gmt,
      parent: parent.id,
      slug: `${parent.id}-autosave-v1`,
      guid: { rendered: guid, raw: guid },
      // The autosave keeps no title of the item (see MenuItemAutosaved).
      title: { raw: '', rendered: '' },
      // nav_menu_item is not viewable, so there is nothing to preview.
      preview_link: '',
    };
    const filtered = filterByContext(schema, body, context) as Record<string, unknown>;
    filtered._links = { parent: [{ href: itemHref(parent.id) }] };
    return filtered;
  };

  /**
   * The answer to an autosave of one's own draft: the item itself in the autosave shape. A draft that was never
   * published has no date yet (null: a floating draft); one that was shows, as WordPress does, the time of its last
   * save through the item as `date` and the time it was first published as `date_gmt`. Its slug (empty unless it
   * was published) and its guid from its creation; no post parent (its menu parent is not one), so no links either.
   */
  const presentDraft = (
    doc: MenuItemDoc,
    dates: { savedAt: string | null; publishedAt: string | null } | null,
  ): Record<string, unknown> => {
    const guid = `${site.settings.siteUrl}${doc.guid}`;
    const gmtOf = (local: string | null) => {
      const at = local === null ? null : parseRestDate(local, site.settings.timezone);
      return at === null ? null : formatGmt(at);
    };
    const published = dates !== null && dates.publishedAt !== null;
    const body: Record<string, unknown> = {
      author: doc.author,
      date: published ? dates.savedAt : null,
      date_gmt: published ? gmtOf(dates.publishedAt) : null,
      id: doc.id,
      modified: doc.modified,
      modified_gmt: gmtOf(doc.modified),
      parent: 0,
      slug: doc.slug,
      guid: { rendered: guid, raw: guid },
      title: { raw: doc.title, rendered: renderTitle(doc.title) },
      preview_link: '',
    };
    return filterByContext(schema, body, 'edit') as Record<string, unknown>;
  };

  return [
    {
      namespace: NS,
      path: `${BASE}/(?P<id>[\\d]+)/autosaves`,
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: { parent: parentArg, context: contextParam('view') },
          permission: (ctx) => readRule(ctx, 'id', 'readAutosaves'),
          handle: async (ctx) => {
            const parent = (await item(ctx, 'id'))!;
            const entries = [...(parent.autosaves ?? [])].sort(newestFirst);
            return ok(entries.map((entry) => present(entry, parent, ctx.params.context as Context)));
          },
        },
        {
          methods: ['POST'],
          // The item's own update args (its `parent` among them), as WordPress takes them; none is stored.
          args: { parent: parentArg, ...argsFromSchema(menuItemSchema, 'update') },
          permission: async (ctx) => {
            if (!(await item(ctx, 'id'))) throw new NotFound('menuItem');
            if (!canManageMenus(ctx.actor)) throw new NotPermitted('menuItem', 'edit', ctx.actor !== null);
            return true;
          },
          signedInOnly: true,
          handle: async (ctx) => {
            const id = (await item(ctx, 'id'))!.id;
            const outcome = await autosaveMenuItem(site, id, ctx.actor!, ctx.request.requestId);
            await site.settle(outcome.position);
            const doc = await readMenuItemDoc(site, id);
            if (!doc) throw new NotFound('menuItem');
            if (outcome.savedItem) return ok(presentDraft(doc, outcome.itemDates));
            const entry = (doc.autosaves ?? []).find((a) => a.id === outcome.autosaveId);
            if (!entry) throw new NotFound('autosave');
            return ok(present(entry, doc, 'edit'));
          },
        },
      ],
    },
    {
      namespace: NS,
      path: `${BASE}/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)`,
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            parent: parentArg,
            id: { description: 'Identifier of the autosave.', type: 'integer' },
            context: contextParam('view'),
          },
          // WordPress checks a single autosave with the revisions rule, message included.
          permission: (ctx) => readRule(ctx, 'parent', 'readRevisions'),
          handle: async (ctx) => {
            const parent = (await item(ctx, 'parent'))!;
            // WordPress answers with the item's latest autosave, whatever the id asked for.
            const latest = [...(parent.autosaves ?? [])].sort(newestFirst)[0];
            if (!latest) throw new NotFound('autosave');
            return ok(present(latest, parent, ctx.params.context as Context));
          },
        },
      ],
    },
  ];
}
