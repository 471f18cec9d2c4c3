/**
 * The read-model contract: every adapter runs this suite, and every query result must equal the reference
 * evaluator's (test/support/referenceQuery.ts). Hand-written expectations pin the semantics; a seeded
 * randomized comparison covers the combinations. Set READ_MODEL_SEED to replay a failing seed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type {
  Commit,
  Doc,
  DocId,
  DocWrite,
  Filter,
  IndexEntry,
  Order,
  QueryPlan,
  QueryResult,
  ReadModel,
  Scalar,
} from '../../src/ports/readModel';
import { StaleCommitError } from '../../src/ports/readModel';
import { idsOf, referenceQuery, type RefRow } from '../support/referenceQuery';

type Factory = () => Promise<{ readModel: ReadModel; cleanup(): Promise<void> }>;

interface Context {
  rm: ReadModel;
  cleanup: () => Promise<void>;
}

const C = 'posts';

function write(id: DocId, fields: Record<string, unknown>, index?: IndexEntry, collection = C): DocWrite {
  return index === undefined
    ? { collection, id, doc: { id, ...fields } }
    : { collection, id, doc: { id, ...fields }, index };
}

function commitOf(writes: DocWrite[], position: number, name = 'posts-projection', version = 1): Commit {
  return { writes, checkpoint: { name, position, version } };
}

function plan(
  filters: Filter[],
  order: Order = { kind: 'field', field: 'id', direction: 'asc' },
  offset = 0,
  limit: number | null = null,
): QueryPlan {
  return { filters, order, offset, limit };
}

async function rejects(promise: Promise<unknown>): Promise<void> {
  let failed = false;
  try {
    await promise;
  } catch {
    failed = true;
  }
  assert.ok(failed, 'expected a rejection');
}

/**
 * The hand-written fixture. Dates tie (1 and 4 at 30, 3 and 'x' at 20), 5 has no date, 'x' is a string id
 * (string ids sort after numbers), tags mix numbers and strings.
 */
const FIXTURE: RefRow[] = [
  {
    doc: { id: 1, title: 'Hello World' },
    index: {
      sort: { date: 30, title: 'hello world' },
      sets: { status: 'publish', tags: ['a', 'b'], author: 1 },
      text: { title: 'Hello World', excerpt: 'A greeting', content: 'The quick brown fox 🦊 jumps' },
    },
  },
  {
    doc: { id: 2, title: 'Straße Café' },
    index: {
      sort: { date: 10, title: 'straße café' },
      sets: { status: 'draft', tags: ['b'], author: 2 },
      text: { title: 'Straße Café', excerpt: 'Hello there', content: 'Over the lazy dog' },
    },
  },
  {
    doc: { id: 3, title: 'Quick notes' },
    index: {
      sort: { date: 20 },
      sets: { status: 'publish', tags: [], author: 1 },
      text: { title: 'Quick notes', content: 'ÜBER hello world' },
    },
  },
  {
    doc: { id: 4, title: 'World news' },
    index: {
      sort: { date: 30, title: 'world news' },
      sets: { status: 'publish', tags: ['a', 5], author: 2 },
      text: { title: 'World news', excerpt: 'hello world again', content: 'news' },
    },
  },
  {
    doc: { id: 5, title: 'Trash' },
    index: { sets: { status: 'trash' }, text: { title: 'Trash', content: 'hello' } },
  },
  {
    doc: { id: 'x', title: 'Hello' },
    index: {
      sort: { date: 20, title: 'hello' },
      sets: { status: 'publish', tags: 'b' },
      text: { title: 'Hello', content: '日本語のテキスト' },
    },
  },
];

