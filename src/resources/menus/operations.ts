/**
 * Menu and menu-item operations, callable without HTTP (routes and batch share them): the effects a decision
 * needs (ids, slug claims, facts about other streams) happen here, around the pure deciders.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import type { EventMetadata } from '../../ports/eventStore';
import type { Filter } from '../../ports/readModel';
import { NothingChanged } from '../../core/errors';
import { formatGmt, formatLocal } from '../../text/dates';
import { sanitizeSlug } from '../../text/slug';
import { asciiLower } from '../../../projections/terms';
import { MENU_COLLECTION } from '../../../projections/menus';
import type { MenuDoc } from '../../../projections/menus';
import { MENU_ITEM_COLLECTION } from '../../../projections/menuItems';
import type { MenuItemDoc } from '../../../projections/menuItems';
import { nextTermId, termSlugCandidates } from '../terms/operations';
import { slugCandidates } from '../content/slugCandidates';
import { sanitizeTermDescription, sanitizeTermName } from '../terms/sanitize';
import {
  MENU_ITEM_DEFAULTS,
  autosaveSavesMenuItem,
  menuDecider,
  menuItemDecider,
  menuItemNeedsSlug,
  menuItemSlugBase,
  mergeMenuItem,
  withOwnTitle,
} from './decider';
import { archiveTitle } from './present';
import { readTermDoc } from '../terms/operations';
import type { ContentDoc } from '../../../projections/content';
import type { MenuCommand, MenuItemCommand, MenuItemFacts, MenuItemInput, MenuItemState, MenuState } from './decider';
import { menuItemStreamId, menuStreamId } from './events';
import type { MenuFields } from './events';

/** Menu slugs are unique among menus (the `nav_menu` taxonomy). */
const MENU_SLUG_SCOPE = 'term-nav_menu';

/** Menu-item slugs are unique among menu items, whatever their menu (a post type's slugs). */
export const MENU_ITEM_SLUG_SCOPE = 'nav_menu_item';

/** Post types whose archive a menu item may link to (WordPress checks only that the type exists). */
export const ARCHIVE_POST_TYPES = new Set(['post', 'page', 'attachment']);

/**
 * What a menu write may set. There is no slug: WordPress saves a menu (wp_update_nav_menu_object) with its slug
 * made anew from its name on every create and update, whatever slug the request names.
 */
export interface MenuInput {
  name?: string;
  description?: string;
  autoAdd?: boolean;
  locations?: string[];
}

export interface MenuWriteOutcome {
  id: number;
  state: MenuState;
  position: number;
}

export interface MenuItemWriteOutcome {
  id: number;
  state: MenuItemState;
  position: number;
}

// --- menus -----------------------------------------------------------------------------------------------------

export async function readMenuDoc(site: Site, id: number): Promise<MenuDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return (await site.readModel.get(MENU_COLLECTION, id)) as MenuDoc | null;
}

/** The menu already called `name` (ignoring ASCII case, as MySQL compares), or null. */
async function menuNamed(site: Site, name: string): Promise<number | null> {
  const { items } = await site.readModel.query(MENU_COLLECTION, {
    filters: [{ kind: 'any', field: 'name_lower', values: [asciiLower(name)] }],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: 1,
  });
  return (items[0] as MenuDoc | undefined)?.id ?? null;
}

