/**
 * Each theme's user global styles (`/core/v2/global-styles/{id}`): one document per record, by its id.
 */
import { defineProjection } from '../src/projection/projection';
import type { GlobalStylesChanged, GlobalStylesCreated, ThemeJsonObject } from '../src/resources/globalStyles/events';
import { GLOBAL_STYLES_EVENT_TYPES } from '../src/resources/globalStyles/events';

export const GLOBAL_STYLES_COLLECTION = 'global_styles';

export interface GlobalStylesDoc {
  id: number;
  stylesheet: string;
  title: string;
  styles: ThemeJsonObject;
  settings: ThemeJsonObject;
  [field: string]: unknown;
}

export default defineProjection<GlobalStylesDoc>({
  name: 'globalStyles',
  version: 1,
  collections: [GLOBAL_STYLES_COLLECTION],
  handles: GLOBAL_STYLES_EVENT_TYPES,
  locate: (event) => ({ collection: GLOBAL_STYLES_COLLECTION, id: (event.data as { id: number }).id }),
  evolve(doc, event) {
    switch (event.type) {
      case 'GlobalStylesCreated': {
        const data = event.data as GlobalStylesCreated;
        return { id: data.id, stylesheet: data.stylesheet, title: data.title, styles: {}, settings: {} };
      }
      case 'GlobalStylesChanged':
        return doc ? { ...doc, ...(event.data as GlobalStylesChanged).changes } : null;
      default:
        return doc;
    }
  },
});
