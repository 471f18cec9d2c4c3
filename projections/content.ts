/**
 * Posts, pages and reusable blocks as the REST API lists them: one document per item in the collection named by its post
 * type, with the indexes list queries filter and order by. Revisions are counted here for `_links`.
 */
import { defineProjection } from '../src/projection/projection';
import type {
  AutosaveDiscarded,
  PostAutosaved,
  PostCreated,
  PostDeleted,
  PostFields,
  PostRevised,
  PostTrashed,
  PostUpdated,
  PostType,
} from '../src/resources/content/events';
import { CONTENT_EVENT_TYPES } from '../src/resources/content/events';
import type { RecordedEvent } from '../src/ports/eventStore';

export interface ContentDoc extends PostFields {
  id: number;
  type: PostType;
  /** Status before trashing, for capability checks on trashed items. */
  trashed_from: string | null;
  /** Revisions and autosaves together, as WordPress counts them for `version-history`. */
  revision_count: number;
  /** The newest revision or autosave, for `predecessor-version`. */
  latest_revision_id: number | null;
  /** The newest real revision, to fall back on when an autosave is discarded. */
  last_revision_id: number | null;
  /** Autosave id per user. */
  autosaves: Record<string, number>;
  [field: string]: unknown;
}

/**
 * "YYYY-MM-DDTHH:MM:SS" site-local time as a sortable number: the wall clock read as if it were UTC, by Date.parse.
 * What Date.parse does not read in this form (a year outside 0000-9999, "-0001-11-30" or "10000-01-01"; a field past
 * its range, month 13 or minute 60) is read by Date's own calendar, fields past their range rolling over as Date.parse
 * rolls a day past the month's end: a NaN key would stop the projection. Anything else is 0.
 */
export const localTimeKey = (local: string): number => {
  const key = Date.parse(`${local}Z`);
  if (!Number.isNaN(key)) return key;
  const fields = WALL_CLOCK.exec(local);
  if (!fields) return 0;
  const date = new Date(0);
  date.setUTCFullYear(Number(fields[1]), Number(fields[2]) - 1, Number(fields[3]));
  date.setUTCHours(Number(fields[4]), Number(fields[5]), Number(fields[6]), 0);
  const time = date.getTime();
  return Number.isNaN(time) ? 0 : time;
};

const WALL_CLOCK = /^(-?\d+)-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

export default defineProjection<ContentDoc>({
  name: 'content',
  version: 5,
  collections: ['post', 'page', 'wp_block'],
  handles: CONTENT_EVENT_TYPES,
  locate(event: RecordedEvent) {
    const data = event.data as { id: number; postType: PostType };
    return { collection: data.postType, id: data.id };
  },
  evolve(doc, event) {
    switch (event.type) {
      case 'PostCreated': {
        const data = event.data as PostCreated;
        return {
          ...data.post,
          id: data.id,
          type: data.postType,
          trashed_from: null,
          revision_count: 0,
          latest_revision_id: null,
          last_revision_id: null,
          autosaves: {},
        };
      }
      case 'PostUpdated': {
        if (!doc) return null;
        const next = { ...doc, ...(event.data as PostUpdated).changes };
        if (next.status !== 'trash') next.trashed_from = null;
        return next;
      }
      case 'PostRevised': {
        if (!doc) return null;
        const data = event.data as PostRevised;
        return {
          ...doc,
          revision_count: doc.revision_count + 1,
          latest_revision_id: data.revisionId,
          last_revision_id: data.revisionId,
        };
      }
      case 'PostAutosaved': {
        if (!doc) return null;
        const data = event.data as PostAutosaved;
        const isNew = doc.autosaves[data.userId] === undefined;
        return {
          ...doc,
          autosaves: { ...doc.autosaves, [data.userId]: data.autosaveId },
          revision_count: doc.revision_count + (isNew ? 1 : 0),
          latest_revision_id: data.autosaveId,
        };
      }
      case 'AutosaveDiscarded': {
        if (!doc) return null;
        const data = event.data as AutosaveDiscarded;
        const { [data.userId]: _gone, ...autosaves } = doc.autosaves;
        const latest =
          doc.latest_revision_id === data.autosaveId
            ? (Object.values(autosaves).sort((a, b) => b - a)[0] ?? doc.last_revision_id)
            : doc.latest_revision_id;
        return { ...doc, autosaves, revision_count: doc.revision_count - 1, latest_revision_id: latest };
      }
      case 'PostTrashed': {
        if (!doc) return null;
        const data = event.data as PostTrashed;
        return {
          ...doc,
          status: 'trash',
          slug: data.slug,
          trashed_from: data.previousStatus,
          modified: data.modified,
          modified_gmt: data.modified_gmt,
        };
      }
      case 'PostDeleted':
        void (event.data as PostDeleted);
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
        parent: doc.parent,
        menu_order: doc.menu_order,
      },
      sets: {
        status: doc.status,
        author: doc.author,
        slug: doc.slug,
        parent: doc.parent,
        categories: doc.categories,
        tags: doc.tags,
        sticky: doc.sticky ? 1 : 0,
        protected: doc.password !== '' ? 1 : 0,
      },
      text: { title: doc.title, excerpt: doc.excerpt, content: doc.content },
      // Lists filter on one status far more than on anything else: deep pages by rank (docs/performance.md).
      partitions: ['status'],
    };
  },
});
