/**
 * Navigation menus (the `nav_menu` taxonomy) as the REST API lists them: one document per menu, indexed for
 * the term list queries (`/core/v2/menus`).
 */
import { defineProjection } from '../src/projection/projection';
import type { MenuCreated, MenuUpdated } from '../src/resources/menus/events';
import { MENU_EVENT_TYPES } from '../src/resources/menus/events';
import { asciiLower } from './terms';

export const MENU_COLLECTION = 'menu';

export interface MenuDoc {
  id: number;
  name: string;
  slug: string;
  description: string;
  auto_add: boolean;
  locations: string[];
  [field: string]: unknown;
}

/** Descending sort keys whose ties still come out by ascending id, as MySQL breaks them (see projections/terms.ts). */
const ID_SPACE = 1e12;
const descendingKey = (value: string, id: number): string => `${value}\u0000${String(ID_SPACE - id).padStart(13, '0')}`;

export default defineProjection<MenuDoc>({
  name: 'menus',
  version: 1,
  collections: [MENU_COLLECTION],
  handles: MENU_EVENT_TYPES,
  locate: (event) => ({ collection: MENU_COLLECTION, id: (event.data as { id: number }).id }),
  evolve(doc, event) {
    switch (event.type) {
      case 'MenuCreated': {
        const { id, name, slug, description, autoAdd, locations } = event.data as MenuCreated;
        return { id, name, slug, description, auto_add: autoAdd, locations };
      }
      case 'MenuUpdated': {
        if (!doc) return null;
        const { autoAdd, ...changes } = (event.data as MenuUpdated).changes;
        return { ...doc, ...changes, ...(autoAdd !== undefined ? { auto_add: autoAdd } : {}) };
      }
      case 'MenuDeleted':
        return null;
      default:
        return doc;
    }
  },
  index(doc) {
    const name = doc.name.toLowerCase();
    const description = doc.description.toLowerCase();
    return {
      sort: {
        name,
        name_desc: descendingKey(name, doc.id),
        slug: doc.slug,
        description,
        description_desc: descendingKey(description, doc.id),
      },
      sets: { slug: doc.slug, name_lower: asciiLower(doc.name) },
      text: { name: doc.name, slug: doc.slug },
    };
  },
});
