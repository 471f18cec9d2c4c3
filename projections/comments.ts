/**
 * Comments as the REST API lists them: one document per comment, the fold of its own stream, indexed for the list
 * query (`/core/v2/comments`: post, parent, author, email, status, type, dates, search) and for the checks of new
 * comments (the duplicate check by post, parent and text; the flood check by author or email and date).
 */
import { createHash } from 'node:crypto';
import { defineProjection } from '../src/projection/projection';
import type { CommentCreated, CommentPostRestored, CommentUpdated } from '../src/resources/comments/events';
import type { CommentFields } from '../src/resources/comments/events';
import { COMMENT_EVENT_TYPES } from '../src/resources/comments/events';
import { collationKey } from '../src/text/collation';
import { localTimeKey } from './content';

export const COMMENT_COLLECTION = 'comment';

export interface CommentDoc extends CommentFields {
  id: number;
  [field: string]: unknown;
}

/**
 * What makes two comments duplicates: the same post, parent and text, the text compared as WordPress's database
 * compares it (case, accents and trailing spaces aside: src/text/collation.ts). The author is compared on the
 * documents.
 */
export const duplicateKey = (post: number, parent: number, content: string): string =>
  `${post}:${parent}:${createHash('sha256').update(collationKey(content)).digest('hex')}`;

export default defineProjection<CommentDoc>({
  name: 'comments',
  version: 2,
  collections: [COMMENT_COLLECTION],
  handles: COMMENT_EVENT_TYPES,
  locate: (event) => ({ collection: COMMENT_COLLECTION, id: (event.data as { id: number }).id }),
  evolve(doc, event) {
    switch (event.type) {
      case 'CommentCreated': {
        const { id, comment } = event.data as CommentCreated;
        return { id, ...comment };
      }
      case 'CommentUpdated':
        return doc ? { ...doc, ...(event.data as CommentUpdated).changes } : null;
      case 'CommentPostTrashed':
        return doc ? { ...doc, status: 'post-trashed' } : null;
      case 'CommentPostRestored':
        return doc ? { ...doc, status: (event.data as CommentPostRestored).status } : null;
      case 'CommentDeleted':
        return null;
      default:
        return doc;
    }
  },
  index(doc) {
    return {
      sort: {
        date: localTimeKey(doc.date),
        date_gmt: localTimeKey(doc.date_gmt),
        post: doc.post,
        parent: doc.parent,
        type: doc.type,
      },
      sets: {
        post: doc.post,
        parent: doc.parent,
        author: doc.author,
        author_email: doc.author_email.toLowerCase(),
        author_ip: doc.author_ip,
        status: doc.status,
        type: doc.type,
        duplicate: duplicateKey(doc.post, doc.parent, doc.content),
      },
      text: {
        author_name: doc.author_name,
        author_email: doc.author_email,
        author_url: doc.author_url,
        author_ip: doc.author_ip,
        content: doc.content,
      },
      partitions: ['status'],
    };
  },
});
