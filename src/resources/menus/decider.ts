/**
 * The deciders of menus and menu items: WordPress's write rules as pure functions of (command, state). What a
 * rule needs to know about other streams (a menu with the same name, whether the chosen menu or archive
 * exists) arrives in the command; the operations gather it.
 */
import type { Decider } from '../../core/commandHandler';
import { AlreadyExists, InvalidValue, NotFound } from '../../core/errors';
import { sanitizeSlug } from '../../text/slug';
import { withRecordedSlug } from './events';
import { asInt32Column } from '../../core/columnBounds';
import type { MenuEvent, MenuFields, MenuItemEvent, MenuItemFields } from './events';

// --- menus ---------------------------------------------------------------------------------------------------

export interface MenuState {
  exists: boolean;
  deleted: boolean;
  menu: MenuFields | null;
}

export type MenuCommand =
  /** `nameConflict`: the id of another menu with this name (ignoring case), or null. */
  | { kind: 'create'; id: number; fields: MenuFields; nameConflict: number | null }
  | { kind: 'update'; id: number; input: Partial<MenuFields>; nameConflict: number | null }
  | { kind: 'delete'; id: number };

/** Menu names are unique, ignoring case. */
const menuExists = (name: string, existingId: number): AlreadyExists =>
  new AlreadyExists('menu', 'name', { value: name, existingId });

function assertMenuName(name: string): void {
  if (/^[ \t\n\r\0\x0B]*$/.test(name)) throw new InvalidValue('menu', ['name'], 'empty');
}

export const initialMenuState = (): MenuState => ({ exists: false, deleted: false, menu: null });

export function evolveMenu(state: MenuState, event: MenuEvent): MenuState {
  switch (event.type) {
    case 'MenuCreated': {
      const { id: _id, ...menu } = event.data;
      return { exists: true, deleted: false, menu };
    }
    case 'MenuUpdated':
      return state.menu ? { ...state, menu: { ...state.menu, ...event.data.changes } } : state;
    case 'MenuDeleted':
      return { ...state, exists: false, deleted: true };
  }
}

function decideMenu(command: MenuCommand, state: MenuState): MenuEvent[] {
  const { id } = command;
  if (command.kind === 'create') {
    if (state.exists || state.deleted) throw new AlreadyExists('menu', 'id');
    assertMenuName(command.fields.name);
    if (command.nameConflict !== null) throw menuExists(command.fields.name, command.nameConflict);
    return [{ type: 'MenuCreated', data: { id, ...command.fields } }];
  }
  const current = state.menu;
  if (!state.exists || !current) throw new NotFound('menu');
  if (command.kind === 'delete') return [{ type: 'MenuDeleted', data: { id } }];

  const next: MenuFields = { ...current, ...stripUndefined(command.input) };
  if (command.input.name !== undefined) {
    assertMenuName(next.name);
    if (command.nameConflict !== null && command.nameConflict !== id) throw menuExists(next.name, command.nameConflict);
  }
  const changes: Partial<MenuFields> = {};
  for (const key of Object.keys(next) as (keyof MenuFields)[]) {
    if (JSON.stringify(next[key]) !== JSON.stringify(current[key]))
      (changes as Record<string, unknown>)[key] = next[key];
  }
  return Object.keys(changes).length === 0 ? [] : [{ type: 'MenuUpdated', data: { id, changes } }];
}

export const menuDecider: Decider<MenuState, MenuCommand, MenuEvent> = {
  initialState: initialMenuState,
  evolve: evolveMenu,
  decide: decideMenu,
};

// --- menu items ----------------------------------------------------------------------------------------------

export interface MenuItemState {
  exists: boolean;
  deleted: boolean;
  item: MenuItemFields | null;
  /** Each user's autosave id. */
  autosaves: Record<number, number>;
  /**
   * WordPress's dates of the item, which its REST fields do not show but the answer to an autosave of one's own
   * draft does (site-local times): `savedAt`, the last save through the item (its creation or an update; an autosave
   * keeps it); `publishedAt`, the first save that left it published (null while it never was: a floating draft).
   */
  savedAt: string | null;
  publishedAt: string | null;
}

/** The fields a write records itself rather than taking from the client. */
type RecordedField = 'author' | 'date' | 'modified' | 'slug' | 'guid';

/** The fields of an item a client's write decides. */
export type MenuItemWritable = Omit<MenuItemFields, RecordedField>;

/** What a client may write (already sanitised); absent fields are defaulted (create) or kept (update). */
export type MenuItemInput = Partial<Omit<MenuItemWritable, 'status'>> & { status?: string };

