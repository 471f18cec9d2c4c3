/**
 * A WXR menu item (a `nav_menu_item` item with its `_menu_item_*` meta and its `nav_menu` term) as the input of a
 * palimpsest menu item, its references rewritten to the ids the import gave: the menu, the linked post or term,
 * the parent item. Pure: the import gathers the id maps.
 */
import type { MenuItemInput } from '../../resources/menus/decider';
import { MENU_ITEM_TYPES } from '../../resources/menus/events';
import type { MenuItemType } from '../../resources/menus/events';
import { ARCHIVE_POST_TYPES } from '../../resources/menus/operations';
import type { WxrItem } from './read';

/** Statuses a menu item is carried with: WordPress keeps every menu item published or as a draft. */
export const MENU_ITEM_STATUSES = new Set(['publish', 'draft']);

/** Where the ids the import gave are found: by the file's ids (content, terms) and by the menu's slug. */
export interface MenuItemRefs {
  menus: Map<string, number>;
  /** Items of the file carried (or to be carried), by their id in the file. */
  content: Map<number, number>;
  /** The file's post types by id, to name what a skipped item links to. */
  postTypes: Map<number, string>;
  /** Categories and tags by their id in the file. */
  terms: Map<number, number>;
}

export type MenuItemPlan = { input: MenuItemInput; notes: string[] } | { skip: string };

const metaOf = (item: WxrItem, key: string): string => item.meta.find((meta) => meta.key === key)?.value ?? '';

/**
 * WordPress stores a menu item's classes as a PHP-serialized array of strings, each passed through
 * sanitize_html_class, so only `[A-Za-z0-9_-]` occurs in them: that one shape is read; any other is null.
 */
export function serializedClassList(value: string): string[] | null {
  if (value.trim() === '') return [];
  if (!/^a:\d+:\{(?:i:\d+;s:\d+:"[A-Za-z0-9_-]*";)*\}$/.test(value)) return null;
  const names = [...value.matchAll(/s:(\d+):"([A-Za-z0-9_-]*)";/g)];
  return names.every((match) => Number(match[1]) === match[2]!.length) ? names.map((match) => match[2]!) : null;
}

/** A list of class names as WordPress serializes it (the names are ASCII, so a string's length is its bytes). */
export const serializeClassList = (names: readonly string[]): string =>
  `a:${names.length}:{${names.map((name, index) => `i:${index};s:${name.length}:"${name}";`).join('')}}`;

export function menuItemPlan(item: WxrItem, refs: MenuItemRefs): MenuItemPlan {
  const menuSlug = item.terms.find((term) => term.taxonomy === 'nav_menu')?.slug;
  if (menuSlug === undefined) return { skip: 'it is in no menu' };
  const menu = refs.menus.get(menuSlug);
  if (menu === undefined) return { skip: `its menu "${menuSlug}" is not among the file's menus` };
  const type = metaOf(item, '_menu_item_type');
  if (!(MENU_ITEM_TYPES as readonly string[]).includes(type)) return { skip: `its type "${type}" is not known` };
  const object = metaOf(item, '_menu_item_object').trim();
  const linked = Number.parseInt(metaOf(item, '_menu_item_object_id'), 10) || 0;
  let objectId = 0;
  if (type === 'post_type') {
    const id = refs.content.get(linked);
    if (id === undefined)
      return { skip: `it links to ${refs.postTypes.get(linked) ?? 'item'} ${linked}, which is not carried` };
    objectId = id;
  } else if (type === 'taxonomy') {
    const id = object === 'category' || object === 'post_tag' ? refs.terms.get(linked) : undefined;
    if (id === undefined) return { skip: `it links to ${object} ${linked}, which is not carried` };
    objectId = id;
  } else if (type === 'post_type_archive' && !ARCHIVE_POST_TYPES.has(object)) {
    return { skip: `it links to the archive of "${object}", a post type not carried` };
  }
  const notes: string[] = [];
  const parentInFile = Number.parseInt(metaOf(item, '_menu_item_menu_item_parent'), 10) || 0;
  let parent = 0;
  if (parentInFile > 0) {
    const id = refs.content.get(parentInFile);
    if (id === undefined) notes.push(`its parent item ${parentInFile} is not carried: placed at the top`);
    else parent = id;
  }
  const classes = serializedClassList(metaOf(item, '_menu_item_classes'));
  if (classes === null) notes.push('its classes are not a list WordPress writes: left out');
  const target = metaOf(item, '_menu_item_target').trim();
  const input: MenuItemInput = {
    title: item.title,
    status: item.status,
    type: type as MenuItemType,
    url: type === 'custom' ? metaOf(item, '_menu_item_url').trim() : '',
    // WordPress saves an item's description as its content, a lone space when there is none.
    description: item.content.trim(),
    attr_title: item.excerpt,
    parent,
    menu_order: item.menuOrder,
    target: target === '_blank' ? '_blank' : '',
    classes: (classes ?? []).filter((name) => name !== '').join(' '),
    xfn: metaOf(item, '_menu_item_xfn').trim(),
    menu,
    ...(type === 'custom' ? {} : { object, object_id: objectId }),
  };
  if (type === 'custom' && input.title === '') return { skip: 'a custom link without a title' };
  if (type === 'custom' && input.url === '') return { skip: 'a custom link without a URL' };
  return { input, notes };
}
