/**
 * Example custom projection: how many words each author has published, per month of publication.
 *
 * An update of a post names only the fields that changed, so the author and month a post counted towards
 * are not in the event. The projection therefore keeps one small document per post (`…-posts`) with what it
 * currently contributes, and uses `related` to find the author-month totals an event moves words out of and
 * into: unpublishing, trashing, deleting, editing the text, changing the author or the date all adjust them.
 *
 * Copy it into `projections/` (or PROJECTIONS_DIR) to enable it; see docs/projections.md.
 */
import { defineProjection } from '../../src/projection/projection';
import type { Doc, IndexEntry } from '../../src/ports/readModel';
import type { RecordedEvent } from '../../src/ports/eventStore';
import type { PostCreated, PostUpdated } from '../../src/resources/content/events';
import { wordCount } from '../../src/text/words';

const TOTALS = 'published-word-count';
const POSTS = 'published-word-count-posts';

/** What one post counts towards. */
export interface PostWordsDoc extends Doc {
  id: number;
  author: number;
  status: string;
  /** "YYYY-MM" of the post's (site-local) date. */
  month: string;
  words: number;
}

/** Published words of one author in one month. */
export interface AuthorMonthDoc extends Doc {
  /** `author-{author}-{month}`. */
  id: string;
  author: number;
  month: string;
  words: number;
  /** Published posts counted. */
  posts: number;
}

const monthOf = (date: string) => date.slice(0, 7);
const totalsId = (post: PostWordsDoc) => `author-${post.author}-${post.month}`;
const counts = (post: PostWordsDoc | null): post is PostWordsDoc => post !== null && post.status === 'publish';

/** The post's document after the event (posts only: pages are not counted). */
function evolvePost(post: PostWordsDoc | null, event: RecordedEvent): PostWordsDoc | null {
  switch (event.type) {
    case 'PostCreated': {
      const { id, post: fields } = event.data as PostCreated;
      return {
        id,
        author: fields.author,
        status: fields.status,
        month: monthOf(fields.date),
        words: wordCount(fields.content),
      };
    }
    case 'PostUpdated': {
      if (!post) return null;
      const { changes } = event.data as PostUpdated;
      return {
        ...post,
        ...(changes.author !== undefined ? { author: changes.author } : {}),
        ...(changes.status !== undefined ? { status: changes.status } : {}),
        ...(changes.date !== undefined ? { month: monthOf(changes.date) } : {}),
        ...(changes.content !== undefined ? { words: wordCount(changes.content) } : {}),
      };
    }
    case 'PostTrashed':
      return post ? { ...post, status: 'trash' } : null;
    case 'PostDeleted':
      return null;
    default:
      return post;
  }
}

const postId = (event: RecordedEvent) => (event.data as { id: number }).id;

export default defineProjection<PostWordsDoc | AuthorMonthDoc>({
  name: 'published-word-count',
  version: 1,
  collections: [TOTALS, POSTS],
  handles: ['PostCreated', 'PostUpdated', 'PostTrashed', 'PostDeleted'],
  locate(event) {
    return (event.data as { postType: string }).postType === 'post' ? { collection: POSTS, id: postId(event) } : null;
  },
  related(event, read) {
    const before = read(POSTS, postId(event)) as PostWordsDoc | null;
    const after = evolvePost(before, event);
    return [before, after].filter(counts).map((post) => ({ collection: TOTALS, id: totalsId(post) }));
  },
  evolve(doc, event, context) {
    if (!context || context.collection === POSTS) return evolvePost(doc as PostWordsDoc | null, event);
    const before = context.read(POSTS, postId(event)) as PostWordsDoc | null;
    const after = evolvePost(before, event);
    const totals = (doc as AuthorMonthDoc | null) ?? {
      id: String(context.id),
      author: 0,
      month: '',
      words: 0,
      posts: 0,
    };
    let { words, posts } = totals;
    if (counts(before) && totalsId(before) === context.id) {
      words -= before.words;
      posts -= 1;
    }
    if (counts(after) && totalsId(after) === context.id) {
      words += after.words;
      posts += 1;
      return { ...totals, author: after.author, month: after.month, words, posts };
    }
    return posts > 0 ? { ...totals, words, posts } : null;
  },
  index(doc, collection): IndexEntry {
    if (collection === POSTS) {
      const post = doc as PostWordsDoc;
      return { sort: { words: post.words }, sets: { author: post.author, status: post.status, month: post.month } };
    }
    const totals = doc as AuthorMonthDoc;
    return {
      sort: { month: totals.month, words: totals.words, author: totals.author },
      sets: { author: totals.author, month: totals.month },
    };
  },
});