/** Facts about other streams the rules need, gathered for the item as it would be after the write. */
export interface MenuItemFacts {
  /** Whether the item's menu (when not 0) exists. */
  menuExists: boolean;
  /** For post-type archive items: whether the post type exists and has an archive. */
  archiveTypeExists: boolean;
  /**
   * For object items: the title of the linked post, term (entities of `&`, `<`, `>` decoded) or archive, as
   * WordPress compares an item's title with it; null for a custom link or an object that does not exist.
   */
  linkedTitle: string | null;
}

/**
 * `slug`: the name claimed for the item when the write publishes it for the first time (see `menuItemSlugBase`),
 * '' otherwise; a write that needs one and has none is refused as a programming error.
 */
export type MenuItemCommand =
  | {
      kind: 'create';
      id: number;
      input: MenuItemInput;
      facts: MenuItemFacts;
      slug: string;
      actorId: number;
      now: string;
    }
  | { kind: 'update'; id: number; input: MenuItemInput; facts: MenuItemFacts; slug: string; now: string }
  | { kind: 'delete'; id: number }
  /**
   * `autosaveId`: an id reserved for a new autosave (unused when the item itself is saved or the caller's
   * autosave is discarded). `now`/`nowGmt`: the site-local and UTC times of the request.
   */
  | { kind: 'autosave'; id: number; actorId: number; autosaveId: number; now: string; nowGmt: string };

export const MENU_ITEM_DEFAULTS: MenuItemWritable = {
  title: '',
  status: 'publish',
  url: '',
  attr_title: '',
  description: '',
  type: 'custom',
  object: '',
  object_id: 0,
  parent: 0,
  menu_order: 1,
  target: '',
  classes: '',
  xfn: '',
  menu: 0,
};

/**
 * The item as a write would leave it: `input` over `base`, with WordPress's normalisations (every status but
 * publish is a draft; a custom link is its own object). Pure, so the operations can gather facts about it.
 */
export function mergeMenuItem<Base extends MenuItemWritable>(id: number, base: Base, input: MenuItemInput): Base {
  const next = { ...base, ...stripUndefined(input) } as Base;
  next.status = next.status === 'publish' ? 'publish' : 'draft';
  next.menu_order = asInt32Column(next.menu_order);
  if (next.type === 'custom') {
    next.object = 'custom';
    next.object_id = id;
  }
  return next;
}

/**
 * WordPress keeps no title of its own for an object item given exactly its object's title: the item shows the
 * object's title (and follows it when it changes), and, untitled, is named by its id when first published.
 */
export function withOwnTitle<Item extends MenuItemWritable>(item: Item, facts: MenuItemFacts): Item {
  if (item.type === 'custom' || facts.linkedTitle === null || item.title !== facts.linkedTitle) return item;
  return { ...item, title: '' };
}

/** WordPress's checks of an item, in its order; a custom link missing both title and url reports both. */
function assertValidItem(item: MenuItemWritable, facts: MenuItemFacts): void {
  if (item.type === 'post_type_archive' && !facts.archiveTypeExists)
    throw new InvalidValue('menuItem', ['object'], 'unknownReference');
  if (item.type === 'custom') {
    const titleMissing = item.title === '';
    const urlMissing = item.url === '';
    if (titleMissing && urlMissing) throw new InvalidValue('menuItem', ['title', 'url'], 'required');
    if (titleMissing) throw new InvalidValue('menuItem', ['title'], 'required');
    if (urlMissing) throw new InvalidValue('menuItem', ['url'], 'required');
  }
  if (item.menu !== 0 && !facts.menuExists) throw new InvalidValue('menuItem', ['menu'], 'unknownReference');
}

/**
 * Whether a write leaving the item as `next` must give it a slug: WordPress names an item when it is first
 * published, and keeps that name (a draft again, retitled or republished) for as long as the item lives.
 */
export function menuItemNeedsSlug(currentSlug: string, next: Pick<MenuItemFields, 'status'>): boolean {
  return currentSlug === '' && next.status === 'publish';
}

/** The slug a newly published item asks for: from its own title (not the linked object's), else its id. */
export function menuItemSlugBase(id: number, title: string): string {
  return sanitizeSlug(title) || String(id);
}

export const initialMenuItemState = (): MenuItemState => ({
  exists: false,
  deleted: false,
  item: null,
  autosaves: {},
  savedAt: null,
  publishedAt: null,
});

