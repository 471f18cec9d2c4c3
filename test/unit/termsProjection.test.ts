/** The terms projection as a pure fold: term documents, post memberships, and the index entries counts use. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import terms, { MEMBERSHIP_COLLECTION, TERM_COLLECTION, countedField } from '../../projections/terms';
import type { TermDoc, TermMembershipDoc } from '../../projections/terms';
import type { RecordedEvent } from '../../src/ports/eventStore';
import type { PostFields } from '../../src/resources/content/events';

const test = suite('terms projection');

let position = 0;
const event = (type: string, data: unknown): RecordedEvent => ({
  id: `e${++position}`,
  streamId: 's',
  revision: 0,
  position,
  type,
  data,
  metadata: { userId: null, requestId: 'r', at: '2024-05-01T12:00:00.000Z' },
});

/** Folds events the way the projector does: each event into the document it locates. */
function fold(events: RecordedEvent[]): Map<string, TermDoc | TermMembershipDoc> {
  const docs = new Map<string, TermDoc | TermMembershipDoc>();
  for (const e of events) {
    assert.ok(terms.handles.includes(e.type), `${e.type} is handled`);
    const target = terms.locate(e);
    if (!target) continue;
    const key = `${target.collection}/${target.id}`;
    const next = terms.evolve(docs.get(key) ?? null, e);
    if (next) docs.set(key, next);
    else docs.delete(key);
  }
  return docs;
}

const post = (extra: Partial<PostFields>): Partial<PostFields> => ({
  status: 'publish',
  categories: [2],
  tags: [7],
  ...extra,
});

test('a term document follows its creation and updates, and disappears when deleted', () => {
  const docs = fold([
    event('TermCreated', { id: 2, taxonomy: 'category', name: 'News', slug: 'news', description: '', parent: 0 }),
    event('TermUpdated', { id: 2, taxonomy: 'category', changes: { name: 'World news', parent: 1 } }),
  ]);
  assert.equal(docs.get(`${TERM_COLLECTION}/2`), {
    id: 2,
    taxonomy: 'category',
    name: 'World news',
    slug: 'news',
    description: '',
    parent: 1,
  });
  const gone = fold([
    event('TermCreated', { id: 3, taxonomy: 'post_tag', name: 'x', slug: 'x', description: '', parent: 0 }),
    event('TermDeleted', { id: 3, taxonomy: 'post_tag', parent: 0 }),
  ]);
  assert.is(gone.size, 0);
});

test("a post's membership remembers its terms and status across partial updates", () => {
  const docs = fold([
    event('PostCreated', { id: 10, postType: 'post', post: post({ status: 'draft' }) }),
    event('PostUpdated', { id: 10, postType: 'post', changes: { status: 'publish' } }),
    event('PostUpdated', { id: 10, postType: 'post', changes: { tags: [7, 8] } }),
    event('PostUpdated', { id: 10, postType: 'post', changes: { title: 'unrelated' } }),
  ]);
  assert.equal(docs.get(`${MEMBERSHIP_COLLECTION}/10`), { id: 10, status: 'publish', categories: [2], tags: [7, 8] });
});

test('trashing keeps the membership but marks it trash; deleting removes it; pages are not tracked', () => {
  const docs = fold([
    event('PostCreated', { id: 10, postType: 'post', post: post({}) }),
    event('PostTrashed', {
      id: 10,
      postType: 'post',
      previousStatus: 'publish',
      slug: 'a__trashed',
      modified: '',
      modified_gmt: '',
    }),
    event('PostCreated', { id: 11, postType: 'post', post: post({}) }),
    event('PostDeleted', { id: 11, postType: 'post' }),
    event('PostCreated', { id: 12, postType: 'page', post: post({}) }),
  ]);
  assert.equal([...docs.keys()], [`${MEMBERSHIP_COLLECTION}/10`]);
  assert.is((docs.get(`${MEMBERSHIP_COLLECTION}/10`) as TermMembershipDoc).status, 'trash');
});

test('a membership counts toward its terms only while the post is published', () => {
  const published = terms.index!({ id: 10, status: 'publish', categories: [2, 3], tags: [7] }, MEMBERSHIP_COLLECTION);
  assert.equal(published.sets, { [countedField('category')]: [2, 3], [countedField('post_tag')]: [7] });
  for (const status of ['draft', 'private', 'future', 'trash', 'pending']) {
    const entry = terms.index!({ id: 10, status, categories: [2], tags: [7] }, MEMBERSHIP_COLLECTION);
    assert.equal(entry.sets, { [countedField('category')]: [], [countedField('post_tag')]: [] }, status);
  }
});

test('term index: descending keys order equal values by ascending id', () => {
  const key = (id: number, name: string) =>
    terms.index!({ id, taxonomy: 'category', name, slug: `s${id}`, description: '', parent: 0 }, TERM_COLLECTION).sort!
      .name_desc as string;
  const byDescendingKey = [key(3, 'Same'), key(9, 'Same'), key(5, 'Zed'), key(1, 'Alpha')].sort().reverse();
  assert.equal(byDescendingKey, [key(5, 'Zed'), key(3, 'Same'), key(9, 'Same'), key(1, 'Alpha')]);
  // A name that is a prefix of another sorts before it.
  assert.ok(key(1, 'ab') < key(2, 'abc'));
});

test('term index: sets for the list filters and the duplicate-name check', () => {
  const entry = terms.index!(
    { id: 4, taxonomy: 'post_tag', name: 'ÉTÉ News', slug: 'ete-news', description: 'D', parent: 0 },
    TERM_COLLECTION,
  );
  assert.equal(entry.sets, { taxonomy: 'post_tag', parent: 0, slug: 'ete-news', name_lower: 'ÉtÉ news' });
  assert.equal(entry.text, { name: 'ÉTÉ News', slug: 'ete-news' });
  assert.is(entry.sort!.name, 'été news');
});

test.run();
