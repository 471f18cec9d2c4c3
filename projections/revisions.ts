/**
 * Revisions and autosaves, falling out of the content streams: one document per item holding its revisions
 * (oldest first) and its autosaves (one per user). Revision and autosave ids come from the shared id
 * sequence, so a set index finds the item a revision belongs to.
 */
import { defineProjection } from '../src/projection/projection';
import type {
  AutosaveDiscarded,
  PostAutosaved,
  PostCreated,
  PostRevised,
  PostType,
} from '../src/resources/content/events';
import { CONTENT_EVENT_TYPES } from '../src/resources/content/events';

export interface RevisionEntry {
  id: number;
  author: number;
  date: string;
  date_gmt: string;
  title: string;
  content: string;
  excerpt: string;
  autosave: boolean;
}

export interface RevisionsDoc {
  /** The item's id. */
  id: number;
  type: PostType;
  revisions: RevisionEntry[];
  autosaves: RevisionEntry[];
  [field: string]: unknown;
}

export default defineProjection<RevisionsDoc>({
  name: 'revisions',
  version: 1,
  collections: ['revisions'],
  handles: CONTENT_EVENT_TYPES,
  locate(event) {
    return { collection: 'revisions', id: (event.data as { id: number }).id };
  },
  evolve(doc, event) {
    switch (event.type) {
      case 'PostCreated': {
        const data = event.data as PostCreated;
        return { id: data.id, type: data.postType, revisions: [], autosaves: [] };
      }
      case 'PostRevised': {
        if (!doc) return null;
        const data = event.data as PostRevised;
        const entry: RevisionEntry = {
          id: data.revisionId,
          author: event.metadata.userId ?? 0,
          date: data.date,
          date_gmt: data.date_gmt,
          title: data.title,
          content: data.content,
          excerpt: data.excerpt,
          autosave: false,
        };
        return { ...doc, revisions: [...doc.revisions, entry] };
      }
      case 'PostAutosaved': {
        if (!doc) return null;
        const data = event.data as PostAutosaved;
        const entry: RevisionEntry = {
          id: data.autosaveId,
          author: data.userId,
          date: data.date,
          date_gmt: data.date_gmt,
          title: data.title,
          content: data.content,
          excerpt: data.excerpt,
          autosave: true,
        };
        return { ...doc, autosaves: [...doc.autosaves.filter((a) => a.author !== data.userId), entry] };
      }
      case 'AutosaveDiscarded': {
        if (!doc) return null;
        const data = event.data as AutosaveDiscarded;
        return { ...doc, autosaves: doc.autosaves.filter((a) => a.id !== data.autosaveId) };
      }
      case 'PostDeleted':
        // WordPress deletes an item's revisions with it.
        return null;
      default:
        return doc;
    }
  },
  index(doc) {
    return { sets: { revision_ids: [...doc.revisions, ...doc.autosaves].map((r) => r.id) } };
  },
});
