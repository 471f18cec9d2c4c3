/** The content projection as a pure fold: given events, the document and its index entry. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import content, { localTimeKey } from '../../projections/content';
import { deepFreeze } from '../../src/core/deepFreeze';
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

test('a created document is the event\'s fields then its own, in that order, whether or not the event data is frozen', () => {
  const [event] = created.map(recorded);
  const expected = { ...(event!.data as { post: object }).post, id: 7, type: 'post', trashed_from: null, revision_count: 0, latest_revision_id: null, last_revision_id: null, autosaves: {} };
  const fromPlain = content.evolve(null, event!)!;
  const frozenEvent = { ...event!, data: JSON.parse(JSON.stringify(event!.data)) as object };
  deepFreeze(frozenEvent.data);
  const fromFrozen = content.evolve(null, frozenEvent)!;
  assert.is(JSON.stringify(fromPlain), JSON.stringify(expected));
  assert.is(JSON.stringify(fromFrozen), JSON.stringify(expected));
  // The document is the projection's own: later folds make new ones from it, it does not share the event's frozenness.
  assert.not.ok(Object.isFrozen(fromFrozen));
});

test('localTimeKey reads years outside 0000-9999 (a NaN sort key would stop the projection)', () => {
  const keys = ['-0001-11-30T00:00:00', '0000-01-01T00:00:00', '2024-05-01T12:00:00', '10000-01-01T00:00:00'].map(localTimeKey);
  for (const key of keys) assert.ok(Number.isFinite(key), String(key));
  assert.equal([...keys].sort((a, b) => a - b), keys);
  assert.is(localTimeKey('2024-05-01T12:00:00'), Date.parse('2024-05-01T12:00:00Z'));
});

test('localTimeKey gives what Date.parse reads of the form, day overflow and leap years included, and reads the rest as before', () => {
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  // What it gave before it read the digits itself: Date.parse, then the regular expression for other years.
  const before = (local: string): number => {
    const key = Date.parse(`${local}Z`);
    if (!Number.isNaN(key)) return key;
    const m = /^(-?\d+)-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(local);
    if (!m) return 0;
    const date = new Date(0);
    date.setUTCFullYear(+m[1]!, +m[2]! - 1, +m[3]!);
    date.setUTCHours(+m[4]!, +m[5]!, +m[6]!, 0);
    return Number.isNaN(date.getTime()) ? 0 : date.getTime();
  };
  const years = [0, 1, 4, 99, 100, 399, 400, 1582, 1600, 1899, 1900, 1969, 1970, 1971, 1999, 2000, 2023, 2024, 2100, 2400, 9999];
  const times = [[0, 0, 0], [23, 59, 59], [12, 34, 56], [24, 0, 0], [23, 60, 0], [23, 59, 60]];
  let checked = 0;
  for (const year of years) {
    for (let month = 0; month <= 13; month++) {
      for (const day of [0, 1, 28, 29, 30, 31, 32]) {
        for (const [hour, minute, second] of times) {
          const local = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour!, 2)}:${pad(minute!, 2)}:${pad(second!, 2)}`;
          assert.is(localTimeKey(local), before(local), local);
          checked++;
        }
      }
    }
  }
  for (const local of ['2024-05-01 12:00:00', '2024-05-01T12:00', '2024-05-01T12:00:00.5', '2024-5-01T12:00:00', '2024-05-01T12:0a:00', '+02024-05-01T12:00:00', '', '1970-01-01T00:00:00']) {
    assert.is(localTimeKey(local), before(local), local);
  }
  assert.is(checked, years.length * 14 * 7 * times.length);
});

test.run();
