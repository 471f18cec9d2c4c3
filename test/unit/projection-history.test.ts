/** The pure folds behind history and as_of: diffs per event, and the content projection folded up to a moment. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordedEvent } from '../../src/ports/eventStore';
import type { PostFields } from '../../src/resources/content/events';
import { documentAsOf, happenedBy, historyOf } from '../../src/resources/history/fold';

const test = suite('history folds');

const fields: PostFields = {
  title: 'Hello',
  content: 'c',
  excerpt: '',
  slug: '',
  status: 'draft',
  password: '',
  author: 3,
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
  guid: '/?p=7',
};

let position = 100;
function event(
  revision: number,
  type: string,
  data: Record<string, unknown>,
  at: string,
  userId: number | null = 3,
): RecordedEvent {
  return {
    id: `e${revision}`,
    streamId: 'content-7',
    revision,
    position: position++,
    type,
    data: { id: 7, postType: 'post', ...data },
    metadata: { userId, requestId: `r${revision}`, at },
  };
}

const stream = [
  event(0, 'PostCreated', { post: fields }, '2024-05-01T12:00:00.250Z'),
  event(
    1,
    'PostUpdated',
    { changes: { title: 'Hi', modified: '2024-05-01T12:05:00', modified_gmt: '2024-05-01T12:05:00' } },
    '2024-05-01T12:05:00.000Z',
    1,
  ),
  event(
    2,
    'PostRevised',
    {
      revisionId: 8,
      title: 'Hi',
      content: 'c',
      excerpt: '',
      date: '2024-05-01T12:05:00',
      date_gmt: '2024-05-01T12:05:00',
    },
    '2024-05-01T12:05:00.000Z',
    1,
  ),
  event(
    3,
    'PostTrashed',
    { previousStatus: 'draft', slug: '', modified: '2024-05-01T12:10:00', modified_gmt: '2024-05-01T12:10:00' },
    '2024-05-01T12:10:00.000Z',
  ),
  event(4, 'PostDeleted', {}, '2024-05-01T12:15:00.000Z', null),
];

test('historyOf: one entry per event, with who, when and only the fields that changed', () => {
  const history = historyOf(stream);
  assert.equal(
    history.map((e) => e.type),
    ['PostCreated', 'PostUpdated', 'PostRevised', 'PostTrashed', 'PostDeleted'],
  );
  assert.equal(history[0]!.diff.title, { from: null, to: 'Hello' });
  assert.is(
    Object.keys(history[0]!.diff).length,
    Object.keys(fields).filter((k) => (fields as any)[k] !== null).length,
    'null fields are no change from nothing',
  );
  assert.equal(history[1]!.diff, {
    title: { from: 'Hello', to: 'Hi' },
    modified: { from: '2024-05-01T12:00:00', to: '2024-05-01T12:05:00' },
    modified_gmt: { from: '2024-05-01T12:00:00', to: '2024-05-01T12:05:00' },
  });
  assert.equal([history[1]!.user, history[1]!.request_id, history[1]!.time], [1, 'r1', '2024-05-01T12:05:00.000Z']);
  assert.equal([history[2]!.diff, history[2]!.revision_id], [{}, 8]);
  assert.equal(history[3]!.diff.status, { from: 'draft', to: 'trash' });
  assert.is(history[4]!.user, null);
  assert.is(history[4]!.diff.title!.to, null, 'deleted: every field goes');
});

test('documentAsOf: the content projection folded up to the moment, to the second', () => {
  assert.is(documentAsOf(stream, Date.parse('2024-05-01T11:59:59Z')), null);
  assert.is(
    documentAsOf(stream, Date.parse('2024-05-01T12:00:00Z'))!.title,
    'Hello',
    'an event counts from the start of its second',
  );
  const revised = documentAsOf(stream, Date.parse('2024-05-01T12:07:00Z'))!;
  assert.equal([revised.title, revised.revision_count, revised.latest_revision_id], ['Hi', 1, 8]);
  const trashed = documentAsOf(stream, Date.parse('2024-05-01T12:10:00Z'))!;
  assert.equal([trashed.status, trashed.trashed_from], ['trash', 'draft']);
  assert.is(documentAsOf(stream, Date.parse('2024-05-01T13:00:00Z')), null, 'deleted by then');
});

test("documentAsOf folds a prefix of the stream even when a writer's clock ran behind", () => {
  // The update was decided by a process whose clock was a minute slow: it still came after the creation.
  const skewed = [stream[0]!, { ...stream[1]!, metadata: { ...stream[1]!.metadata, at: '2024-05-01T11:59:00.000Z' } }];
  assert.is(documentAsOf(skewed, Date.parse('2024-05-01T11:58:59Z')), null);
  assert.is(
    documentAsOf(skewed, Date.parse('2024-05-01T11:59:30Z'))!.title,
    'Hi',
    'the update had happened, so everything before it too',
  );
  assert.is(documentAsOf(skewed, Date.parse('2024-05-01T12:00:00Z'))!.title, 'Hi');
  assert.ok(happenedBy(stream[0]!, Date.parse('2024-05-01T12:00:00Z')));
  assert.not.ok(happenedBy(stream[1]!, Date.parse('2024-05-01T12:04:59Z')));
});

test.run();
