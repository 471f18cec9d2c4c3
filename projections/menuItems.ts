/**
 * Menu items (the `nav_menu_item` post type) as the REST API lists them: one document per item with the
 * indexes of its list query (`/core/v2/menu-items`). What depends on the linked post or term (its title, URL,
 * whether it still exists) is looked up when presenting, so that it is never stale. Each item's autosaves (one
 * per user, `/core/v2/menu-items/{id}/autosaves`) fall out of its stream into the same document.
 */
import { defineProjection } from '../src/projection/projection';
import type {
  MenuItemAutosaveDiscarded,
  MenuItemAutosaved,
  MenuItemCreated,
  MenuItemFields,
  MenuItemUpdated,
} from '../src/resources/menus/events';
import { MENU_ITEM_EVENT_TYPES, withRecordedSlug } from '../src/resources/menus/events';
import { localTimeKey } from './content';

export const MENU_ITEM_COLLECTION = 'menu_item';

/** A user's autosave of the item: it holds no field of the item (see `MenuItemAutosaved`). */
export interface MenuItemAutosaveEntry {
  id: number;
  author: number;
  date: string;
  date_gmt: string;
}

export interface MenuItemDoc extends MenuItemFields {
  id: number;
  /** At most one per user, oldest first. */
  autosaves: MenuItemAutosaveEntry[];
  [field: string]: unknown;
}

export default defineProjection<MenuItemDoc>({
  name: 'menu-items',
  version: 3,
  collections: [MENU_ITEM_COLLECTION],
  handles: MENU_ITEM_EVENT_TYPES,
  locate: (event) => ({ collection: MENU_ITEM_COLLECTION, id: (event.data as { id: number }).id }),
  evolve(doc, event) {
    switch (event.type) {
      case 'MenuItemCreated': {
        const { id, item } = event.data as MenuItemCreated;
        return { ...withRecordedSlug(id, item, null), id, autosaves: [] } as MenuItemDoc;
      }
      case 'MenuItemUpdated': {
        const { id, changes } = event.data as MenuItemUpdated;
        return doc ? { ...doc, ...withRecordedSlug(id, changes, doc) } : null;
      }
      case 'MenuItemAutosaved': {
        if (!doc) return null;
        const data = event.data as MenuItemAutosaved;
        const entry: MenuItemAutosaveEntry = {
          id: data.autosaveId,
          author: data.userId,
          date: data.date,
          date_gmt: data.date_gmt,
        };
        return { ...doc, autosaves: [...doc.autosaves.filter((a) => a.author !== data.userId), entry] };
      }
      case 'MenuItemAutosaveDiscarded': {
        if (!doc) return null;
        const data = event.data as MenuItemAutosaveDiscarded;
        return { ...doc, autosaves: doc.autosaves.filter((a) => a.id !== data.autosaveId) };
      }
      case 'MenuItemDeleted':
        return null;
      default:
        return doc;
    }
  },
  index(doc) {
    // Empty while the item was never published: such items sort first by slug, as WordPress's empty post_name.
    const slug = doc.slug;
    return {
      sort: {
        date: localTimeKey(doc.date),
        modified: localTimeKey(doc.modified),
        title: doc.title.toLowerCase(),
        slug,
        author: doc.author,
        parent: doc.parent,
        menu_order: doc.menu_order,
      },
      sets: { status: doc.status, author: doc.author, slug, parent: doc.parent, menus: doc.menu },
      // WordPress keeps the attribute title as the excerpt and the description as the content.
      text: { title: doc.title, excerpt: doc.attr_title, content: doc.description },
    };
  },
});
