/**
 * Posts, pages and reusable blocks as the REST API lists them: one document per item in the collection named by its post
 * type, with the indexes list queries filter and order by. Revisions are counted here for `_links`.
 */
import { defineProjection } from '../src/projection/projection';
import type { AutosaveDiscarded, PostAutosaved, PostCreated, PostDeleted, PostFields, PostRevised, PostTrashed, PostUpdated, PostType } from '../src/resources/content/events';
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
 * "YYYY-MM-DDTHH:MM:SS" site-local time as a sortable number (the wall clock read as if it were UTC). A year outside
 * 0000-9999 ("-0001-11-30", "10000-01-01"), which Date.parse does not read in this form, is read too: a NaN key would
 * stop the projection.
 */
export const localTimeKey = (local: string): number => {
  const fast = plainLocalTimeKey(local);
  if (fast !== null) return fast;
  const key = Date.parse(`${local}Z`);
  if (!Number.isNaN(key)) return key;
  const m = /^(-?\d+)-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(local);
  if (!m) return 0;
  const date = new Date(0);
  date.setUTCFullYear(+m[1]!, +m[2]! - 1, +m[3]!);
  date.setUTCHours(+m[4]!, +m[5]!, +m[6]!, 0);
  return Number.isNaN(date.getTime()) ? 0 : date.getTime();
};

const DAY_MS = 86_400_000;

/**
 * Date.parse(`${local}Z`) computed from the digits, for the form every stored date has: four-digit year, month 01-12,
 * day 01-31 (a day past the month's end runs into the next, as Date.parse reads it), hour 00-23, minutes and seconds
 * 00-59. null for anything else, which Date.parse reads. Each post's index has two of these keys: Date.parse took
 * about a tenth of a µs each, a start-up replay's 1-2%.
 */
function plainLocalTimeKey(local: string): number | null {
  if (local.length !== 19 || local.charCodeAt(4) !== 45 || local.charCodeAt(7) !== 45 || local.charCodeAt(10) !== 84 || local.charCodeAt(13) !== 58 || local.charCodeAt(16) !== 58) return null;
  const year = digits(local, 0, 4);
  const month = digits(local, 5, 2);
  const day = digits(local, 8, 2);
  const hour = digits(local, 11, 2);
  const minute = digits(local, 14, 2);
  const second = digits(local, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return null;
  return (daysSinceEpoch(year, month) + day - 1) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000;
}

/** The decimal number of `count` ASCII digits at `from`, or -1 when one is not a digit. */
function digits(text: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** Days from 1970-01-01 to the first of the month (proleptic Gregorian calendar; year >= 0). */
function daysSinceEpoch(year: number, month: number): number {
  // Years counted from March, so a leap day ends its year.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5);
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

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
        return { ...data.post, id: data.id, type: data.postType, trashed_from: null, revision_count: 0, latest_revision_id: null, last_revision_id: null, autosaves: {} };
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
        return { ...doc, revision_count: doc.revision_count + 1, latest_revision_id: data.revisionId, last_revision_id: data.revisionId };
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
        const latest = doc.latest_revision_id === data.autosaveId ? (Object.values(autosaves).sort((a, b) => b - a)[0] ?? doc.last_revision_id) : doc.latest_revision_id;
        return { ...doc, autosaves, revision_count: doc.revision_count - 1, latest_revision_id: latest };
      }
      case 'PostTrashed': {
        if (!doc) return null;
        const data = event.data as PostTrashed;
        return { ...doc, status: 'trash', slug: data.slug, trashed_from: data.previousStatus, modified: data.modified, modified_gmt: data.modified_gmt };
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
