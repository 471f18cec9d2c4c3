/**
 * The site settings an administrator changed (`/core/v2/settings`): one document, `site`, holding only the stored
 * values; the routes fill in the deployment's defaults for the rest.
 */
import { defineProjection } from '../src/projection/projection';
import type { SiteSettingsChanged, StoredSettings } from '../src/resources/settings/events';
import { SETTINGS_EVENT_TYPES } from '../src/resources/settings/events';

export const SETTINGS_COLLECTION = 'settings';
export const SETTINGS_DOC_ID = 'site';

export interface SettingsDoc extends Partial<StoredSettings> {
  id: string;
  [field: string]: unknown;
}

export default defineProjection<SettingsDoc>({
  name: 'settings',
  version: 1,
  collections: [SETTINGS_COLLECTION],
  handles: SETTINGS_EVENT_TYPES,
  locate: () => ({ collection: SETTINGS_COLLECTION, id: SETTINGS_DOC_ID }),
  evolve(doc, event) {
    if (event.type !== 'SiteSettingsChanged') return doc;
    const next: SettingsDoc = { ...(doc ?? { id: SETTINGS_DOC_ID }) };
    for (const [name, value] of Object.entries((event.data as SiteSettingsChanged).changes)) {
      if (value === null) delete next[name];
      else next[name] = value;
    }
    return next;
  },
});
