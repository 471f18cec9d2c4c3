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
  {
    kind: 'create',
    id: 7,
    postType: 'post',
    input: { title: 'Hello World', status: 'publish', categories: [4], tags: [5, 6] },
    slug: 'hello-world',
    ...ctx,
  },
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
  const updated = contentDecider.decide(
    { kind: 'update', id: 7, postType: 'post', input: { title: 'Again' }, slug: 'hello-world', revisionId: 9, ...ctx },
    state,
  );
  const doc = fold(updated, fold(created))!;
  assert.is(doc.title, 'Again');
  assert.is(doc.revision_count, 1);
  assert.is(doc.latest_revision_id, 9);
  const trashed = contentDecider.decide(
    { kind: 'trash', id: 7, postType: 'post', revisionId: null, ...ctx },
    updated.reduce(contentDecider.evolve, state),
  );
  const inTrash = fold(trashed, doc)!;
  assert.is(inTrash.status, 'trash');
  assert.is(inTrash.trashed_from, 'publish');
  assert.is(inTrash.slug, 'hello-world__trashed');
  assert.is(fold([{ type: 'PostDeleted', data: { id: 7, postType: 'post' } }], inTrash), null);
});

test('evolve never mutates the document it is given', () => {
  const doc = Object.freeze(fold(created)!);
  const state = created.reduce(contentDecider.evolve, initialContentState());
  const updated = contentDecider.decide(
    {
      kind: 'update',
      id: 7,
      postType: 'post',
      input: { title: 'Changed' },
      slug: 'hello-world',
      revisionId: 9,
      ...ctx,
    },
    state,
  );
  const next = fold(updated, doc)!;
  assert.is(doc.title, 'Hello World');
  assert.is(next.title, 'Changed');
});

test("a created document is the event's fields then its own, in that order, whether or not the event data is frozen", () => {
  const [event] = created.map(recorded);
  const expected = {
    ...(event!.data as { post: object }).post,
    id: 7,
    type: 'post',
    trashed_from: null,
    revision_count: 0,
    latest_revision_id: null,
    last_revision_id: null,
    autosaves: {},
  };
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
  const keys = ['-0001-11-30T00:00:00', '0000-01-01T00:00:00', '2024-05-01T12:00:00', '10000-01-01T00:00:00'].map(
    localTimeKey,
  );
  for (const key of keys) assert.ok(Number.isFinite(key), String(key));
  assert.equal(
    [...keys].sort((a, b) => a - b),
    keys,
  );
  assert.is(localTimeKey('2024-05-01T12:00:00'), Date.parse('2024-05-01T12:00:00Z'));
});

test('localTimeKey reads every wall clock of the form as the calendar does, fields past their range rolling over', () => {
  const pad = (n: number, width: number) =>
    n < 0 ? `-${String(-n).padStart(width, '0')}` : String(n).padStart(width, '0');
  // The proleptic Gregorian calendar as Date keeps it (setUTCFullYear takes years 0-99 as they are, unlike Date.UTC).
  const calendar = (year: number, month: number, day: number, hour: number, minute: number, second: number): number => {
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    date.setUTCHours(hour, minute, second, 0);
    return date.getTime();
  };
  const years = [
    -1, 0, 1, 4, 99, 100, 399, 400, 1582, 1600, 1899, 1900, 1969, 1970, 1971, 1999, 2000, 2023, 2024, 2100, 2400, 9999,
    10000,
  ];
  const times = [
    [0, 0, 0],
    [23, 59, 59],
    [12, 34, 56],
    [24, 0, 0],
    [24, 0, 1],
    [23, 60, 0],
    [23, 59, 60],
    [99, 99, 99],
  ];
  let checked = 0;
  for (const year of years) {
    for (let month = 0; month <= 13; month++) {
      for (const day of [0, 1, 28, 29, 30, 31, 32, 99]) {
        for (const [hour, minute, second] of times) {
          const local = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour!, 2)}:${pad(minute!, 2)}:${pad(second!, 2)}`;
          assert.is(localTimeKey(local), calendar(year, month, day, hour!, minute!, second!), local);
          checked++;
        }
      }
    }
  }
  assert.is(checked, years.length * 14 * 8 * times.length);
  // Known instants, and the leap days the calendar has and has not.
  assert.is(localTimeKey('1970-01-01T00:00:00'), 0);
  assert.is(localTimeKey('2024-05-01T12:00:00'), 1_714_564_800_000);
  assert.is(localTimeKey('2024-02-30T00:00:00'), localTimeKey('2024-03-01T00:00:00'));
  assert.is(localTimeKey('2023-02-29T00:00:00'), localTimeKey('2023-03-01T00:00:00'));
  assert.is(localTimeKey('2000-02-29T00:00:00') + 86_400_000, localTimeKey('2000-03-01T00:00:00'));
  assert.is(localTimeKey('1900-02-29T00:00:00'), localTimeKey('1900-03-01T00:00:00'));
  assert.is(localTimeKey('0000-01-01T00:00:00'), -62_167_219_200_000);
});

test('localTimeKey reads the other forms Date.parse reads, and anything else as 0', () => {
  const noon = Date.UTC(2024, 4, 1, 12, 0, 0);
  assert.is(localTimeKey('2024-05-01T12:00'), noon);
  assert.is(localTimeKey('2024-05-01T12:00:00.5'), noon + 500);
  assert.is(localTimeKey('2024-05-01 12:00:00'), noon);
  for (const local of [
    '',
    'garbage',
    '2024-5-01T12:00:00',
    '2024-05-01T12:0a:00',
    '2024-05-01T12:00:00Z',
    '+02024-05-01T12:00:00',
    '99999999-01-01T00:00:00',
  ]) {
    assert.is(localTimeKey(local), 0, local);
  }
});

test.run();