/** `imported.chosenId`: an id the caller reserved (an import keeping the source's ids), instead of the next free one. */
export async function createMenu(
  site: Site,
  input: MenuInput,
  actor: Actor | null,
  requestId: string,
  imported?: { chosenId?: number },
): Promise<MenuWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  const name = sanitizeTermName(input.name ?? '');
  const nameConflict = name.trim() === '' ? null : await menuNamed(site, name);
  // Refuse before spending an id or a slug.
  menuDecider.decide(
    { kind: 'create', id: 0, fields: { name, slug: '', description: '', autoAdd: false, locations: [] }, nameConflict },
    menuDecider.initialState(),
  );
  const id = imported?.chosenId ?? (await nextTermId(site));
  const base = sanitizeSlug(name) || String(id);
  const claimed: string[] = [];
  const prepare = async (): Promise<MenuCommand> => {
    const slug = await site.claims.claimFirstFree(MENU_SLUG_SCOPE, menuSlugCandidates(base, null), id, metadata);
    claimed.push(slug);
    const fields: MenuFields = {
      name,
      slug,
      description: sanitizeTermDescription(input.description ?? ''),
      autoAdd: input.autoAdd ?? false,
      locations: input.locations ?? [],
    };
    return { kind: 'create', id, fields, nameConflict: await menuNamed(site, name) };
  };
  try {
    const result = await site.commands.handle(menuStreamId(id), menuDecider, prepare, metadata);
    await site.claims.releaseAllBut(MENU_SLUG_SCOPE, claimed, result.state.menu?.slug ?? null, id, metadata);
    return { id, state: result.state, position: result.position };
  } catch (error) {
    await site.claims.releaseAllBut(MENU_SLUG_SCOPE, claimed, null, id, metadata);
    throw error;
  }
}

export async function updateMenu(
  site: Site,
  id: number,
  input: MenuInput,
  actor: Actor | null,
  requestId: string,
): Promise<MenuWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  const claimed: string[] = [];
  let previousSlug: string | null = null;
  const prepare = async (state: MenuState): Promise<MenuCommand> => {
    const current = state.menu;
    previousSlug = current?.slug ?? null;
    const changes: Partial<MenuFields> = {};
    let nameConflict: number | null = null;
    if (input.name !== undefined) {
      changes.name = sanitizeTermName(input.name);
      nameConflict = changes.name.trim() === '' ? null : await menuNamed(site, changes.name);
    }
    // WordPress saves the whole menu on every update: a description the request leaves out is emptied.
    changes.description = sanitizeTermDescription(input.description ?? '');
    if (input.autoAdd !== undefined) changes.autoAdd = input.autoAdd;
    if (input.locations !== undefined) changes.locations = input.locations;
    if (current) {
      const base = sanitizeSlug(changes.name ?? current.name) || String(id);
      const slug = await site.claims.claimFirstFree(
        MENU_SLUG_SCOPE,
        menuSlugCandidates(base, current.slug),
        id,
        metadata,
      );
      if (slug !== current.slug) {
        changes.slug = slug;
        claimed.push(slug);
      }
    }
    return { kind: 'update', id, input: changes, nameConflict };
  };
  try {
    const result = await site.commands.handle(menuStreamId(id), menuDecider, prepare, metadata);
    const after = result.state.menu?.slug ?? null;
    if (previousSlug !== null && after !== previousSlug)
      await site.claims.release(MENU_SLUG_SCOPE, previousSlug, id, metadata);
    await site.claims.releaseAllBut(MENU_SLUG_SCOPE, claimed, after, id, metadata);
    return { id, state: result.state, position: result.position };
  } catch (error) {
    await site.claims.releaseAllBut(MENU_SLUG_SCOPE, claimed, null, id, metadata);
    throw error;
  }
}

/**
 * The slugs a menu may take, in WordPress's order (wp_unique_term_slug): the base, which may be the menu's own, then
 * numbered ones, among which the menu's current slug counts as taken (WordPress looks the numbered ones up without
 * leaving the menu itself out), so that a menu named like another moves from `name-2` to `name-3` when saved.
 */
function* menuSlugCandidates(base: string, current: string | null): Generator<string, void, undefined> {
  for (const candidate of termSlugCandidates(base, [])) {
    if (candidate !== base && candidate === current) continue;
    yield candidate;
  }
}

