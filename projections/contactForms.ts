/**
 * Contact forms as the contact-form API lists and reads them: one document per form, indexed for the list's
 * order (`orderby` id, title, slug, date, modified) and search (title and form template).
 */
import { defineProjection } from '../src/projection/projection';
import type {
  ContactFormCreated,
  ContactFormProperties,
  ContactFormUpdated,
} from '../src/resources/contactForms/events';
import { CONTACT_FORM_EVENT_TYPES } from '../src/resources/contactForms/events';

export const CONTACT_FORM_COLLECTION = 'contact_form';

export interface ContactFormDoc {
  id: number;
  slug: string;
  title: string;
  locale: string;
  properties: ContactFormProperties;
  author: number;
  date: string;
  modified: string;
  [field: string]: unknown;
}

export default defineProjection<ContactFormDoc>({
  name: 'contact-forms',
  version: 1,
  collections: [CONTACT_FORM_COLLECTION],
  handles: CONTACT_FORM_EVENT_TYPES,
  locate: (event) => ({ collection: CONTACT_FORM_COLLECTION, id: (event.data as { id: number }).id }),
  evolve(doc, event) {
    switch (event.type) {
      case 'ContactFormCreated': {
        const { id, form } = event.data as ContactFormCreated;
        return { id, ...form };
      }
      case 'ContactFormUpdated':
        return doc ? { ...doc, ...(event.data as ContactFormUpdated).changes } : null;
      case 'ContactFormDeleted':
        return null;
      default:
        return doc;
    }
  },
  index(doc) {
    return {
      sort: { title: doc.title.toLowerCase(), slug: doc.slug, date: doc.date, modified: doc.modified },
      text: { title: doc.title, content: doc.properties.form },
    };
  },
});
