/**
 * Read-model documents -> WordPress menus, menu items and their links, for one context. Pure: what an item
 * shows of the object it links to (title, URL, whether it still exists) is looked up by the caller and
 * handed in as `LinkedObject`.
 */
import type { MenuDoc } from '../../../projections/menus';
import type { MenuItemDoc } from '../../../projections/menuItems';
import type { Context } from '../../rest/schema';
import { filterByContext } from '../../rest/schema';
import { renderTitle } from '../../text/render';
import { menuItemSchema, menuSchema } from './schema';

/** The object a post-type, taxonomy or archive item links to, as found now; null when it is gone. */
export interface LinkedObject {
  title: string;
  url: string;
  /** The REST route of the object, for `wp:menu-item-object` (absent for archives). */
  href?: string;
}

const TYPE_LABELS: Record<string, string> = {
  post: 'Post',
  page: 'Page',
  attachment: 'Media',
  category: 'Category',
  post_tag: 'Tag',
};
const ARCHIVE_TITLES: Record<string, string> = {
  post: 'Post Archives',
  page: 'Page Archives',
  attachment: 'Media Archives',
};

export const archiveTitle = (postType: string): string => ARCHIVE_TITLES[postType] ?? '';

export function typeLabel(doc: MenuItemDoc): string {
  if (doc.type === 'custom') return 'Custom Link';
  if (doc.type === 'post_type_archive') return 'Post Type Archive';
  return TYPE_LABELS[doc.object] ?? doc.object;
}

export interface MenuItemPresentOptions {
  context: Context;
  apiRoot: string;
  /** For custom links: null. Otherwise the linked object, or null when it no longer exists. */
  linked: LinkedObject | null;
  /** `wp:action-*` relations the caller gets (edit context only). */
  actions?: readonly string[];
  /** False for a deleted item's `previous`, which WordPress gives without links. */
  links?: boolean;
}

export function presentMenuItem(doc: MenuItemDoc, options: MenuItemPresentOptions): Record<string, unknown> {
  const isCustom = doc.type === 'custom';
  const linked = options.linked;
  // An object item without a label of its own shows its object's title, "#id (no title)" when there is none. A
  // post's title is taken as displayed (texturized), raw included, as WordPress takes it from get_the_title.
  const fallback = linked?.title
    ? doc.type === 'post_type'
      ? renderTitle(linked.title)
      : linked.title
    : `#${doc.object_id} (no title)`;
  const title = isCustom || doc.title !== '' ? doc.title : fallback;
  const item: Record<string, unknown> = {
    id: doc.id,
    title: { raw: title, rendered: renderTitle(title) },
    status: doc.status,
    url: isCustom ? doc.url : (linked?.url ?? ''),
    attr_title: doc.attr_title,
    description: doc.description,
    type: doc.type,
    type_label: typeLabel(doc),
    object: doc.object,
    object_id: doc.object_id,
    parent: doc.parent,
    menu_order: doc.menu_order,
    target: doc.target,
    // Stored space-separated, so "no classes" reads back as one empty name, as in WordPress.
    classes: doc.classes.split(' '),
    xfn: doc.xfn.split(' '),
    invalid: !isCustom && linked === null,
    // No meta is registered: WordPress sends an empty (PHP) array.
    meta: [],
    ...(doc.menu !== 0 ? { menus: doc.menu } : {}),
  };
  const filtered = filterByContext(menuItemSchema, item, options.context) as Record<string, unknown>;
  if (options.links !== false) filtered._links = menuItemLinks(doc, options.apiRoot, linked, options.actions ?? []);
  return filtered;
}

export function menuItemLinks(
  doc: MenuItemDoc,
  apiRoot: string,
  linked: LinkedObject | null,
  actions: readonly string[],
): Record<string, unknown[]> {
  const collection = `${apiRoot}core/v2/menu-items`;
  const self = `${collection}/${doc.id}`;
  const links: Record<string, unknown[]> = {
    self: [{ href: self }],
    collection: [{ href: collection }],
    about: [{ href: `${apiRoot}core/v2/types/nav_menu_item` }],
    'wp:term': [{ taxonomy: 'nav_menu', embeddable: true, href: `${apiRoot}core/v2/menus?post=${doc.id}` }],
  };
  if (linked?.href && (doc.type === 'post_type' || doc.type === 'taxonomy')) {
    const kind = doc.type === 'post_type' ? 'post_type' : 'taxonomy';
    links['wp:menu-item-object'] = [{ [kind]: doc.object, embeddable: true, href: linked.href }];
  }
  for (const action of actions) links[`wp:action-${action}`] = [{ href: self }];
  links.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
  return links;
}

export interface MenuPresentOptions {
  context: Context;
  apiRoot: string;
  links?: boolean;
}

export function presentMenu(doc: MenuDoc, options: MenuPresentOptions): Record<string, unknown> {
  const item = {
    id: doc.id,
    description: doc.description,
    name: doc.name,
    slug: doc.slug,
    meta: [],
    locations: doc.locations,
    auto_add: doc.auto_add,
  };
  const filtered = filterByContext(menuSchema, item, options.context) as Record<string, unknown>;
  if (options.links !== false) {
    const collection = `${options.apiRoot}core/v2/menus`;
    filtered._links = {
      self: [{ href: `${collection}/${doc.id}` }],
      collection: [{ href: collection }],
      about: [{ href: `${options.apiRoot}core/v2/taxonomies/nav_menu` }],
      'wp:post_type': [{ href: `${options.apiRoot}core/v2/menu-items?menus=${doc.id}` }],
      curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
    };
  }
  return filtered;
}
