/**
 * Events of navigation menus (`menu-{id}`, the `nav_menu` taxonomy; ids from the term sequence) and of menu
 * items (`menu-item-{id}`, the `nav_menu_item` post type; ids from the shared content sequence). Who and when
 * are in the event metadata; `docs/events.md` is the catalogue.
 */
import type { DomainEvent } from '../../core/commandHandler';

export interface MenuFields {
  /** HTML-escaped as terms are stored ("A &amp; B"). */
  name: string;
  /** Unique among menus. */
  slug: string;
  description: string;
  /** Whether new top-level pages are added to the menu (WordPress's `auto_add` menu option). */
  autoAdd: boolean;
  /** Theme locations the menu is assigned to (always empty: there is no theme, so no location exists). */
  locations: string[];
}

export interface MenuCreated extends MenuFields {
  id: number;
}

export interface MenuUpdated {
  id: number;
  /** Only the fields whose values changed. */
  changes: Partial<MenuFields>;
}

export interface MenuDeleted {
  id: number;
}

export type MenuEvent =
  | DomainEvent<'MenuCreated', MenuCreated>
  | DomainEvent<'MenuUpdated', MenuUpdated>
  | DomainEvent<'MenuDeleted', MenuDeleted>;

export const MENU_EVENT_TYPES = ['MenuCreated', 'MenuUpdated', 'MenuDeleted'] as const;
export const menuStreamId = (id: number): string => `menu-${id}`;

export const MENU_ITEM_TYPES = ['taxonomy', 'post_type', 'post_type_archive', 'custom'] as const;
export type MenuItemType = (typeof MENU_ITEM_TYPES)[number];

/** The stored fields of a menu item. What is derived from the linked object (its title, URL) is not stored. */
export interface MenuItemFields {
  /** As given; empty means "the linked object's title" for object items. */
  title: string;
  /** `publish` or `draft`: WordPress keeps every other status as a draft. */
  status: 'publish' | 'draft';
  /** Only meaningful for custom links; the URL of object items is the object's. */
  url: string;
  attr_title: string;
  description: string;
  type: MenuItemType;
  /** `custom` for custom links, else the post type or taxonomy (`page`, `category`…). */
  object: string;
  /** The linked post or term; 0 for custom links and archives. */
  object_id: number;
  /** The menu item this one is under, 0 at the top. */
  parent: number;
  menu_order: number;
  target: '' | '_blank';
  /** Space-separated class names, as WordPress stores them. */
  classes: string;
  /** Space-separated XFN relations. */
  xfn: string;
  /** The menu (a `nav_menu` term id), 0 for none. */
  menu: number;
  /**
   * WordPress's post_name: empty until the item is first published, then made from its title (its id when it has
   * none) and unique among menu items (claimed in scope `nav_menu_item`); never changed after. Absent from events
   * recorded before 2026-11-24, which fold with `withRecordedSlug`.
   */
  slug: string;
  /**
   * The path of WordPress's guid, fixed at creation: `/{slug}/` for an item created published, `/?p={id}` for one
   * created as a draft.
   */
  guid: string;
  /** Who created it. */
  author: number;
  /** Site-local creation and modification times (`YYYY-MM-DDTHH:MM:SS`), for list filters and order. */
  date: string;
  modified: string;
}

export interface MenuItemCreated {
  id: number;
  item: MenuItemFields;
}

/**
 * The item of a `MenuItemCreated` or the changes of a `MenuItemUpdated` as they fold. Events recorded before
 * items had a recorded slug carry none: such an item keeps what palimpsest showed for it then, its id as the slug
 * once published (the slug WordPress gives an untitled item) and `/?p={id}` as the guid. No name was claimed for
 * those ids. Pure; the decider and the projection both fold with it.
 */
export function withRecordedSlug<T extends Partial<MenuItemFields>>(
  id: number,
  fields: T,
  before: Pick<MenuItemFields, 'slug' | 'guid'> | null,
): T & Partial<Pick<MenuItemFields, 'slug' | 'guid'>> {
  if (before === null) {
    if (fields.slug !== undefined && fields.guid !== undefined) return fields;
    return {
      ...fields,
      slug: fields.slug ?? (fields.status === 'publish' ? String(id) : ''),
      guid: fields.guid ?? `/?p=${id}`,
    };
  }
  if (fields.status === 'publish' && fields.slug === undefined && before.slug === '')
    return { ...fields, slug: String(id) };
  return fields;
}

export interface MenuItemUpdated {
  id: number;
  /** Only the fields whose values changed (`modified` always; `slug` when the item is first published). */
  changes: Partial<MenuItemFields>;
  /**
   * True when an autosave by the author of a draft item saved it in place: WordPress then keeps the item's date,
   * where a save through the item itself sets it to the time of the save. Absent on updates (and on such autosaves
   * recorded before the field existed).
   */
  autosave?: true;
}

export interface MenuItemDeleted {
  id: number;
  /** The menu it was in. */
  menu: number;
}

/**
 * A user's autosave of a menu item. WordPress's autosave of a menu item keeps none of the item's fields (its
 * autosave holds a post's title, content and excerpt, which the menu-item write never fills in), so an
 * autosave is only who made it, when, and its id (from the shared content sequence).
 */
export interface MenuItemAutosaved {
  id: number;
  autosaveId: number;
  userId: number;
  /** Site-local and UTC times (`YYYY-MM-DDTHH:MM:SS`). */
  date: string;
  date_gmt: string;
}

/** A user's autosave removed because their next autosave had nothing to change (`rest_autosave_no_changes`). */
export interface MenuItemAutosaveDiscarded {
  id: number;
  autosaveId: number;
  userId: number;
}

export type MenuItemEvent =
  | DomainEvent<'MenuItemCreated', MenuItemCreated>
  | DomainEvent<'MenuItemUpdated', MenuItemUpdated>
  | DomainEvent<'MenuItemDeleted', MenuItemDeleted>
  | DomainEvent<'MenuItemAutosaved', MenuItemAutosaved>
  | DomainEvent<'MenuItemAutosaveDiscarded', MenuItemAutosaveDiscarded>;

export const MENU_ITEM_EVENT_TYPES = [
  'MenuItemCreated',
  'MenuItemUpdated',
  'MenuItemDeleted',
  'MenuItemAutosaved',
  'MenuItemAutosaveDiscarded',
] as const;
export const menuItemStreamId = (id: number): string => `menu-item-${id}`;