export function evolveMenuItem(state: MenuItemState, event: MenuItemEvent): MenuItemState {
  switch (event.type) {
    case 'MenuItemCreated': {
      const item = withRecordedSlug(event.data.id, event.data.item, null) as MenuItemFields;
      return {
        ...state,
        exists: true,
        deleted: false,
        item,
        savedAt: item.date,
        publishedAt: item.status === 'publish' ? item.date : null,
      };
    }
    case 'MenuItemUpdated': {
      if (!state.item) return state;
      const { autosave } = event.data;
      const changes = withRecordedSlug(event.data.id, event.data.changes, state.item);
      const item = { ...state.item, ...changes };
      const savedAt = autosave === true ? state.savedAt : (changes.modified ?? state.savedAt);
      const publishedAt = state.publishedAt ?? (item.status === 'publish' ? (changes.modified ?? null) : null);
      return { ...state, item, savedAt, publishedAt };
    }
    case 'MenuItemDeleted':
      return { ...state, exists: false, deleted: true };
    case 'MenuItemAutosaved':
      return { ...state, autosaves: { ...state.autosaves, [event.data.userId]: event.data.autosaveId } };
    case 'MenuItemAutosaveDiscarded': {
      const { [event.data.userId]: _dropped, ...autosaves } = state.autosaves;
      return { ...state, autosaves };
    }
  }
}

/** Whether an autosave by this actor saves the item itself: their own draft (WordPress's rule for every post type). */
export function autosaveSavesMenuItem(state: MenuItemState, actorId: number): boolean {
  return state.item !== null && state.item.status === 'draft' && state.item.author === actorId;
}

function decideMenuItem(command: MenuItemCommand, state: MenuItemState): MenuItemEvent[] {
  const { id } = command;
  if (command.kind === 'create') {
    if (state.exists || state.deleted) throw new AlreadyExists('menuItem', 'id');
    const next = withOwnTitle(mergeMenuItem(id, MENU_ITEM_DEFAULTS, command.input), command.facts);
    assertValidItem(next, command.facts);
    const slug = menuItemNeedsSlug('', next) ? requireSlug(command.slug) : '';
    // WordPress fixes the guid at creation: the permalink then, a pretty one only for an item created published.
    const guid = slug !== '' ? `/${slug}/` : `/?p=${id}`;
    const item: MenuItemFields = {
      ...next,
      slug,
      guid,
      author: command.actorId,
      date: command.now,
      modified: command.now,
    };
    return [{ type: 'MenuItemCreated', data: { id, item } }];
  }
  const current = state.item;
  if (!state.exists || !current) throw new NotFound('menuItem');
  if (command.kind === 'delete') return [{ type: 'MenuItemDeleted', data: { id, menu: current.menu } }];
  if (command.kind === 'autosave') return decideAutosave(command, state);

  const next = withOwnTitle(mergeMenuItem(id, current, command.input), command.facts);
  assertValidItem(next, command.facts);
  if (menuItemNeedsSlug(current.slug, next)) next.slug = requireSlug(command.slug);
  const changes: Partial<MenuItemFields> = {};
  for (const key of Object.keys(next) as (keyof typeof next)[]) {
    if (next[key] !== current[key]) (changes as Record<string, unknown>)[key] = next[key];
  }
  // WordPress saves the item (and its modification time) even when nothing changed.
  changes.modified = command.now;
  return [{ type: 'MenuItemUpdated', data: { id, changes } }];
}

/**
 * WordPress's autosave of a menu item. The author's own draft is saved in place (nothing of it changes but
 * its modification time). Otherwise the autosave keeps none of the item's fields, so it never differs from
 * the item: a caller without an autosave gets a new (empty) one, and a caller who has one gets it discarded
 * (answered with `rest_autosave_no_changes`).
 */
function decideAutosave(
  command: Extract<MenuItemCommand, { kind: 'autosave' }>,
  state: MenuItemState,
): MenuItemEvent[] {
  const { id, actorId } = command;
  if (autosaveSavesMenuItem(state, actorId))
    return [{ type: 'MenuItemUpdated', data: { id, changes: { modified: command.now }, autosave: true } }];
  const existing = state.autosaves[actorId];
  if (existing !== undefined)
    return [{ type: 'MenuItemAutosaveDiscarded', data: { id, autosaveId: existing, userId: actorId } }];
  return [
    {
      type: 'MenuItemAutosaved',
      data: { id, autosaveId: command.autosaveId, userId: actorId, date: command.now, date_gmt: command.nowGmt },
    },
  ];
}

export const menuItemDecider: Decider<MenuItemState, MenuItemCommand, MenuItemEvent> = {
  initialState: initialMenuItemState,
  evolve: evolveMenuItem,
  decide: decideMenuItem,
};

/** The operations claim a slug for every write that publishes an item first; one without is a bug, not bad input. */
function requireSlug(slug: string): string {
  if (slug === '') throw new Error('a menu item published for the first time needs a claimed slug');
  return slug;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
