/**
 * Documents kept while the read-model version stands (src/projection/documentCache.ts): served again without asking
 * the read model, never across a change, never kept from a read that a change overlapped.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { cacheDocuments } from '../../src/projection/documentCache';
import { CacheBudget } from '../../src/caches/budget';
import { ReadModelVersion } from '../../src/projection/readModelVersion';
import type { Doc, DocId, ReadModel } from '../../src/ports/readModel';

const test = suite('document cache');

function setUp(entries?: number) {
  const inner = createMemoryReadModel();
  const version = new ReadModelVersion();
  // What the projector commits through: every commit moves the version on.
  const projector = version.track(inner);
  const asked: string[] = [];
  let hold: Promise<void> | null = null;
  const counting = new Proxy(inner, {
    get(target, property) {
      if (property === 'get')
        return async (collection: string, id: DocId) => {
          asked.push(`${collection}:${String(id)}`);
          if (hold) await hold;
          return target.get(collection, id);
        };
      if (property === 'getMany')
        return async (collection: string, ids: readonly DocId[]) => {
          asked.push(`${collection}:[${ids.join(',')}]`);
          if (hold) await hold;
          return target.getMany(collection, ids);
        };
      return Reflect.get(target, property, target);
    },
  }) as ReadModel;
  const { readModel: cached, held } = cacheDocuments(
    counting,
    version,
    entries ?? CacheBudget.defaults('redis').entries('documents'),
  );
  let position = 0;
  const put = (id: DocId, text: string | null) =>
    projector.commit({
      writes: [text === null ? { collection: 'notes', id, doc: null } : { collection: 'notes', id, doc: { id, text } }],
      checkpoint: { name: 'notes', position: ++position, version: 1 },
    });
  const holdReads = () => {
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    return () => {
      hold = null;
      release();
    };
  };
  return { cached, held, version, asked, put, holdReads };
}

const text = (doc: Doc | null) => (doc === null ? null : (doc.text as string));

test('a document read again at the same version is the same object, not asked for again', async () => {
  const { cached, asked, put } = setUp();
  await put(1, 'one');
  const first = await cached.get('notes', 1);
  const second = await cached.get('notes', 1);
  assert.is(text(first), 'one');
  assert.ok(first === second);
  assert.equal(asked, ['notes:1']);
  // A missing document is kept as missing; 1 and '1' are different ids, and collections are apart.
  assert.is(await cached.get('notes', 2), null);
  assert.is(await cached.get('notes', 2), null);
  assert.is(await cached.get('notes', '1'), null);
  assert.is(await cached.get('others', 1), null);
  assert.equal(asked, ['notes:1', 'notes:2', 'notes:1', 'others:1']);
});

test('peek: a kept document at once, nothing for one not kept or after a change', async () => {
  const { cached, version, asked, put } = setUp();
  await put(1, 'one');
  // Not kept yet: the read model is not asked (it would have to be waited for).
  assert.is(cached.peek!('notes', 1), undefined);
  assert.equal(asked, []);
  const read = await cached.get('notes', 1);
  assert.ok(cached.peek!('notes', 1) === read);
  assert.is(await cached.get('notes', 2), null);
  assert.is(cached.peek!('notes', 2), null, 'a missing document is kept as missing');
  assert.is(cached.peek!('notes', '1'), undefined);
  await put(1, 'uno');
  assert.is(cached.peek!('notes', 1), undefined, 'emptied by the commit');
  assert.is(text(await cached.get('notes', 1)), 'uno');
  version.changed();
  assert.is(cached.peek!('notes', 1), undefined, 'emptied by a change');
  assert.equal(asked, ['notes:1', 'notes:2', 'notes:1']);
});

test('a change (a commit, a settled write, a notice) empties it', async () => {
  const { cached, version, asked, put } = setUp();
  await put(1, 'one');
  assert.is(text(await cached.get('notes', 1)), 'one');
  await put(1, 'uno');
  assert.is(text(await cached.get('notes', 1)), 'uno');
  await put(1, null);
  assert.is(await cached.get('notes', 1), null);
  version.changed();
  assert.is(await cached.get('notes', 1), null);
  assert.is(asked.length, 4);
});

test('a read that a change overlapped is not kept', async () => {
  const { cached, asked, put, holdReads } = setUp();
  await put(1, 'one');
  const release = holdReads();
  const reading = cached.get('notes', 1);
  const committing = put(1, 'uno');
  release();
  await Promise.all([reading, committing]);
  assert.is(text(await cached.get('notes', 1)), 'uno', 'the read from before the commit was not kept');
  assert.equal(asked, ['notes:1', 'notes:1']);
});

test('reads while a change is being applied go to the read model and keep nothing', async () => {
  const { cached, version, asked, put } = setUp();
  await put(1, 'one');
  let during: Promise<Doc | null> | null = null;
  await version.during(async () => {
    during = cached.get('notes', 1);
    await during;
    await cached.get('notes', 1);
  });
  assert.is(text(await during!), 'one');
  assert.is(asked.length, 2);
  await cached.get('notes', 1);
  await cached.get('notes', 1);
  assert.is(asked.length, 3);
});

test('getMany takes what is kept and asks for the rest, in order', async () => {
  const { cached, asked, put } = setUp();
  await put(1, 'one');
  await put(2, 'two');
  await put(3, 'three');
  const one = await cached.get('notes', 1);
  const many = await cached.getMany('notes', [3, 1, 4, 2, 1]);
  assert.equal(many.map(text), ['three', 'one', null, 'two', 'one']);
  assert.ok(many[1] === one && many[4] === one);
  assert.equal(asked, ['notes:1', 'notes:[3,4,2]']);
  const again = await cached.getMany('notes', [2, 3, 4]);
  assert.equal(again.map(text), ['two', 'three', null]);
  assert.is(asked.length, 2);
  assert.ok((await cached.get('notes', 3)) === many[0]);
});

test('bounded: once full, a document joins on its second read and the oldest goes', async () => {
  const { cached, asked, put } = setUp(2);
  await put(1, 'one');
  await put(2, 'two');
  await put(3, 'three');
  for (const id of [1, 2, 3]) await cached.get('notes', id);
  assert.is(asked.length, 3);
  await cached.get('notes', 1);
  await cached.get('notes', 2);
  assert.is(asked.length, 3, 'the first two are kept');
  // The third was read once while the cache was full: not kept, so asked again, and kept on that second read.
  await cached.get('notes', 3);
  assert.is(asked.length, 4, 'asked again');
  await cached.get('notes', 3);
  assert.is(asked.length, 4, 'kept on its second read');
  await cached.get('notes', 2);
  assert.is(asked.length, 4);
  await cached.get('notes', 1);
  assert.is(asked.length, 5, 'the oldest went to make room');
});

test('it holds no more documents than its bound, and none when its bound is 0', async () => {
  const { cached, held, put } = setUp(3);
  for (let id = 1; id <= 10; id++) await put(id, `note ${id}`);
  for (let round = 0; round < 3; round++) for (let id = 1; id <= 10; id++) await cached.get('notes', id);
  assert.is(held().entries, 3);

  const off = setUp(0);
  await off.put(1, 'one');
  await off.cached.get('notes', 1);
  await off.cached.get('notes', 1);
  assert.is(off.held().entries, 0);
  assert.is(off.asked.length, 2, 'asked every time');
});

test('everything else is the read model itself', async () => {
  const { cached, put } = setUp();
  await put(1, 'one');
  assert.equal(await cached.checkpoint('notes'), { position: 1, version: 1 });
  const { items, total } = await cached.query('notes', {
    filters: [],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: 10,
  });
  assert.is(total, 1);
  assert.is(text(items[0]!), 'one');
});

test.run();