export function readModelContract(name: string, factory: Factory): void {
  const test = suite<Context>(`read model contract: ${name}`, {} as Context);

  test.before.each(async (ctx) => {
    const made = await factory();
    ctx.rm = made.readModel;
    ctx.cleanup = made.cleanup;
  });

  test.after.each(async (ctx) => {
    await ctx.rm.close();
    await ctx.cleanup();
  });

  const load = (rm: ReadModel, rows: RefRow[] = FIXTURE) =>
    rm.commit(
      commitOf(
        rows.map((r) =>
          r.index
            ? { collection: C, id: r.doc.id, doc: r.doc, index: r.index }
            : { collection: C, id: r.doc.id, doc: r.doc },
        ),
        1,
      ),
    );

  /** Checks the adapter, and the reference on the same rows, against a hand-written expectation. */
  async function expectIds(rm: ReadModel, p: QueryPlan, ids: DocId[], total?: number, rows: RefRow[] = FIXTURE) {
    const reference = referenceQuery(rows, p);
    assert.equal(idsOf(reference), ids, `reference disagrees with the expectation for ${JSON.stringify(p)}`);
    const got = await rm.query(C, p);
    assert.equal(idsOf(got), ids, `ids for ${JSON.stringify(p)}`);
    assert.is(got.total, total ?? reference.total, `total for ${JSON.stringify(p)}`);
    if (total !== undefined) assert.is(reference.total, total);
    assert.equal(got.items, reference.items);
  }

  // --- documents --------------------------------------------------------------------------------------

  test('get, getMany and missing documents', async ({ rm }) => {
    assert.is(await rm.get(C, 1), null);
    await load(rm);
    assert.equal(await rm.get(C, 1), { id: 1, title: 'Hello World' });
    assert.equal(await rm.get(C, 'x'), { id: 'x', title: 'Hello' });
    assert.is(await rm.get(C, '1'), null, "the string '1' is not the number 1");
    assert.is(await rm.get(C, 99), null);
    assert.is(await rm.get('users', 1), null, 'collections are separate');
    const many = await rm.getMany(C, [4, 99, 'x', 4, '4']);
    assert.equal(
      many.map((d) => d?.id ?? null),
      [4, null, 'x', 4, null],
    );
    assert.equal(await rm.getMany(C, []), []);
  });

  test('stored documents are JSON copies that callers cannot change', async ({ rm }) => {
    const doc = { id: 7, nested: { list: [1, 2] }, gone: undefined as unknown, when: new Date(0) };
    await rm.commit(commitOf([{ collection: C, id: 7, doc }], 1));
    doc.nested.list.push(3);
    const first = (await rm.get(C, 7))!;
    assert.equal(first, { id: 7, nested: { list: [1, 2] }, when: '1970-01-01T00:00:00.000Z' });
    try {
      (first.nested as { list: number[] }).list.push(4);
      (first as Record<string, unknown>).extra = true;
    } catch {
      // Frozen documents refuse the change; copies accept it. Either way the store must not see it.
    }
    assert.equal(await rm.get(C, 7), { id: 7, nested: { list: [1, 2] }, when: '1970-01-01T00:00:00.000Z' });
    const listed = await rm.query(C, plan([]));
    try {
      (listed.items[0] as Record<string, unknown>).extra = true;
    } catch {
      // as above
    }
    assert.equal((await rm.query(C, plan([]))).items, [
      { id: 7, nested: { list: [1, 2] }, when: '1970-01-01T00:00:00.000Z' },
    ]);
  });

  test('updates move index memberships, deletes remove them', async ({ rm }) => {
    await load(rm);
    await rm.commit(
      commitOf(
        [
          // 2: draft → publish, date 10 → 40, title text changes; 1: loses its date and tags; 4: deleted.
          write(
            2,
            { title: 'Renamed' },
            { sort: { date: 40 }, sets: { status: 'publish', tags: ['c'] }, text: { title: 'Renamed' } },
          ),
          write(1, { title: 'Hello World' }, { sets: { status: 'publish' }, text: { title: 'Hello World' } }),
          { collection: C, id: 4, doc: null },
          { collection: C, id: 404, doc: null },
        ],
        2,
      ),
    );
    const rows: RefRow[] = [
      { doc: { id: 1, title: 'Hello World' }, index: { sets: { status: 'publish' }, text: { title: 'Hello World' } } },
      {
        doc: { id: 2, title: 'Renamed' },
        index: { sort: { date: 40 }, sets: { status: 'publish', tags: ['c'] }, text: { title: 'Renamed' } },
      },
      FIXTURE[2]!,
      FIXTURE[4]!,
      FIXTURE[5]!,
    ];
    assert.is(await rm.get(C, 4), null);
    assert.equal(await rm.get(C, 2), { id: 2, title: 'Renamed' });
    await expectIds(rm, plan([{ kind: 'any', field: 'status', values: ['draft'] }]), [], 0, rows);
    await expectIds(rm, plan([{ kind: 'any', field: 'status', values: ['publish'] }]), [1, 2, 3, 'x'], 4, rows);
    await expectIds(rm, plan([{ kind: 'any', field: 'tags', values: ['a', 'b', 5] }]), ['x'], 1, rows);
    await expectIds(rm, plan([{ kind: 'any', field: 'tags', values: ['c'] }]), [2], 1, rows);
    await expectIds(
      rm,
      plan([{ kind: 'range', field: 'date', gte: 0 }], { kind: 'field', field: 'date', direction: 'desc' }),
      [2, 'x', 3],
      3,
      rows,
    );
    await expectIds(rm, plan([], { kind: 'field', field: 'date', direction: 'desc' }), [2, 'x', 3, 5, 1], 5, rows);
    await expectIds(rm, plan([{ kind: 'text', fields: ['title'], includes: ['straße'], excludes: [] }]), [], 0, rows);
    await expectIds(rm, plan([{ kind: 'text', fields: ['title'], includes: ['renamed'], excludes: [] }]), [2], 1, rows);
    await expectIds(rm, plan([{ kind: 'text', fields: ['content'], includes: ['quick'], excludes: [] }]), [], 0, rows);
    await expectIds(rm, plan([{ kind: 'range', field: 'title', gte: 'a' }]), ['x'], 1, rows);
    await expectIds(rm, plan([{ kind: 'any', field: 'id', values: [4, 1] }]), [1], 1, rows);
    // Deleting everything leaves nothing findable.
    await rm.commit(
      commitOf(
        rows.map((r) => ({ collection: C, id: r.doc.id, doc: null })),
        3,
      ),
    );
    await expectIds(rm, plan([]), [], 0, []);
    await expectIds(
      rm,
      plan([{ kind: 'any', field: 'status', values: ['publish'] }], {
        kind: 'field',
        field: 'date',
        direction: 'desc',
      }),
      [],
      0,
      [],
    );
    await expectIds(rm, plan([{ kind: 'text', fields: ['title'], includes: ['hello'], excludes: [] }]), [], 0, []);
  });

  test('writes to one id in one commit apply in order; commits span collections', async ({ rm }) => {
    await rm.commit(
      commitOf(
        [
          write(1, { v: 1 }, { sets: { status: 'draft' } }),
          write(1, { v: 2 }, { sets: { status: 'publish' } }),
          write(1, { name: 'someone' }, { sets: { role: 'admin' } }, 'users'),
          write(2, { v: 1 }),
          { collection: C, id: 2, doc: null },
        ],
        5,
      ),
    );
    assert.equal(await rm.get(C, 1), { id: 1, v: 2 });
    assert.is(await rm.get(C, 2), null);
    assert.equal(await rm.get('users', 1), { id: 1, name: 'someone' });
    assert.is((await rm.query(C, plan([{ kind: 'any', field: 'status', values: ['draft'] }]))).total, 0);
    assert.is((await rm.query(C, plan([{ kind: 'any', field: 'status', values: ['publish'] }]))).total, 1);
    assert.is((await rm.query('users', plan([{ kind: 'any', field: 'role', values: ['admin'] }]))).total, 1);
    assert.is((await rm.query(C, plan([{ kind: 'any', field: 'role', values: ['admin'] }]))).total, 0);
  });

  // --- commits and checkpoints --------------------------------------------------------------------------

  test('a commit that fails changes neither documents nor checkpoint', async ({ rm }) => {
    await load(rm);
    const before = await rm.checkpoint('posts-projection');
    assert.equal(before, { position: 1, version: 1 });
    const circular: Record<string, unknown> = { id: 20 };
    circular.self = circular;
    const good = write(10, { title: 'would be new' }, { sort: { date: 99 }, sets: { status: 'publish' } });
    const bad: DocWrite[] = [
      { collection: C, id: 11, doc: { id: 11, big: 10n } },
      { collection: C, id: 20, doc: circular as Doc },
      {
        collection: C,
        id: 12,
        doc: {
          id: 12,
          toJSON: () => {
            throw new Error('refuses to serialise');
          },
        } as unknown as Doc,
      },
      { collection: C, id: 13, doc: { id: 14 } },
      { collection: C, id: 13, doc: { id: '13' } },
      write(15, {}, { sort: { date: Number.NaN } }),
      write(16, {}, { sort: { id: 3 } }),
      write(17, {}, { sets: { tags: ['a', Infinity] } }),
      write(18, {}, { sets: { id: 1 } }),
      write(19, {}, { text: { title: 42 as unknown as string } }),
      { collection: '', id: 21, doc: { id: 21 } },
    ];
    for (const invalid of bad) {
      // The invalid write comes after a valid one and a change to an existing doc: none of them may land.
      await rejects(
        rm.commit(commitOf([good, write(1, { title: 'changed' }, { sets: { status: 'trash' } }), invalid], 2)),
      );
    }
    await rejects(
      rm.commit({ writes: [good], checkpoint: { name: 'posts-projection', position: Number.NaN, version: 1 } }),
    );
    await rejects(rm.commit({ writes: [good], checkpoint: { name: '', position: 3, version: 1 } }));
    assert.equal(await rm.checkpoint('posts-projection'), { position: 1, version: 1 });
    assert.is(await rm.get(C, 10), null);
    assert.equal(await rm.get(C, 1), { id: 1, title: 'Hello World' });
    await expectIds(
      rm,
      plan([{ kind: 'any', field: 'status', values: ['publish'] }], {
        kind: 'field',
        field: 'date',
        direction: 'desc',
      }),
      [4, 1, 'x', 3],
      4,
    );
    await expectIds(rm, plan([{ kind: 'any', field: 'status', values: ['trash'] }]), [5], 1);
    // And the read model still takes good commits.
    await rm.commit(commitOf([good], 2));
    assert.equal(await rm.checkpoint('posts-projection'), { position: 2, version: 1 });
    assert.equal(await rm.get(C, 10), { id: 10, title: 'would be new' });
  });

  test('checkpoints are per name and carry the version', async ({ rm }) => {
    assert.is(await rm.checkpoint('a'), null);
    await rm.commit(commitOf([], 7, 'a', 3));
    await rm.commit(commitOf([write(1, {})], 9, 'b', 1));
    assert.equal(await rm.checkpoint('a'), { position: 7, version: 3 });
    assert.equal(await rm.checkpoint('b'), { position: 9, version: 1 });
    await rm.commit(commitOf([], 12, 'a', 4));
    assert.equal(await rm.checkpoint('a'), { position: 12, version: 4 });
    assert.equal(await rm.checkpoint('b'), { position: 9, version: 1 });
    assert.is(await rm.checkpoint('c'), null);
  });

  test('a commit expecting its checkpoint at a position is applied only while it stands there', async ({ rm }) => {
    const stale = async (commit: Commit) => {
      try {
        await rm.commit(commit);
      } catch (error) {
        assert.instance(error, StaleCommitError);
        assert.is((error as StaleCommitError).reason, 'checkpoint');
        return;
      }
      assert.unreachable('the commit was applied');
    };
    await stale({ ...commitOf([write(1, { v: 'a' })], 3), expectedPosition: 2 });
    await rm.commit({ ...commitOf([write(1, { v: 'first' })], 3), expectedPosition: null });
    await stale({ ...commitOf([write(1, { v: 'b' })], 5), expectedPosition: null });
    await stale({ ...commitOf([write(1, { v: 'c' })], 5), expectedPosition: 2 });
    assert.equal(await rm.get(C, 1), { id: 1, v: 'first' });
    assert.equal(await rm.checkpoint('posts-projection'), { position: 3, version: 1 });
    await rm.commit({ ...commitOf([write(1, { v: 'second' })], 5), expectedPosition: 3 });
    assert.equal(await rm.get(C, 1), { id: 1, v: 'second' });
    // A reset since the position was read wins over the commit decided on it.
    await rm.reset('posts-projection', [C]);
    await stale({ ...commitOf([write(1, { v: 'third' })], 6), expectedPosition: 5 });
    assert.is(await rm.get(C, 1), null);
    assert.is(await rm.checkpoint('posts-projection'), null);
    await rejects(rm.commit({ ...commitOf([], 7), expectedPosition: -1 }));
  });

  test('reset forgets the named checkpoint and the listed collections only', async ({ rm }) => {
    await load(rm);
    await rm.commit(
      commitOf(
        [write(1, { name: 'u' }, { sets: { role: 'admin' } }, 'users'), write(1, {}, {}, 'postsx')],
        4,
        'users-projection',
      ),
    );
    await rm.reset('posts-projection', [C, 'postsx']);
    assert.is(await rm.checkpoint('posts-projection'), null);
    assert.equal(await rm.checkpoint('users-projection'), { position: 4, version: 1 });
    assert.is(await rm.get(C, 1), null);
    assert.is(await rm.get('postsx', 1), null);
    assert.equal(await rm.get('users', 1), { id: 1, name: 'u' });
    assert.is((await rm.query('users', plan([{ kind: 'any', field: 'role', values: ['admin'] }]))).total, 1);
    await expectIds(rm, plan([]), [], 0, []);
    await expectIds(rm, plan([{ kind: 'any', field: 'status', values: ['publish'] }]), [], 0, []);
    // A rebuild after the reset starts from clean indexes.
    await load(rm, [FIXTURE[1]!]);
    await expectIds(rm, plan([], { kind: 'field', field: 'date', direction: 'desc' }), [2], 1, [FIXTURE[1]!]);
    await expectIds(rm, plan([{ kind: 'text', fields: ['title'], includes: ['hello'], excludes: [] }]), [], 0, [
      FIXTURE[1]!,
    ]);
    await expectIds(rm, plan([{ kind: 'text', fields: ['excerpt'], includes: ['hello'], excludes: [] }]), [2], 1, [
      FIXTURE[1]!,
    ]);
  });

  // --- filters ----------------------------------------------------------------------------------------------

  test('any / all / none on set fields and ids', async ({ rm }) => {
    await load(rm);
    await expectIds(rm, plan([{ kind: 'any', field: 'status', values: ['publish'] }]), [1, 3, 4, 'x'], 4);
    await expectIds(
      rm,
      plan([{ kind: 'any', field: 'status', values: ['publish', 'draft', 'nope'] }]),
      [1, 2, 3, 4, 'x'],
      5,
    );
    await expectIds(rm, plan([{ kind: 'any', field: 'status', values: [] }]), [], 0);
    await expectIds(rm, plan([{ kind: 'any', field: 'tags', values: [5] }]), [4], 1);
    await expectIds(rm, plan([{ kind: 'any', field: 'tags', values: ['5'] }]), [], 0);
    await expectIds(rm, plan([{ kind: 'any', field: 'tags', values: ['b'] }]), [1, 2, 'x'], 3);
    await expectIds(rm, plan([{ kind: 'any', field: 'nosuch', values: [1] }]), [], 0);
    await expectIds(rm, plan([{ kind: 'all', field: 'tags', values: ['a', 'b'] }]), [1], 1);
    await expectIds(rm, plan([{ kind: 'all', field: 'tags', values: ['a', 'b', 'b'] }]), [1], 1);
    await expectIds(rm, plan([{ kind: 'all', field: 'tags', values: [] }]), [1, 2, 3, 4, 5, 'x'], 6);
    await expectIds(rm, plan([{ kind: 'all', field: 'tags', values: ['a', 'zzz'] }]), [], 0);
    await expectIds(rm, plan([{ kind: 'none', field: 'status', values: ['publish', 'draft'] }]), [5], 1);
    await expectIds(rm, plan([{ kind: 'none', field: 'tags', values: ['b'] }]), [3, 4, 5], 3);
    await expectIds(rm, plan([{ kind: 'none', field: 'tags', values: [] }]), [1, 2, 3, 4, 5, 'x'], 6);
    await expectIds(rm, plan([{ kind: 'any', field: 'id', values: ['x', 4, 99, '1'] }]), [4, 'x'], 2);
    await expectIds(rm, plan([{ kind: 'all', field: 'id', values: [4] }]), [4], 1);
    await expectIds(rm, plan([{ kind: 'all', field: 'id', values: [4, 1] }]), [], 0);
    await expectIds(rm, plan([{ kind: 'none', field: 'id', values: [1, 2, 3, 'y'] }]), [4, 5, 'x'], 3);
    // Two any filters: the common list shape.
    await expectIds(
      rm,
      plan([
        { kind: 'any', field: 'status', values: ['publish'] },
        { kind: 'any', field: 'author', values: [2] },
      ]),
      [4],
      1,
    );
  });

  test('range filters on sort keys and ids', async ({ rm }) => {
    await load(rm);
    await expectIds(rm, plan([{ kind: 'range', field: 'date', gte: 20, lt: 30 }]), [3, 'x'], 2);
    await expectIds(rm, plan([{ kind: 'range', field: 'date', gt: 20 }]), [1, 4], 2);
    await expectIds(rm, plan([{ kind: 'range', field: 'date', lte: 20 }]), [2, 3, 'x'], 3);
    await expectIds(rm, plan([{ kind: 'range', field: 'date' }]), [1, 2, 3, 4, 'x'], 5, FIXTURE);
    await expectIds(rm, plan([{ kind: 'range', field: 'date', gt: 10, gte: 20 }]), [1, 3, 4, 'x'], 4);
    await expectIds(rm, plan([{ kind: 'range', field: 'date', gte: 20, gt: 20 }]), [1, 4], 2);
    await expectIds(rm, plan([{ kind: 'range', field: 'date', lt: 30, lte: 20 }]), [2, 3, 'x'], 3);
    await expectIds(rm, plan([{ kind: 'range', field: 'date', gt: 30, lt: 10 }]), [], 0);
    await expectIds(rm, plan([{ kind: 'range', field: 'date', gte: 'a' }]), [], 0, FIXTURE);
    await expectIds(rm, plan([{ kind: 'range', field: 'title', gte: 'hello', lt: 'i' }]), [1, 'x'], 2);
    await expectIds(rm, plan([{ kind: 'range', field: 'title', gt: 'hello' }]), [1, 2, 4], 3);
    await expectIds(rm, plan([{ kind: 'range', field: 'title', gte: 'strasse' }]), [2, 4], 2);
    await expectIds(rm, plan([{ kind: 'range', field: 'id', gt: 3 }]), [4, 5, 'x'], 3);
    await expectIds(rm, plan([{ kind: 'range', field: 'id', gte: '' }]), ['x'], 1);
    await expectIds(rm, plan([{ kind: 'range', field: 'id', lte: 2.5 }]), [1, 2], 2);
    await expectIds(rm, plan([{ kind: 'range', field: 'nosuch', gte: 0 }]), [], 0);
  });

  test('text filters: case-insensitive substrings, excludes, short terms, unicode', async ({ rm }) => {
    await load(rm);
    const text = (fields: string[], includes: string[], excludes: string[] = []): Filter => ({
      kind: 'text',
      fields,
      includes,
      excludes,
    });
    await expectIds(rm, plan([text(['content'], ['QUICK'])]), [1], 1);
    await expectIds(rm, plan([text(['title', 'content'], ['hello'])]), [1, 3, 5, 'x'], 4);
    await expectIds(rm, plan([text(['title', 'content'], ['hello'], ['world'])]), [5, 'x'], 2);
    await expectIds(rm, plan([text(['title', 'excerpt'], ['hello', 'world'])]), [1, 4], 2);
    await expectIds(rm, plan([text(['title'], ['hello', 'news'])]), [], 0);
    await expectIds(rm, plan([text(['title', 'excerpt', 'content'], [], ['hello'])]), [], 0);
    await expectIds(rm, plan([text(['title'], [], ['hello'])]), [2, 3, 4, 5], 4);
    await expectIds(rm, plan([text(['title'], ['CAFÉ'])]), [2], 1);
    await expectIds(rm, plan([text(['title'], ['STRASSE'])]), [], 0);
    await expectIds(rm, plan([text(['title'], ['straße'])]), [2], 1);
    await expectIds(rm, plan([text(['content'], ['über'])]), [3], 1);
    await expectIds(rm, plan([text(['content'], ['🦊'])]), [1], 1);
    await expectIds(rm, plan([text(['content'], ['テキ'])]), ['x'], 1);
    await expectIds(rm, plan([text(['content'], ['日本語のテ'])]), ['x'], 1);
    await expectIds(rm, plan([text(['title'], ['o'])]), [1, 3, 4, 'x'], 4);
    await expectIds(rm, plan([text(['title'], ['wo'])]), [1, 4], 2);
    await expectIds(rm, plan([text(['title'], ['lo w'])]), [1], 1);
    await expectIds(rm, plan([text(['title', 'content'], ['x'], ['ox'])]), [], 0);
    await expectIds(rm, plan([text(['title'], ['', 'hello'], [''])]), [1, 'x'], 2);
    await expectIds(rm, plan([text(['title'], [''])]), [1, 2, 3, 4, 5, 'x'], 6);
    await expectIds(rm, plan([text([], ['hello'])]), [], 0);
    await expectIds(rm, plan([text([], [], ['hello'])]), [1, 2, 3, 4, 5, 'x'], 6);
    await expectIds(rm, plan([text(['nosuch'], ['hello'])]), [], 0);
    await expectIds(rm, plan([text(['excerpt'], ['there'])]), [2], 1);
    await expectIds(rm, plan([text(['title'], ['zzz'])]), [], 0);
  });

  test('text filters over word-like pieces: punctuation, case, short and long terms, unicode, updates and deletes', async ({
    rm,
  }) => {
    const rows = new Map<DocId, RefRow>();
    let position = 0;
    const put = async (entries: [DocId, Record<string, string> | null][]) => {
      const writes = entries.map(
        ([id, text]): DocWrite =>
          text === null
            ? { collection: C, id, doc: null }
            : {
                collection: C,
                id,
                doc: { id },
                index: { sort: { date: Number(id) }, sets: { status: 'publish' }, text },
              },
      );
      await rm.commit(commitOf(writes, ++position));
      for (const w of writes) {
        if (w.doc === null) rows.delete(w.id);
        else rows.set(w.id, { doc: w.doc, index: w.index! });
      }
    };
    const fields = [['title'], ['content'], ['title', 'excerpt', 'content'], ['excerpt']];
    /** Every term, alone, with another and as an exclusion, in each field list: against the reference, and `expected` pinned. */
    const check = async (terms: string[], expected: Record<string, DocId[]> = {}) => {
      for (const f of fields) {
        for (const term of terms) {
          const plans = [
            plan([text(f, [term])]),
            plan([text(f, [], [term])]),
            plan([text(f, [term, 'post'])]),
            plan([{ kind: 'any', field: 'status', values: ['publish'] }, text(f, [term], ['zzz'])]),
          ];
          for (const p of plans) {
            const reference = referenceQuery([...rows.values()], p);
            const got = await rm.query(C, p);
            assert.equal(idsOf(got), idsOf(reference), `ids for ${JSON.stringify(p)}`);
            assert.is(got.total, reference.total, `total for ${JSON.stringify(p)}`);
          }
        }
      }
      for (const [term, ids] of Object.entries(expected))
        assert.equal(idsOf(await rm.query(C, plan([text(['title', 'excerpt', 'content'], [term])]))), ids, term);
    };
    const text = (f: string[], includes: string[], excludes: string[] = []): Filter => ({
      kind: 'text',
      fields: f,
      includes,
      excludes,
    });
    await put([
      [1, { title: 'Node.js post', content: '<p>Use e-mail, or node.js; C++ too.</p>' }],
      [2, { title: 'ÉCLAIR au Café', excerpt: 'Straße', content: 'İstanbul 日本語のテキスト 🦊fox' }],
      [3, { title: 'Common post', content: 'common words: alpha beta gamma' }],
      [4, { title: 'KELVIN \u212a and ſ', content: 'tab\tseparated\nlines  and\u00a0no-break spaces' }],
      [5, { title: 'x', excerpt: 'ab abc abcd', content: 'abcde' }],
    ]);
    const terms = [
      'node.js',
      'de.j',
      'e-ma',
      '<p>',
      'p>use',
      '++',
      'c++ too',
      'js;',
      'mail,',
      'NODE',
      'éclair',
      'ÉCLAIR',
      'café',
      'straße',
      'STRASSE',
      'stanbul',
      'i̇stanbul',
      '日',
      '日本',
      '本語のテ',
      '🦊',
      '🦊fox',
      'fox',
      'common',
      'commons',
      'alpha beta',
      'a b',
      'kelvin',
      '\u212a',
      'k and',
      'ſ',
      'tab',
      'd\nli',
      'no-break',
      '\u00a0no',
      'ab',
      'abc',
      'abcd',
      'abcdef',
      'b',
      'x',
      '.',
      ' ',
    ];
    await check(terms, { 'de.j': [1], 日: [2], common: [3], abcd: [5], abcdef: [] });
    // Updates that drop and add words, and deletes of documents sharing a word.
    await put([
      [1, { title: 'Renamed', content: 'node only' }],
      [3, { title: 'Common post', content: 'beta gamma' }],
      ...Array.from({ length: 30 }, (_, i): [DocId, Record<string, string>] => [
        10 + i,
        { title: `Shared ${i}`, content: 'a common word' },
      ]),
    ]);
    await check(['node.js', 'node', 'alpha', 'common', 'commo', 'shared', 'renamed', 'beta'], {
      'node.js': [],
      alpha: [],
    });
    await put(Array.from({ length: 29 }, (_, i): [DocId, null] => [10 + i, null]));
    await put([[3, null]]);
    await check(['common', 'shared', 'gamma'], { common: [39], shared: [39], gamma: [] });
    await put([[39, null]]);
    await check(['common', 'shared'], { common: [], shared: [] });
    await put([[40, { title: 'Common again', content: 'COMMON' }]]);
    await check(['common', 'again'], { common: [40] });
  });

  test('or / and nest, empty or matches nothing, empty and everything', async ({ rm }) => {
    await load(rm);
    await expectIds(
      rm,
      plan([
        {
          kind: 'or',
          filters: [
            { kind: 'any', field: 'status', values: ['draft'] },
            { kind: 'range', field: 'date', gte: 30 },
          ],
        },
      ]),
      [1, 2, 4],
      3,
    );
    await expectIds(rm, plan([{ kind: 'or', filters: [] }]), [], 0);
    await expectIds(rm, plan([{ kind: 'and', filters: [] }]), [1, 2, 3, 4, 5, 'x'], 6);
    await expectIds(
      rm,
      plan([
        {
          kind: 'or',
          filters: [
            {
              kind: 'and',
              filters: [
                { kind: 'any', field: 'status', values: ['publish'] },
                { kind: 'none', field: 'tags', values: ['a'] },
              ],
            },
            { kind: 'text', fields: ['title'], includes: ['trash'], excludes: [] },
          ],
        },
        { kind: 'none', field: 'id', values: [3] },
      ]),
      [5, 'x'],
      2,
    );
    await expectIds(
      rm,
      plan([
        {
          kind: 'or',
          filters: [
            { kind: 'none', field: 'status', values: ['publish'] },
            { kind: 'any', field: 'id', values: [1] },
          ],
        },
      ]),
      [1, 2, 5],
      3,
    );
  });

  // --- orders -----------------------------------------------------------------------------------------------

  test('field order: ties by id in the direction, missing keys last either way', async ({ rm }) => {
    await load(rm);
    const by = (field: string, direction: 'asc' | 'desc'): Order => ({ kind: 'field', field, direction });
    await expectIds(rm, plan([], by('date', 'desc')), [4, 1, 'x', 3, 2, 5], 6);
    await expectIds(rm, plan([], by('date', 'asc')), [2, 3, 'x', 1, 4, 5], 6);
    await expectIds(rm, plan([], by('title', 'asc')), ['x', 1, 2, 4, 3, 5], 6);
    await expectIds(rm, plan([], by('title', 'desc')), [4, 2, 1, 'x', 5, 3], 6);
    await expectIds(rm, plan([], by('id', 'desc')), ['x', 5, 4, 3, 2, 1], 6);
    await expectIds(rm, plan([], by('nosuch', 'desc')), ['x', 5, 4, 3, 2, 1], 6);
    await expectIds(
      rm,
      plan([{ kind: 'any', field: 'status', values: ['publish'] }], by('date', 'desc')),
      [4, 1, 'x', 3],
      4,
    );
    await expectIds(rm, plan([{ kind: 'range', field: 'date', lt: 30 }], by('date', 'desc')), ['x', 3, 2], 3);
  });

  test('list order: listed positions first, the rest by id ascending', async ({ rm }) => {
    await load(rm);
    await expectIds(rm, plan([], { kind: 'list', field: 'id', values: [4, 2, 99, 1, 4] }), [4, 2, 1, 3, 5, 'x'], 6);
    await expectIds(rm, plan([], { kind: 'list', field: 'tags', values: ['b', 'a'] }), [1, 2, 'x', 4, 3, 5], 6);
    await expectIds(
      rm,
      plan([], { kind: 'list', field: 'status', values: ['trash', 'draft'] }),
      [5, 2, 1, 3, 4, 'x'],
      6,
    );
    await expectIds(rm, plan([], { kind: 'list', field: 'id', values: [] }), [1, 2, 3, 4, 5, 'x'], 6);
    await expectIds(
      rm,
      plan(
        [{ kind: 'any', field: 'status', values: ['publish'] }],
        { kind: 'list', field: 'id', values: ['x', 2, 3] },
        1,
        2,
      ),
      [3, 1],
      4,
    );
  });

  test('relevance order: ranks, then the tie-breaking field', async ({ rm }) => {
    const row = (id: number, title: string, excerpt: string, content: string, date?: number): RefRow => ({
      doc: { id },
      index: { ...(date === undefined ? {} : { sort: { date } }), text: { title, excerpt, content } },
    });
    const rows = [
      row(1, 'Nothing here', 'none', 'none', 5),
      row(2, 'the RED fox', '', '', 1),
      row(3, 'red and fox', '', '', 2),
      row(4, 'fox only', '', '', 3),
      row(5, 'plain', 'a red fox', '', 4),
      row(6, 'plain', '', 'the red fox', 5),
      row(7, 'Red fox again', '', '', 6),
      row(8, 'fox', '', '', 7),
      row(9, 'x', '', 'red fox'),
    ];
    await load(rm, rows);
    const relevance = (phrase: string, terms: string[], direction: 'asc' | 'desc' = 'desc'): Order => ({
      kind: 'relevance',
      phrase,
      terms,
      columns: { title: 'title', excerpt: 'excerpt', content: 'content' },
      tieBreak: { field: 'date', direction },
    });
    await expectIds(rm, plan([], relevance('Red Fox', ['red', 'fox'])), [7, 2, 3, 8, 4, 5, 6, 9, 1], 9, rows);
    await expectIds(rm, plan([], relevance('red fox', ['red', 'fox'], 'asc')), [2, 7, 3, 4, 8, 5, 6, 9, 1], 9, rows);
    await expectIds(rm, plan([], relevance('', ['FOX'])), [8, 7, 4, 3, 2, 6, 1, 5, 9], 9, rows);
    await expectIds(rm, plan([], relevance('', [])), [8, 7, 6, 1, 5, 4, 3, 2, 9], 9, rows);
    await expectIds(rm, plan([], relevance('red fox', [])), [7, 2, 5, 6, 9, 8, 1, 4, 3], 9, rows);
    await expectIds(
      rm,
      plan(
        [{ kind: 'text', fields: ['title', 'excerpt', 'content'], includes: ['fox'], excludes: [] }],
        relevance('red fox', ['red', 'fox']),
        2,
        3,
      ),
      [3, 8, 4],
      8,
      rows,
    );
  });

  test('offset, limit, null limit and total', async ({ rm }) => {
    await load(rm);
    const desc: Order = { kind: 'field', field: 'date', direction: 'desc' };
    await expectIds(rm, plan([], desc, 2, 2), ['x', 3], 6);
    await expectIds(rm, plan([], desc, 4, null), [2, 5], 6);
    await expectIds(rm, plan([], desc, 0, 0), [], 6);
    await expectIds(rm, plan([], desc, 6, 10), [], 6);
    await expectIds(rm, plan([], desc, 100, null), [], 6);
    await expectIds(rm, plan([], desc, 5, 1), [5], 6);
    await expectIds(rm, plan([{ kind: 'any', field: 'status', values: ['publish'] }], desc, 1, 2), [1, 'x'], 4);
    await expectIds(rm, plan([{ kind: 'any', field: 'status', values: ['publish'] }], desc, 3, 5), [3], 4);
    await expectIds(rm, plan([{ kind: 'range', field: 'date', gte: 20 }], desc, 1, 2), [1, 'x'], 4);
    await expectIds(rm, plan([{ kind: 'text', fields: ['title'], includes: ['o'], excludes: [] }], desc, 1, 1), [1], 4);
    await rejects(rm.query(C, plan([], desc, -1, 1)));
    await rejects(rm.query(C, plan([], desc, 0, 1.5)));
    await rejects(rm.query(C, plan([{ kind: 'any', field: 'status', values: [Number.NaN] }])));
  });

  test('a query on an unknown collection is empty', async ({ rm }) => {
    await load(rm);
    const got = await rm.query('nothing-here', plan([], { kind: 'field', field: 'date', direction: 'desc' }, 0, 10));
    assert.equal(got, { items: [], total: 0 });
  });

  test('partitions: deep pages, status changes, deletions and rebuilds give what the reference gives', async ({
    rm,
  }) => {
    const statuses = ['publish', 'draft', 'private'];
    const state = new Map<DocId, RefRow>();
    let position = 0;
    const apply = async (writes: DocWrite[]) => {
      await rm.commit(commitOf(writes, ++position));
      for (const w of writes) {
        if (w.doc === null) state.delete(w.id);
        else state.set(w.id, { doc: w.doc, ...(w.index ? { index: w.index } : {}) });
      }
    };
    const entry = (n: number, status: string, partitions: string[] | undefined = ['status']): IndexEntry => ({
      // Dates tie in threes; every seventh document has no title key.
      sort: n % 7 === 0 ? { date: Math.floor(n / 3) } : { date: Math.floor(n / 3), title: `t${(n * 37) % 101}` },
      sets: { status, tags: [n % 4, n % 5] },
      ...(partitions ? { partitions } : {}),
    });
    const post = (n: number, status: string, partitions?: string[]) =>
      write(n, { n, status }, entry(n, status, partitions));
    const check = async (where: string) => {
      const rows = [...state.values()];
      const shapes: QueryPlan[] = [];
      for (const status of [...statuses, 'trash', 'nope']) {
        for (const [offset, limit] of [
          [0, 10],
          [7, 3],
          [150, 10],
          [248, 10],
          [290, 20],
          [400, 5],
          [5, null],
          [0, 0],
        ] as [number, number | null][]) {
          shapes.push(
            plan(
              [{ kind: 'any', field: 'status', values: [status] }],
              { kind: 'field', field: 'date', direction: 'desc' },
              offset,
              limit,
            ),
          );
          shapes.push(
            plan(
              [{ kind: 'any', field: 'status', values: [status, status] }],
              { kind: 'field', field: 'id', direction: 'asc' },
              offset,
              limit,
            ),
          );
          shapes.push(
            plan(
              [{ kind: 'and', filters: [{ kind: 'any', field: 'status', values: [status] }] }],
              { kind: 'field', field: 'title', direction: 'asc' },
              offset,
              limit,
            ),
          );
          shapes.push(
            plan(
              [{ kind: 'any', field: 'status', values: [status] }],
              { kind: 'field', field: 'title', direction: 'desc' },
              offset,
              limit,
            ),
          );
          shapes.push(
            plan(
              [
                { kind: 'any', field: 'status', values: [status] },
                { kind: 'range', field: 'date', gt: 20, lte: 60 },
              ],
              { kind: 'field', field: 'date', direction: offset % 2 === 0 ? 'asc' : 'desc' },
              offset % 50,
              limit,
            ),
          );
        }
      }
      shapes.push(
        plan(
          [{ kind: 'any', field: 'tags', values: [2] }],
          { kind: 'field', field: 'date', direction: 'desc' },
          30,
          10,
        ),
      );
      shapes.push(
        plan(
          [{ kind: 'any', field: 'status', values: ['publish', 'private'] }],
          { kind: 'field', field: 'date', direction: 'desc' },
          100,
          10,
        ),
      );
      for (const p of shapes) {
        const expected = referenceQuery(rows, p);
        const got = await rm.query(C, p);
        const label = `${where}: ${JSON.stringify(p)}`;
        assert.equal(idsOf(got), idsOf(expected), label);
        assert.is(got.total, expected.total, label);
        assert.equal(got.items, expected.items, label);
      }
    };
    const all = Array.from({ length: 300 }, (_, n) => post(n, statuses[n % 3]!));
    for (let i = 0; i < all.length; i += 100) await apply(all.slice(i, i + 100));
    await check('loaded');
    // Status changes move documents between partitions; title keys come and go.
    await apply(Array.from({ length: 60 }, (_, i) => post(i * 5, statuses[(i * 5 + 1) % 3]!)));
    await apply([
      write(
        14,
        { n: 14 },
        { sort: { date: 4, title: 'now titled' }, sets: { status: 'publish' }, partitions: ['status'] },
      ),
    ]);
    await check('after status changes');
    await apply(Array.from({ length: 40 }, (_, i) => ({ collection: C, id: i * 7 + 1, doc: null })));
    await check('after deletions');
    // A document that does not declare the partition: its value is served as if no document had.
    await apply([post(1000, 'publish', []), post(1001, 'draft', undefined)]);
    await check('with an undeclared document');
    await apply([post(1000, 'publish')]);
    await check('once it declares it');
    // Rebuild: forget everything and commit the same documents again.
    await rm.reset('posts-projection', [C]);
    const rows = [...state.values()];
    position = 0;
    await rm.commit(
      commitOf(
        rows.map((r) => ({ collection: C, id: r.doc.id, doc: r.doc, ...(r.index ? { index: r.index } : {}) })),
        ++position,
      ),
    );
    await check('after a rebuild');
    await rejects(rm.commit(commitOf([write(1, {}, { partitions: ['id'] })], ++position)));
    await rejects(rm.commit(commitOf([write(1, {}, { partitions: [3] as unknown as string[] })], ++position)));
  });

  test('seeded random documents and plans agree with the reference', async ({ rm }) => {
    const seed = Number(process.env.READ_MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const random = new Random(seed);
    const state = new Map<DocId, RefRow>();
    let position = 0;
    const apply = async (writes: DocWrite[]) => {
      position += 1;
      await rm.commit(commitOf(writes, position));
      for (const w of writes) {
        if (w.doc === null) state.delete(w.id);
        else state.set(w.id, w.index === undefined ? { doc: w.doc } : { doc: w.doc, index: w.index });
      }
    };
    const ids = random.ids(420);
    const initial = ids.slice(0, 300).map((id) => random.write(id));
    for (let i = 0; i < initial.length; i += 50) await apply(initial.slice(i, i + 50));
    for (let round = 0; round < 3; round++) {
      for (let q = 0; q < 100; q++) {
        const p = random.plan();
        const expected = referenceQuery([...state.values()], p);
        let got: QueryResult;
        try {
          got = await rm.query(C, p);
        } catch (error) {
          throw new Error(`seed ${seed}: query threw ${(error as Error).message} for ${JSON.stringify(p)}`);
        }
        const where = `seed ${seed} (READ_MODEL_SEED=${seed} replays it), round ${round}, plan ${JSON.stringify(p)}`;
        assert.equal(idsOf(got), idsOf(expected), where);
        assert.is(got.total, expected.total, where);
        assert.equal(got.items, expected.items, where);
      }
      // Mutate: new documents, updates that move memberships, deletes.
      const writes: DocWrite[] = [];
      for (let i = 0; i < 120; i++) {
        const id = random.pick(ids);
        writes.push(random.chance(0.25) ? { collection: C, id, doc: null } : random.write(id));
      }
      for (let i = 0; i < writes.length; i += 30) await apply(writes.slice(i, i + 30));
      assert.equal(await rm.checkpoint('posts-projection'), { position, version: 1 }, `seed ${seed}`);
    }
  });

  test.run();
}

// --- random generation ------------------------------------------------------------------------------------------

const WORDS = [
  'alpha',
  'Beta',
  'gamma',
  'DELTA',
  'café',
  'Straße',
  'naïve',
  '日本語',
  '😀x',
  'fox',
  'foxes',
  'the',
  'a',
  'Ünïcode',
  'ab',
  'abc',
  'xyz',
  'İstanbul',
];
const STATUSES = ['publish', 'draft', 'trash', 'private'];
const TAGS: Scalar[] = [1, 2, 3, '1', 'x', 'y', 'ü'];
const TITLES = ['apple', 'Apple', 'banana', 'b', 'é', 'z', '', 'ab', 'a\u0000b', '😀', '\uffff'];
const MIXED: Scalar[] = [-1.5, 0, 3, 10, 'a', 'B', '10', ''];
const STRING_IDS = ['a', 'b', 'Z', 'é', 'ab', '10', '😀'];

/** mulberry32: small, seedable, good enough for test data. */
class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
  some<T>(list: readonly T[], max: number): T[] {
    return Array.from({ length: this.int(max + 1) }, () => this.pick(list));
  }

  ids(n: number): DocId[] {
    const out: DocId[] = [...STRING_IDS];
    for (let i = -3; out.length < n; i++) out.push(i === 7 ? 7.5 : i);
    return out;
  }

  words(max: number): string {
    return this.some(WORDS, max).join(this.chance(0.8) ? ' ' : '');
  }

  write(id: DocId): DocWrite {
    const sort: Record<string, Scalar> = {};
    if (this.chance(0.85)) sort.date = this.int(40);
    if (this.chance(0.7)) sort.title = this.pick(TITLES);
    if (this.chance(0.6)) sort.mixed = this.pick(MIXED);
    const sets: Record<string, Scalar | Scalar[]> = {};
    if (this.chance(0.95)) sets.status = this.pick(STATUSES);
    if (this.chance(0.8)) sets.tags = this.some(TAGS, 3);
    if (this.chance(0.7)) sets.author = this.int(5);
    const text: Record<string, string> = {};
    if (this.chance(0.95)) text.title = this.words(3);
    if (this.chance(0.6)) text.excerpt = this.words(5);
    if (this.chance(0.8)) text.content = this.words(12);
    const r = this.next();
    const partitions = r < 0.7 ? ['status'] : r < 0.8 ? ['status', 'tags'] : r < 0.9 ? ['author', 'status'] : undefined;
    const index: IndexEntry = partitions ? { sort, sets, text, partitions } : { sort, sets, text };
    return { collection: C, id, doc: { id, n: this.int(1000), tags: sets.tags ?? null }, index };
  }

  term(): string {
    const word = this.pick(WORDS);
    const start = this.int(word.length);
    let term = word.slice(start, start + 1 + this.int(5));
    if (this.chance(0.3)) term = term.toUpperCase();
    if (this.chance(0.1)) term = `${this.pick(WORDS)} ${this.pick(WORDS)}`;
    return term;
  }

  scalarFor(field: string): Scalar {
    switch (field) {
      case 'status':
        return this.chance(0.9) ? this.pick(STATUSES) : 'nope';
      case 'tags':
        return this.pick(TAGS);
      case 'author':
        return this.int(6);
      case 'id':
        return this.chance(0.2) ? this.pick(STRING_IDS) : this.int(300) - 3;
      case 'date':
        return this.chance(0.9) ? this.int(42) - 1 : this.pick(MIXED);
      case 'title':
        return this.pick(TITLES);
      default:
        return this.pick(MIXED);
    }
  }

  filter(depth: number): Filter {
    const kinds =
      depth > 0 ? ['any', 'all', 'none', 'range', 'text', 'or', 'and'] : ['any', 'all', 'none', 'range', 'text'];
    const kind = this.pick(kinds);
    switch (kind) {
      case 'any':
      case 'all':
      case 'none': {
        const field = this.pick(['status', 'tags', 'author', 'id', 'nosuch']);
        return { kind, field, values: this.some([0], 3).map(() => this.scalarFor(field)) } as Filter;
      }
      case 'range': {
        const field = this.pick(['date', 'title', 'mixed', 'id', 'nosuch']);
        const f: Extract<Filter, { kind: 'range' }> = { kind: 'range', field };
        for (const bound of ['gt', 'gte', 'lt', 'lte'] as const)
          if (this.chance(0.35)) f[bound] = this.scalarFor(field);
        return f;
      }
      case 'text':
        return {
          kind: 'text',
          fields: this.some(['title', 'excerpt', 'content', 'nosuch'], 3),
          includes: this.some([0], 2).map(() => this.term()),
          excludes: this.chance(0.4) ? this.some([0], 2).map(() => this.term()) : [],
        };
      default:
        return { kind: kind as 'or' | 'and', filters: this.some([0], 3).map(() => this.filter(depth - 1)) };
    }
  }

  order(): Order {
    const r = this.next();
    if (r < 0.6) {
      return {
        kind: 'field',
        field: this.pick(['date', 'date', 'title', 'mixed', 'id', 'nosuch']),
        direction: this.pick(['asc', 'desc'] as const),
      };
    }
    if (r < 0.8) {
      const field = this.pick(['id', 'status', 'tags']);
      return { kind: 'list', field, values: this.some([0], 5).map(() => this.scalarFor(field)) };
    }
    return {
      kind: 'relevance',
      phrase: this.chance(0.15) ? '' : this.chance(0.5) ? this.term() : this.words(2),
      terms: this.some([0], 3).map(() => this.term()),
      columns: { title: 'title', excerpt: 'excerpt', content: 'content' },
      tieBreak: { field: this.pick(['date', 'title', 'id', 'nosuch']), direction: this.pick(['asc', 'desc'] as const) },
    };
  }

  plan(): QueryPlan {
    if (this.chance(0.2)) {
      // The partition shape: one value of a set field, perhaps a range on the order key, deep offsets.
      const field = this.pick(['status', 'status', 'tags', 'author']);
      const value = this.scalarFor(field);
      const orderField = this.pick(['date', 'date', 'title', 'mixed', 'id']);
      const filters: Filter[] = [{ kind: 'any', field, values: this.chance(0.2) ? [value, value] : [value] }];
      if (orderField !== 'id' && this.chance(0.3)) {
        const range: Extract<Filter, { kind: 'range' }> = { kind: 'range', field: orderField };
        for (const bound of ['gt', 'gte', 'lt', 'lte'] as const)
          if (this.chance(0.4)) range[bound] = this.scalarFor(orderField);
        filters.push(range);
      }
      return {
        filters: this.chance(0.2) ? [{ kind: 'and', filters }] : filters,
        order: { kind: 'field', field: orderField, direction: this.pick(['asc', 'desc'] as const) },
        offset: this.chance(0.3) ? 0 : this.int(300),
        limit: this.chance(0.2) ? null : this.int(16),
      };
    }
    // Bias toward the production shapes: status filters ordered by date with small pages.
    const filters = this.chance(0.3)
      ? [
          { kind: 'any', field: 'status', values: this.some(STATUSES, 2) } as Filter,
          ...this.some([0], 1).map(() => this.filter(1)),
        ]
      : this.some([0], 3).map(() => this.filter(2));
    return {
      filters,
      order: this.order(),
      offset: this.chance(0.5) ? 0 : this.int(this.chance(0.8) ? 20 : 300),
      limit: this.chance(0.2) ? null : this.int(16),
    };
  }
}
