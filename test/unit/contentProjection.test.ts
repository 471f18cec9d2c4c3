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

test('withFields of many fields (compiled per shape) is Object.assign\'s result: keys, order, values, getters, prototype (an own __proto__ field aside)', () => {
  const reference = (base: object, fields: object) => Object.assign({}, base, fields);
  const same = (made: object, expected: object, what: string) => {
    assert.equal(Reflect.ownKeys(made), Reflect.ownKeys(expected), `${what}: keys in order`);
    for (const key of Reflect.ownKeys(expected)) assert.ok(Object.is((made as Record<PropertyKey, unknown>)[key], (expected as Record<PropertyKey, unknown>)[key]), `${what}: ${String(key)}`);
    assert.is(Object.getPrototypeOf(made), Object.getPrototypeOf(expected), `${what}: prototype`);
    assert.is(JSON.stringify(made), JSON.stringify(expected));
  };
  const many = (n: number, extra: Record<string, unknown> = {}) => {
    const base: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) base[`field${i}`] = `value ${i}`;
    return Object.assign(base, extra);
  };
  // Several times each: the first sightings go through Object.assign, later ones through the compiled copier.
  for (let round = 0; round < 4; round++) {
    const post = JSON.parse(JSON.stringify(many(30, { meta: { footnotes: [1] }, 10: 'ten', id: 'base id', title: 't', '': 'empty', 'a"b\\c': 'quoted', constructor: 'c' }))) as Record<string, unknown>;
    const fields = { id: 7, type: 'post', 3: 'three', autosaves: {} };
    same(withFields(post, fields), reference(post, fields), `round ${round}`);
    assert.ok(withFields(post, fields) !== post);
    // Another shape of as many fields, and one with fewer.
    const other = many(20);
    same(withFields(other, { x: 1 }), reference(other, { x: 1 }), `another shape, round ${round}`);
    const few = many(5);
    same(withFields(few, { x: 1 }), reference(few, { x: 1 }), `few fields, round ${round}`);
  }
  // Getters run as Object.assign runs them: every base key, then every field, once each.
  for (let round = 0; round < 3; round++) {
    const log = (calls: string[]) => {
      const base = many(20);
      Object.defineProperty(base, 'field3', {
        enumerable: true,
        get: () => {
          calls.push('base field3');
          return 'got';
        },
      });
      Object.defineProperty(base, 'id', {
        enumerable: true,
        get: () => {
          calls.push('base id');
          return 1;
        },
      });
      const fields = { get id() { calls.push('fields id'); return 2; }, type: 'post' };
      return [base, fields] as const;
    };
    const made: string[] = [];
    const expected: string[] = [];
    same(withFields(...log(made)), reference(...log(expected)), `getters, round ${round}`);
    assert.equal(made, expected, 'getters called in the same order');
  }
  // What for-in would not list or would list wrongly: symbols, inherited keys, proxies, a __proto__ field.
  const symbol = Symbol('s');
  // Listed by for-in after the own keys: with the last own key deleted, for-in lists what a plain shape lists.
  const inherited = { field19: 'from the prototype' };
  for (let round = 0; round < 3; round++) {
    const withSymbol = Object.assign(many(20), { [symbol]: 'symbol value' });
    same(withFields(withSymbol, { x: 1 }), reference(withSymbol, { x: 1 }), `symbol, round ${round}`);
    const plain = many(20);
    same(withFields(plain, { [symbol]: 'in fields' }), reference(plain, { [symbol]: 'in fields' }), `symbol in fields, round ${round}`);
    const partial = Object.assign(Object.create(inherited) as Record<string, unknown>, many(20));
    delete partial.field19;
    same(withFields(partial, { x: 1 }), reference(partial, { x: 1 }), `inherited, round ${round}`);
    const proxy = new Proxy(many(20), { ownKeys: (target) => Reflect.ownKeys(target).filter((key) => key !== 'field2') });
    same(withFields(proxy, { x: 1 }), reference(proxy, { x: 1 }), `proxy, round ${round}`);
    const protoField = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
    // An own __proto__ in the fields stays a field, as the spread keeps it (Object.assign would make it the prototype).
    same(withFields(plain, protoField), { ...plain, ...protoField }, `__proto__ in fields, round ${round}`);
    assert.is((withFields(plain, protoField) as { polluted?: boolean }).polluted, undefined);
  }
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