/** Deletes a menu and, as WordPress does, every item in it (each its own `MenuItemDeleted`). */
export async function deleteMenu(
  site: Site,
  id: number,
  actor: Actor | null,
  requestId: string,
): Promise<MenuWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  let slug: string | null = null;
  const result = await site.commands.handle(
    menuStreamId(id),
    menuDecider,
    async (state: MenuState): Promise<MenuCommand> => {
      slug = state.menu?.slug ?? null;
      return { kind: 'delete', id };
    },
    metadata,
  );
  if (slug !== null) await site.claims.release(MENU_SLUG_SCOPE, slug, id, metadata);
  let position = result.position;
  const items = await menuItemsWhere(site, [{ kind: 'any', field: 'menus', values: [id] }]);
  for (const item of items) {
    const deleted = await deleteMenuItem(site, item.id, actor, requestId).catch(() => null);
    if (deleted) position = Math.max(position, deleted.position);
  }
  return { id, state: result.state, position };
}

// --- menu items ------------------------------------------------------------------------------------------------

export async function readMenuItemDoc(site: Site, id: number): Promise<MenuItemDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return (await site.readModel.get(MENU_ITEM_COLLECTION, id)) as MenuItemDoc | null;
}

export async function menuItemsWhere(site: Site, filters: readonly Filter[]): Promise<MenuItemDoc[]> {
  const { items } = await site.readModel.query(MENU_ITEM_COLLECTION, {
    filters,
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  return items as MenuItemDoc[];
}

/** WordPress's sanitize_html_class: percent-encoded octets and anything but letters, digits, `_` and `-` go. */
export function sanitizeHtmlClass(name: string): string {
  return name.replace(/%[a-fA-F0-9][a-fA-F0-9]/g, '').replace(/[^A-Za-z0-9_-]/g, '');
}

/** A list of class names (or XFN relations) as WordPress stores it: each sanitised, joined by spaces. */
export const joinClasses = (names: readonly string[]): string => names.map(sanitizeHtmlClass).join(' ');

async function gatherFacts(
  site: Site,
  id: number,
  base: Parameters<typeof mergeMenuItem>[1],
  input: MenuItemInput,
): Promise<MenuItemFacts> {
  const next = mergeMenuItem(id, base, input);
  return {
    menuExists: next.menu === 0 || (await readMenuDoc(site, next.menu)) !== null,
    archiveTypeExists: ARCHIVE_POST_TYPES.has(next.object),
    linkedTitle: await linkedTitle(site, next),
  };
}

/** WordPress's decoding of `&amp;`, `&lt;` and `&gt;` (named, decimal or hex) when it compares titles. */
const decodeSpecialChars = (text: string): string =>
  text
    .replace(/&(?:amp|#0*38|#x0*26);/gi, '&')
    .replace(/&(?:lt|#0*60|#x0*3c);/gi, '<')
    .replace(/&(?:gt|#0*62|#x0*3e);/gi, '>');

/** The title of what an object item links to, as the decider compares it (see MenuItemFacts.linkedTitle). */
async function linkedTitle(site: Site, item: ReturnType<typeof mergeMenuItem>): Promise<string | null> {
  if (item.type === 'post_type') {
    const post =
      item.object_id > 0
        ? ((await site.readModel.get(item.object, item.object_id).catch(() => null)) as ContentDoc | null)
        : null;
    return post ? decodeSpecialChars(post.title) : null;
  }
  if (item.type === 'taxonomy') {
    const term = item.object_id > 0 ? await readTermDoc(site, item.object_id) : null;
    return term && term.taxonomy === item.object ? decodeSpecialChars(term.name) : null;
  }
  if (item.type === 'post_type_archive') return archiveTitle(item.object) || null;
  return null;
}

/** A post-type item without `object` links to whatever the post is (post or page). */
async function withObjectType(
  site: Site,
  input: MenuItemInput,
  type: string,
  objectId: number,
): Promise<MenuItemInput> {
  if (type !== 'post_type' || input.object !== undefined || objectId === 0) return input;
  for (const collection of ['post', 'page']) {
    if (await site.readModel.get(collection, objectId)) return { ...input, object: collection };
  }
  return input;
}

/**
 * The slug a write that first publishes the item needs ('' for any other write), claimed in the event store so that
 * two items never share one; recorded in `claimed` so that what the write does not keep is released.
 */
async function claimSlugIfPublishing(
  site: Site,
  id: number,
  currentSlug: string,
  next: ReturnType<typeof mergeMenuItem>,
  claimed: string[],
  metadata: EventMetadata,
): Promise<string> {
  if (!menuItemNeedsSlug(currentSlug, next)) return '';
  const slug = await site.claims.claimFirstFree(
    MENU_ITEM_SLUG_SCOPE,
    slugCandidates(menuItemSlugBase(id, next.title), 'nav_menu_item'),
    id,
    metadata,
  );
  claimed.push(slug);
  return slug;
}

/**
 * `imported`, for an import keeping the source's ids and times: `chosenId`, an id the caller reserved, instead of the
 * next free one; `at`, the item's own creation time (ms), instead of now.
 */
export async function createMenuItem(
  site: Site,
  sent: MenuItemInput,
  actor: Actor,
  requestId: string,
  imported?: { chosenId?: number; at?: number },
): Promise<MenuItemWriteOutcome> {
  const metadata = site.metadata(actor.id, requestId);
  const id = imported?.chosenId ?? (await site.ids.content.nextId());
  const claimed: string[] = [];
  const prepare = async (): Promise<MenuItemCommand> => {
    const input = await withObjectType(site, sent, sent.type ?? MENU_ITEM_DEFAULTS.type, sent.object_id ?? 0);
    const facts = await gatherFacts(site, id, MENU_ITEM_DEFAULTS, input);
    const slug = await claimSlugIfPublishing(
      site,
      id,
      '',
      withOwnTitle(mergeMenuItem(id, MENU_ITEM_DEFAULTS, input), facts),
      claimed,
      metadata,
    );
    return {
      kind: 'create',
      id,
      input,
      facts,
      slug,
      actorId: actor.id,
      now: formatLocal(imported?.at ?? site.clock.now(), site.settings.timezone),
    };
  };
  try {
    const result = await site.commands.handle(menuItemStreamId(id), menuItemDecider, prepare, metadata);
    await site.claims.releaseAllBut(MENU_ITEM_SLUG_SCOPE, claimed, result.state.item?.slug ?? null, id, metadata);
    return { id, state: result.state, position: result.position };
  } catch (error) {
    await site.claims.releaseAllBut(MENU_ITEM_SLUG_SCOPE, claimed, null, id, metadata);
    throw error;
  }
}

export async function updateMenuItem(
  site: Site,
  id: number,
  sent: MenuItemInput,
  actor: Actor,
  requestId: string,
): Promise<MenuItemWriteOutcome> {
  const metadata = site.metadata(actor.id, requestId);
  const claimed: string[] = [];
  let slugBefore: string | null = null;
  const prepare = async (state: MenuItemState): Promise<MenuItemCommand> => {
    const now = formatLocal(site.clock.now(), site.settings.timezone);
    if (!state.item)
      return {
        kind: 'update',
        id,
        input: sent,
        facts: { menuExists: false, archiveTypeExists: false, linkedTitle: null },
        slug: '',
        now,
      };
    slugBefore = state.item.slug;
    const input = await withObjectType(
      site,
      sent,
      sent.type ?? state.item.type,
      sent.object_id ?? state.item.object_id,
    );
    const facts = await gatherFacts(site, id, state.item, input);
    const slug = await claimSlugIfPublishing(
      site,
      id,
      state.item.slug,
      withOwnTitle(mergeMenuItem(id, state.item, input), facts),
      claimed,
      metadata,
    );
    return { kind: 'update', id, input, facts, slug, now };
  };
  try {
    const result = await site.commands.handle(menuItemStreamId(id), menuItemDecider, prepare, metadata);
    // A retry that found the item already named (another writer published it) keeps that name, not this claim.
    await site.claims.releaseAllBut(MENU_ITEM_SLUG_SCOPE, claimed, result.state.item?.slug ?? slugBefore, id, metadata);
    return { id, state: result.state, position: result.position };
  } catch (error) {
    await site.claims.releaseAllBut(MENU_ITEM_SLUG_SCOPE, claimed, null, id, metadata);
    throw error;
  }
}

export interface MenuItemAutosaveOutcome {
  position: number;
  /** True when the caller's own draft was saved in place (no autosave made). */
  savedItem: boolean;
  /** The autosave made (null when the item itself was saved). */
  autosaveId: number | null;
  /** When the item itself was saved: its last save through the item and its first publication (see MenuItemState). */
  itemDates: { savedAt: string | null; publishedAt: string | null } | null;
}

/**
 * Autosaves a menu item for the actor (see the decider's rule). A discarded autosave is recorded, read back,
 * and then refused with `rest_autosave_no_changes`, as WordPress deletes it and answers with that error.
 */
export async function autosaveMenuItem(
  site: Site,
  id: number,
  actor: Actor,
  requestId: string,
): Promise<MenuItemAutosaveOutcome> {
  const metadata = site.metadata(actor.id, requestId);
  let savedItem = false;
  const prepare = async (state: MenuItemState): Promise<MenuItemCommand> => {
    savedItem = autosaveSavesMenuItem(state, actor.id);
    const needsId = !savedItem && state.exists && state.autosaves[actor.id] === undefined;
    const now = site.clock.now();
    return {
      kind: 'autosave',
      id,
      actorId: actor.id,
      autosaveId: needsId ? await site.ids.content.nextId() : 0,
      now: formatLocal(now, site.settings.timezone),
      nowGmt: formatGmt(now),
    };
  };
  const result = await site.commands.handle(menuItemStreamId(id), menuItemDecider, prepare, metadata);
  if (result.events.some((event) => event.type === 'MenuItemAutosaveDiscarded')) {
    await site.settle(result.position);
    throw new NothingChanged('menuItem', 'autosave');
  }
  const saved = result.events.find((event) => event.type === 'MenuItemAutosaved');
  const itemDates = savedItem ? { savedAt: result.state.savedAt, publishedAt: result.state.publishedAt } : null;
  return {
    position: result.position,
    savedItem,
    autosaveId: saved ? (saved.data as { autosaveId: number }).autosaveId : null,
    itemDates,
  };
}

export async function deleteMenuItem(
  site: Site,
  id: number,
  actor: Actor | null,
  requestId: string,
): Promise<MenuItemWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  let slug = '';
  const result = await site.commands.handle(
    menuItemStreamId(id),
    menuItemDecider,
    async (state: MenuItemState): Promise<MenuItemCommand> => {
      slug = state.item?.slug ?? '';
      return { kind: 'delete', id };
    },
    metadata,
  );
  // WordPress deletes the item's row, which frees its name for the next item published with that title.
  if (slug !== '') await site.claims.release(MENU_ITEM_SLUG_SCOPE, slug, id, metadata);
  return { id, state: result.state, position: result.position };
}

/**
 * WordPress's `auto_add`: a page that becomes published at the top level joins every menu with auto_add on,
 * as a new published post-type item at the end (WordPress renumbers the items 1..n and places it one past the
 * last, so menu_order is n + 1; 0 in an empty menu),
 * unless the menu already links to the page. Each addition is a `MenuItemCreated` on its own menu-item stream,
 * made by the user who published the page. Returns the last position written (0 when nothing was added).
 */
export async function addPageToAutoAddMenus(
  site: Site,
  pageId: number,
  actor: Actor,
  requestId: string,
): Promise<number> {
  const { items } = await site.readModel.query(MENU_COLLECTION, {
    filters: [],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  let position = 0;
  for (const menu of items as MenuDoc[]) {
    if (!menu.auto_add) continue;
    const menuItems = await menuItemsWhere(site, [{ kind: 'any', field: 'menus', values: [menu.id] }]);
    if (menuItems.some((item) => item.object === 'page' && item.object_id === pageId)) continue;
    const menuOrder = menuItems.length === 0 ? 0 : menuItems.length + 1;
    const outcome = await createMenuItem(
      site,
      { type: 'post_type', object: 'page', object_id: pageId, menu: menu.id, status: 'publish', menu_order: menuOrder },
      actor,
      requestId,
    );
    position = Math.max(position, outcome.position);
  }
  return position;
}
