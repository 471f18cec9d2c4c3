/** The content projection as a pure fold: given events, the document and its index entry. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import content, { localTimeKey } from '../../projections/content';
import { withFields } from '../../src/projection/projection';
import type { ContentDoc } from '../../projections/content';
import { contentDecider, initialContentState } from '../../src/resources/content/decider';
import type { RecordedEvent } from '../../src/ports/eventStore';
import type { ContentEvent } from '../../src/resources/content/events';

const test = suite('content projection');
const ctx = { actorId: 3, now: Date.parse('2024-05-01T12:00:00Z'), timezone: 'UTC' };

let position = 0;
const recorded = (event: ContentEvent): RecordedEvent => ({
  id: String(++position),
  streamId: 'content-7',
  revision: position - 1,
  position,
  type: event.type,
  data: event.data,
  metadata: { userId: 3, requestId: 'r', at: '2024-05-01T12:00:00.000Z' },
});

function fold(events: ContentEvent[], start: ContentDoc | null = null): ContentDoc | null {
  return events.map(recorded).reduce<ContentDoc | null>((doc, event) => content.evolve(doc, event), start);
}

const created = contentDecider.decide(
  { kind: 'create', id: 7, postType: 'post', input: { title: 'Hello World', status: 'publish', categories: [4], tags: [5, 6] }, slug: 'hello-world', ...ctx },
  initialContentState(),
);

test('a created post becomes a document in the collection of its type, indexed for lists', () => {
  const [event] = created.map(recorded);
  assert.equal(content.locate(event!), { collection: 'post', id: 7 });
  const doc = fold(created)!;
  assert.is(doc.id, 7);
  assert.is(doc.type, 'post');
  assert.is(doc.revision_count, 0);
  const index = content.index!(doc, 'post');
  assert.equal(index.sets!.status, 'publish');
  assert.equal(index.sets!.tags, [5, 6]);
  assert.is(index.sort!.title, 'hello world');
  assert.is(index.sort!.date, localTimeKey('2024-05-01T12:00:00'));
  assert.equal(index.text, { title: 'Hello World', excerpt: '', content: '' });
});

test('updates merge their changes; revisions are counted; trash and delete', () => {
  const state = created.reduce(contentDecider.evolve, initialContentState());
  const updated = contentDecider.decide({ kind: 'update', id: 7, postType: 'post', input: { title: 'Again' }, slug: 'hello-world', revisionId: 9, ...ctx }, state);
  const doc = fold(updated, fold(created))!;
  assert.is(doc.title, 'Again');
  assert.is(doc.revision_count, 1);
  assert.is(doc.latest_revision_id, 9);
  const trashed = contentDecider.decide({ kind: 'trash', id: 7, postType: 'post', revisionId: null, ...ctx }, updated.reduce(contentDecider.evolve, state));
  const inTrash = fold(trashed, doc)!;
  assert.is(inTrash.status, 'trash');
  assert.is(inTrash.trashed_from, 'publish');
  assert.is(inTrash.slug, 'hello-world__trashed');
  assert.is(fold([{ type: 'PostDeleted', data: { id: 7, postType: 'post' } }], inTrash), null);
});

test('evolve never mutates the document it is given', () => {
  const doc = Object.freeze(fold(created)!);
  const state = created.reduce(contentDecider.evolve, initialContentState());
  const updated = contentDecider.decide({ kind: 'update', id: 7, postType: 'post', input: { title: 'Changed' }, slug: 'hello-world', revisionId: 9, ...ctx }, state);
  const next = fold(updated, doc)!;
  assert.is(doc.title, 'Hello World');
  assert.is(next.title, 'Changed');
});

test('withFields is the spread it stands for: same fields, same order, an own __proto__ kept as a field', () => {
  const base = JSON.parse('{"b":1,"a":{"x":[1]},"2":"two","title":"t"}') as Record<string, unknown>;
  const made = withFields(base, { id: 7, title: 'u', type: 'post' });
  assert.equal(JSON.stringify(made), JSON.stringify({ ...base, ...{ id: 7, title: 'u', type: 'post' } }));
  assert.is(made.a, base.a);
  assert.is(Object.getPrototypeOf(made), Object.prototype);
  const tricky = JSON.parse('{"__proto__":{"polluted":true},"title":"t"}') as Record<string, unknown>;
  const kept = withFields(tricky, { id: 1 });
  assert.is(Object.getPrototypeOf(kept), Object.prototype);
  assert.equal(JSON.stringify(kept), '{"__proto__":{"polluted":true},"title":"t","id":1}');
  assert.is((kept as { polluted?: boolean }).polluted, undefined);
});

test.run();
