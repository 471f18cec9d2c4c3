/** The example projection: published words per author per month, kept right through every kind of change. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { Projector } from '../../src/projection/runner';
import type { Projection } from '../../src/projection/projection';
import type { NewEvent } from '../../src/ports/eventStore';
import type { PostFields } from '../../src/resources/content/events';
import wordCount from '../../projections/examples/publishedWordCount';

const test = suite('published word count projection');

const metadata = { userId: 1, requestId: 'r', at: '2024-05-01T12:00:00.000Z' };

function post(fields: Partial<PostFields>): PostFields {
  return {
    title: 'T',
    content: '',
    excerpt: '',
    slug: '',
    status: 'draft',
    password: '',
    author: 1,
    featured_media: 0,
    comment_status: 'open',
    ping_status: 'open',
    sticky: false,
    template: '',
    format: 'standard',
    meta: { footnotes: '' },
    categories: [],
    tags: [],
    parent: 0,
    menu_order: 0,
    date: '2024-05-01T12:00:00',
    date_gmt: null,
    modified: '2024-05-01T12:00:00',
    modified_gmt: '2024-05-01T12:00:00',
    guid: '/?p=1',
    ...fields,
  };
}

const created = (id: number, fields: Partial<PostFields>, postType = 'post'): NewEvent => ({
  type: 'PostCreated',
  data: { id, postType, post: post(fields) },
  metadata,
});
const updated = (id: number, changes: Partial<PostFields>): NewEvent => ({
  type: 'PostUpdated',
  data: { id, postType: 'post', changes },
  metadata,
});
const trashed = (id: number): NewEvent => ({
  type: 'PostTrashed',
  data: { id, postType: 'post', previousStatus: 'publish', slug: 'x__trashed', modified: '', modified_gmt: '' },
  metadata,
});
const deleted = (id: number): NewEvent => ({ type: 'PostDeleted', data: { id, postType: 'post' }, metadata });

/** The author-month totals after folding the events, as {id: words/posts}. */
async function totals(events: NewEvent[]): Promise<Record<string, string>> {
  const store = createMemoryEventStore();
  const readModel = createMemoryReadModel();
  for (const event of events) {
    const id = (event.data as { id: number }).id;
    await store.appendToStream(`content-${id}`, [event], { expectedRevision: 'any' });
  }
  const projector = new Projector({
    store,
    readModel,
    projections: [wordCount as unknown as Projection],
    maxBatchSize: 2,
  });
  await projector.start();
  await projector.stop();
  const { items } = await readModel.query('published-word-count', {
    filters: [],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  return Object.fromEntries(items.map((doc) => [doc.id, `${doc.words}/${doc.posts}`]));
}

const five = 'one two three four five';
const three = '<p>alpha <b>beta</b> gamma</p>';

test('published posts count their words towards their author and month; drafts and pages do not', async () => {
  assert.equal(
    await totals([
      created(1, { status: 'publish', content: five }),
      created(2, { status: 'publish', content: three }),
      created(3, { status: 'draft', content: five }),
      created(4, { status: 'publish', content: five, author: 2, date: '2024-06-03T08:00:00' }),
      created(5, { status: 'publish', content: five }, 'page'),
    ]),
    { 'author-1-2024-05': '8/2', 'author-2-2024-06': '5/1' },
  );
});

test('publishing a draft adds it; editing its text changes the count', async () => {
  assert.equal(await totals([created(1, { content: five }), updated(1, { status: 'publish' })]), {
    'author-1-2024-05': '5/1',
  });
  assert.equal(await totals([created(1, { status: 'publish', content: five }), updated(1, { content: three })]), {
    'author-1-2024-05': '3/1',
  });
});

test('unpublishing, trashing and deleting take the words away again', async () => {
  assert.equal(await totals([created(1, { status: 'publish', content: five }), updated(1, { status: 'draft' })]), {});
  assert.equal(
    await totals([
      created(1, { status: 'publish', content: five }),
      created(2, { status: 'publish', content: three }),
      trashed(1),
    ]),
    { 'author-1-2024-05': '3/1' },
  );
  assert.equal(await totals([created(1, { status: 'publish', content: five }), deleted(1)]), {});
  assert.equal(await totals([created(1, { status: 'publish', content: five }), updated(1, { status: 'private' })]), {});
});

test('a new author or a new date moves the words to the other author-month', async () => {
  assert.equal(
    await totals([
      created(1, { status: 'publish', content: five }),
      created(2, { status: 'publish', content: three }),
      updated(1, { author: 7 }),
    ]),
    { 'author-1-2024-05': '3/1', 'author-7-2024-05': '5/1' },
  );
  assert.equal(
    await totals([
      created(1, { status: 'publish', content: five }),
      updated(1, { date: '2023-12-31T23:00:00', content: three }),
    ]),
    { 'author-1-2023-12': '3/1' },
  );
});

test('an edit while unpublished counts once it is published again', async () => {
  assert.equal(
    await totals([
      created(1, { status: 'publish', content: five }),
      updated(1, { status: 'pending' }),
      updated(1, { content: three }),
      updated(1, { status: 'publish' }),
    ]),
    { 'author-1-2024-05': '3/1' },
  );
});

test('the per-post documents say what each post counts towards', async () => {
  const store = createMemoryEventStore();
  const readModel = createMemoryReadModel();
  await store.appendToStream('content-9', [created(9, { status: 'publish', content: five, author: 3 })], {
    expectedRevision: 'any',
  });
  const projector = new Projector({ store, readModel, projections: [wordCount as unknown as Projection] });
  await projector.start();
  assert.equal(await readModel.get('published-word-count-posts', 9), {
    id: 9,
    author: 3,
    status: 'publish',
    month: '2024-05',
    words: 5,
  });
  assert.equal(await readModel.get('published-word-count', 'author-3-2024-05'), {
    id: 'author-3-2024-05',
    author: 3,
    month: '2024-05',
    words: 5,
    posts: 1,
  });
  await projector.stop();
});

test.run();
