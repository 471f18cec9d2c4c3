/**
 * Attachments as the media collection lists them: one document per attachment in the `attachment`
 * collection, with the indexes the media list query filters and orders by.
 */
import { defineProjection } from '../src/projection/projection';
import type { AttachmentCreated, AttachmentFields, AttachmentUpdated } from '../src/resources/media/events';
import { MEDIA_EVENT_TYPES } from '../src/resources/media/events';
import type { RecordedEvent } from '../src/ports/eventStore';
import { localTimeKey } from './content';

export interface MediaDoc extends AttachmentFields {
  id: number;
  type: 'attachment';
  [field: string]: unknown;
}

/** `image/jpeg` → `image`: what the `media_type` filter matches. */
export const mediaTypeOf = (mime: string): string => mime.split('/')[0] ?? '';

export default defineProjection<MediaDoc>({
  name: 'media',
  version: 1,
  collections: ['attachment'],
  handles: MEDIA_EVENT_TYPES,
  locate(event: RecordedEvent) {
    return { collection: 'attachment', id: (event.data as { id: number }).id };
  },
  evolve(doc, event) {
    switch (event.type) {
      case 'AttachmentCreated': {
        const data = event.data as AttachmentCreated;
        return { ...data.attachment, id: data.id, type: 'attachment' };
      }
      case 'AttachmentUpdated':
        return doc ? { ...doc, ...(event.data as AttachmentUpdated).changes } : null;
      case 'AttachmentDeleted':
        return null;
      default:
        return doc;
    }
  },
  index(doc) {
    return {
      sort: {
        date: localTimeKey(doc.date),
        modified: localTimeKey(doc.modified),
        title: doc.title.toLowerCase(),
        slug: doc.slug,
        author: doc.author,
        parent: doc.post,
      },
      sets: {
        status: doc.status,
        author: doc.author,
        slug: doc.slug,
        parent: doc.post,
        media_type: mediaTypeOf(doc.mime_type),
        mime_type: doc.mime_type,
        protected: 0,
      },
      // Named as the post text fields, so the posts' search and relevance machinery applies; media search
      // also looks in the file name, as WordPress's does.
      text: { title: doc.title, excerpt: doc.caption, content: doc.description, file: doc.media_details.file },
    };
  },
});
