/**
 * Categories and tags as the REST API lists them, and what their post counts are computed from.
 *
 * Two collections:
 * - `term`: one document per term (both taxonomies; ids are shared), indexed for the list queries.
 * - `term_membership`: one small document per post with its status and term ids as they are now. A post
 *   event can move a post in or out of several terms at once, and `PostUpdated` carries only what changed,
 *   so the post's previous terms must be remembered somewhere; a projection changes one document per event,
 *   so counts cannot be kept on the term documents themselves. Instead each membership document is indexed
 *   under the terms it counts for (only while the post is published, which is what WordPress counts), and
 *   a term's count is the size of that index entry: one read-model count query.
 */
import { defineProjection } from '../src/projection/projection';
import type { RecordedEvent } from '../src/ports/eventStore';
import type { IndexEntry } from '../src/ports/readModel';
import type { PostCreated, PostDeleted, PostTrashed, PostUpdated, PostType } from '../src/resources/content/events';
import type { Taxonomy, TermCreated, TermDeleted, TermUpdated } from '../src/resources/terms/events';
import { TERM_EVENT_TYPES } from '../src/resources/terms/events';

export const TERM_COLLECTION = 'term';
export const MEMBERSHIP_COLLECTION = 'term_membership';

export interface TermDoc {
  id: number;
  taxonomy: Taxonomy;
  name: string;
  slug: string;
  description: string;
  parent: number;
  [field: string]: unknown;
}

export interface TermMembershipDoc {
  /** The post's id. */
  id: number;
  status: string;
  categories: number[];
  tags: number[];
  [field: string]: unknown;
}

/** The membership index field whose entries count toward a term's `count`. */
export const countedField = (taxonomy: Taxonomy): string => `published_${taxonomy}`;

/**
 * Sort keys for descending orders: WordPress (MySQL) breaks ties by ascending id whatever the direction, while
 * the read model breaks them in the order's direction. Appending the id's complement makes ties come out
 * ascending in a descending walk.
 */
const ID_SPACE = 1e12;
const descendingKey = (value: string, id: number): string => `${value}\u0000${String(ID_SPACE - id).padStart(13, '0')}`;

/** Lower-cases ASCII letters only, as PHP's strtolower does (WordPress's duplicate-name check uses it). */
export const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (m) => m.toLowerCase());

const CONTENT_TYPES = new Set(['PostCreated', 'PostUpdated', 'PostTrashed', 'PostDeleted']);

type AnyDoc = TermDoc | TermMembershipDoc;

export default defineProjection<AnyDoc>({
  name: 'terms',
  version: 1,
  collections: [TERM_COLLECTION, MEMBERSHIP_COLLECTION],
  handles: [...TERM_EVENT_TYPES, ...CONTENT_TYPES],
  locate(event: RecordedEvent) {
    if (CONTENT_TYPES.has(event.type)) {
      const data = event.data as { id: number; postType: PostType };
      // Only posts carry categories and tags.
      return data.postType === 'post' ? { collection: MEMBERSHIP_COLLECTION, id: data.id } : null;
    }
    return { collection: TERM_COLLECTION, id: (event.data as { id: number }).id };
  },
  evolve(doc, event) {
    switch (event.type) {
      case 'TermCreated': {
        const { id, taxonomy, name, slug, description, parent } = event.data as TermCreated;
        return { id, taxonomy, name, slug, description, parent };
      }
      case 'TermUpdated':
        return doc ? { ...(doc as TermDoc), ...(event.data as TermUpdated).changes } : null;
      case 'TermDeleted':
        void (event.data as TermDeleted);
        return null;
      case 'PostCreated': {
        const { id, post } = event.data as PostCreated;
        return { id, status: post.status, categories: post.categories ?? [], tags: post.tags ?? [] };
      }
      case 'PostUpdated': {
        if (!doc) return null;
        const { changes } = event.data as PostUpdated;
        const next = { ...(doc as TermMembershipDoc) };
        if (changes.status !== undefined) next.status = changes.status;
        if (changes.categories !== undefined) next.categories = changes.categories;
        if (changes.tags !== undefined) next.tags = changes.tags;
        return next;
      }
      case 'PostTrashed':
        void (event.data as PostTrashed);
        return doc ? { ...(doc as TermMembershipDoc), status: 'trash' } : null;
      case 'PostDeleted':
        void (event.data as PostDeleted);
        return null;
      default:
        return doc;
    }
  },
  index(doc, collection): IndexEntry {
    if (collection === MEMBERSHIP_COLLECTION) {
      const membership = doc as TermMembershipDoc;
      const published = membership.status === 'publish';
      return {
        sets: {
          [countedField('category')]: published ? membership.categories : [],
          [countedField('post_tag')]: published ? membership.tags : [],
        },
      };
    }
    const term = doc as TermDoc;
    const name = term.name.toLowerCase();
    const description = term.description.toLowerCase();
    return {
      sort: {
        name,
        name_desc: descendingKey(name, term.id),
        slug: term.slug,
        description,
        description_desc: descendingKey(description, term.id),
      },
      sets: {
        taxonomy: term.taxonomy,
        parent: term.parent,
        slug: term.slug,
        name_lower: asciiLower(term.name),
      },
      text: { name: term.name, slug: term.slug },
    };
  },
});
