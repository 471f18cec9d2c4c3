import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { loadSnapshot, writeSnapshot } from '../../src/readModel/memory/snapshot';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import type { EventStore } from '../../src/ports/eventStore';
import type { Projection } from '../../src/projection/projection';
import type { DocWrite, QueryPlan } from '../../src/ports/readModel';
import { readModelContract } from '../contracts/readModel.contract';
import { idsOf, referenceQuery, type RefRow } from '../support/referenceQuery';
import { freePort, ROOT } from '../support/processes';

readModelContract('memory', async () => ({ readModel: createMemoryReadModel(), cleanup: async () => {} }));

// The contract's data sets fit in one index chunk; this one makes the order indexes split, shrink and walk
// across many chunks.
const big = suite('memory read model: many documents');

big('order indexes stay correct across chunk splits and deletes', async () => {
  const rm = createMemoryReadModel();
  const rows = new Map<number, RefRow>();
  let seed = 12345;
  const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const writes: DocWrite[] = [];
  for (let id = 0; id < 5000; id++) {
    const index = { sort: { date: rand(700) }, sets: { status: rand(4) === 0 ? 'draft' : 'publish' } };
    writes.push({ collection: 'posts', id, doc: { id }, index });
    rows.set(id, { doc: { id }, index });
  }
  await rm.commit({ writes, checkpoint: { name: 'p', position: 1, version: 1 } });
  const deletes: DocWrite[] = [];
  for (let i = 0; i < 2000; i++) {
    const id = rand(5000);
    deletes.push({ collection: 'posts', id, doc: null });
    rows.delete(id);
  }
  await rm.commit({ writes: deletes, checkpoint: { name: 'p', position: 2, version: 1 } });
  const plans: QueryPlan[] = [];
  for (const direction of ['asc', 'desc'] as const) {
    for (const [offset, limit] of [
      [0, 10],
      [1500, 20],
      [2900, 500],
      [0, null],
    ] as const) {
      plans.push({
        filters: [{ kind: 'any', field: 'status', values: ['publish'] }],
        order: { kind: 'field', field: 'date', direction },
        offset,
        limit,
      });
      plans.push({ filters: [], order: { kind: 'field', field: 'date', direction }, offset, limit });
      plans.push({
        filters: [{ kind: 'range', field: 'date', gte: 100, lt: 600 }],
        order: { kind: 'field', field: 'date', direction },
        offset,
        limit,
      });
      plans.push({
        filters: [{ kind: 'range', field: 'id', gt: 1000 }],
        order: { kind: 'field', field: 'id', direction },
        offset,
        limit,
      });
    }
  }
  for (const plan of plans) {
    const expected = referenceQuery([...rows.values()], plan);
    const got = await rm.query('posts', plan);
    assert.equal(idsOf(got), idsOf(expected), JSON.stringify(plan));
    assert.is(got.total, expected.total, JSON.stringify(plan));
  }
});

big(
  'a bulk load builds each order by one sort: keys in order, out of order, tied, numbers and strings mixed',
  async () => {
    const rm = createMemoryReadModel();
    const rows = new Map<number | string, RefRow>();
    let seed = 777;
    const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    rm.beginBulkLoad!(['posts']);
    // Ids written out of order and mixed with string ids; `ascending` in write order, `tied` with few values,
    // `mixed` numbers and strings, `partitioned` paged within a status.
    const writes: DocWrite[] = [];
    for (let n = 0; n < 3000; n++) {
      const id = rand(3) === 0 ? `s${rand(100_000)}` : rand(100_000);
      if (rows.has(id)) continue;
      const mixed = rand(2) === 0 ? rand(50) : `k${rand(50)}`;
      const index = {
        sort: { ascending: n, tied: rand(5), mixed },
        sets: { status: rand(3) === 0 ? 'draft' : 'publish' },
        partitions: ['status'],
      };
      writes.push({ collection: 'posts', id, doc: { id }, index });
      rows.set(id, { doc: { id }, index });
    }
    await rm.commit({ writes, checkpoint: { name: 'p', position: 1, version: 1 } });
    rm.endBulkLoad!();
    for (const field of ['id', 'ascending', 'tied', 'mixed']) {
      for (const direction of ['asc', 'desc'] as const) {
        for (const [offset, limit] of [
          [0, 10],
          [700, 600],
          [0, null],
        ] as const) {
          for (const filters of [[], [{ kind: 'any' as const, field: 'status', values: ['draft'] }]]) {
            const plan: QueryPlan = { filters, order: { kind: 'field', field, direction }, offset, limit };
            const got = await rm.query('posts', plan);
            const expected = referenceQuery([...rows.values()], plan);
            assert.equal(idsOf(got), idsOf(expected), JSON.stringify(plan));
            assert.is(got.total, expected.total, JSON.stringify(plan));
          }
        }
      }
    }
  },
);

big(
  'sets kept as bits, partition orders made on first use, after status changes, deletes and re-used slots',
  async () => {
    const rm = createMemoryReadModel();
    const rows = new Map<number, RefRow>();
    let seed = 321;
    const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const statuses = ['publish', 'publish', 'publish', 'draft', 'private'];
    let position = 0;
    const write = async (count: number, ids: () => number) => {
      const writes: DocWrite[] = [];
      for (let n = 0; n < count; n++) {
        const id = ids();
        if (rand(5) === 0) {
          writes.push({ collection: 'posts', id, doc: null });
          rows.delete(id);
          continue;
        }
        const index = {
          sort: { date: rand(500), ...(rand(7) === 0 ? {} : { title: `t${rand(90)}` }) },
          sets: { status: statuses[rand(statuses.length)]!, tags: [rand(4), rand(40)] },
          partitions: ['status'],
        };
        writes.push({ collection: 'posts', id, doc: { id }, index });
        rows.set(id, { doc: { id }, index });
      }
      await rm.commit({ writes, checkpoint: { name: 'p', position: ++position, version: 1 } });
    };
    const check = async () => {
      const plans: QueryPlan[] = [];
      for (const direction of ['asc', 'desc'] as const) {
        for (const status of ['publish', 'draft', 'private', 'gone']) {
          plans.push({
            filters: [{ kind: 'any', field: 'status', values: [status] }],
            order: { kind: 'field', field: 'date', direction },
            offset: rand(300),
            limit: 20,
          });
          plans.push({
            filters: [
              { kind: 'any', field: 'status', values: [status] },
              { kind: 'range', field: 'title', gte: 't3' },
            ],
            order: { kind: 'field', field: 'title', direction },
            offset: rand(50),
            limit: 20,
          });
        }
        plans.push({
          filters: [
            { kind: 'all', field: 'tags', values: [1, 7] },
            { kind: 'none', field: 'status', values: ['draft'] },
          ],
          order: { kind: 'field', field: 'id', direction },
          offset: 0,
          limit: null,
        });
        plans.push({
          filters: [{ kind: 'any', field: 'tags', values: [0, 2, 13] }],
          order: { kind: 'field', field: 'date', direction },
          offset: 100,
          limit: 50,
        });
      }
      for (const plan of plans) {
        const expected = referenceQuery([...rows.values()], plan);
        const got = await rm.query('posts', plan);
        assert.equal(idsOf(got), idsOf(expected), JSON.stringify(plan));
        assert.is(got.total, expected.total, JSON.stringify(plan));
      }
    };
    let next = 0;
    await write(3000, () => next++);
    await check();
    for (let round = 0; round < 6; round++) {
      // Rewrites and deletes of existing rows, and new rows taking the slots deleted ones left.
      await write(800, () => rand(next + 200));
      await check();
    }
  },
);

big(
  'orders made at the first plan that needs them follow the writes made before and after: keys gained, changed, dropped by every row, deleted rows',
  async () => {
    const rm = createMemoryReadModel();
    const rows = new Map<number, RefRow>();
    let seed = 4242;
    const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    let position = 0;
    // `late` is held by no row at first and reaches rows only by rewrites; `gone` leaves every row, then comes back.
    const write = async (count: number, withLate: boolean, withGone: boolean) => {
      const writes: DocWrite[] = [];
      for (let n = 0; n < count; n++) {
        const id = rand(1500);
        if (rand(6) === 0) {
          writes.push({ collection: 'posts', id, doc: null });
          rows.delete(id);
          continue;
        }
        const sort: Record<string, number | string> = { date: rand(400) };
        if (withLate && rand(2) === 0) sort.late = rand(3) === 0 ? `k${rand(30)}` : rand(60);
        if (withGone) sort.gone = rand(50);
        const index = { sort, sets: { status: rand(3) === 0 ? 'draft' : 'publish' } };
        writes.push({ collection: 'posts', id, doc: { id }, index });
        rows.set(id, { doc: { id }, index });
      }
      await rm.commit({ writes, checkpoint: { name: 'p', position: ++position, version: 1 } });
    };
    const check = async (fields: string[]) => {
      for (const field of fields) {
        for (const direction of ['asc', 'desc'] as const) {
          const plans: QueryPlan[] = [
            { filters: [], order: { kind: 'field', field, direction }, offset: rand(200), limit: 30 },
            {
              filters: [{ kind: 'range', field, gte: 10, lt: 40 }],
              order: { kind: 'field', field: 'date', direction },
              offset: 0,
              limit: null,
            },
            {
              filters: [{ kind: 'any', field: 'status', values: ['draft'] }],
              order: { kind: 'field', field, direction },
              offset: 0,
              limit: null,
            },
          ];
          for (const plan of plans) {
            const expected = referenceQuery([...rows.values()], plan);
            const got = await rm.query('posts', plan);
            assert.equal(idsOf(got), idsOf(expected), JSON.stringify(plan));
            assert.is(got.total, expected.total, JSON.stringify(plan));
          }
        }
      }
    };
    await write(2000, false, true);
    await check(['late']);
    await write(1500, true, true);
    // `late` and `id` used for the first time after the rows gained their keys; `gone` after rewrites.
    await check(['id', 'late', 'gone']);
    await write(1500, true, true);
    await check(['id', 'late', 'date', 'gone']);
    // Every row rewritten without `gone`, then rows gain it again.
    const all: DocWrite[] = [];
    for (const [id, row] of rows) {
      const { gone: _gone, ...sort } = row.index!.sort as Record<string, number | string>;
      const index = { ...row.index, sort };
      all.push({ collection: 'posts', id, doc: { id }, index });
      rows.set(id, { doc: { id }, index });
    }
    await rm.commit({ writes: all, checkpoint: { name: 'p', position: ++position, version: 1 } });
    await check(['gone', 'late']);
    await write(1000, true, true);
    await check(['gone', 'late', 'id']);
  },
);

big('rows found by id through growth, deletes of most rows, re-used slots and ids of every kind', async () => {
  const rm = createMemoryReadModel();
  const present = new Map<number | string, number>();
  let seed = 99;
  const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  // Small and large integers, negatives, fractions, -0's twin 0, strings (some looking like numbers): many collide.
  const idOf = (n: number): number | string => {
    switch (n % 6) {
      case 0:
        return n;
      case 1:
        return n * 65536;
      case 2:
        return -n;
      case 3:
        return n + 0.5;
      case 4:
        return `s${n}`;
      default:
        return String(n);
    }
  };
  let position = 0;
  let version = 0;
  const commit = async (writes: DocWrite[]) =>
    rm.commit({ writes, checkpoint: { name: 'p', position: ++position, version: 1 } });
  const check = async () => {
    const ids: (number | string)[] = [];
    for (let n = 0; n < 3000; n++) ids.push(idOf(n));
    const got = await rm.getMany('posts', ids);
    ids.forEach((id, i) => {
      const v = present.get(id);
      assert.equal(got[i], v === undefined ? null : { id, v }, `id ${JSON.stringify(id)}`);
    });
    const all = await rm.query('posts', {
      filters: [],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: null,
    });
    assert.is(all.total, present.size);
  };
  const writeSome = async (count: number) => {
    const writes: DocWrite[] = [];
    for (let k = 0; k < count; k++) {
      const id = idOf(rand(3000));
      version++;
      writes.push({ collection: 'posts', id, doc: { id, v: version } });
      present.set(id, version);
    }
    await commit(writes);
  };
  const deleteSome = async (share: number) => {
    const writes: DocWrite[] = [];
    for (const id of [...present.keys()]) {
      if (rand(100) >= share) continue;
      writes.push({ collection: 'posts', id, doc: null });
      present.delete(id);
    }
    await commit(writes);
  };
  await writeSome(2500);
  await check();
  // Most rows deleted (the table shrinks), then others added in their slots (it grows again).
  await deleteSome(95);
  await check();
  await writeSome(2000);
  await check();
  await deleteSome(100);
  await check();
  await writeSome(500);
  await check();
  assert.equal(await rm.get('posts', -0), present.has(0) ? { id: 0, v: present.get(0) } : null);
});

big(
  'rows holding the same few values (shared between them) keep their own through rewrites, values that read alike and many distinct ones',
  async () => {
    const rm = createMemoryReadModel();
    const rows = new Map<number, RefRow>();
    let seed = 2024;
    const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    // Values whose text forms are alike (1 and '1', 'n1;' and 1), and sometimes one of thousands (the shared
    // arrays are emptied when too many are different).
    const pool: (number | string)[] = [1, '1', 'n1;', 's1:1', 2, '2', 'n1;n2;', 1.5, '', ';'];
    const value = () => (rand(10) === 0 ? rand(50_000) : pool[rand(pool.length)]!);
    let position = 0;
    const write = async (count: number) => {
      const writes: DocWrite[] = [];
      for (let n = 0; n < count; n++) {
        const id = rand(3000);
        if (rand(8) === 0) {
          writes.push({ collection: 'posts', id, doc: null });
          rows.delete(id);
          continue;
        }
        const index = { sets: { a: Array.from({ length: 1 + rand(3) }, value), b: value() } };
        writes.push({ collection: 'posts', id, doc: { id }, index });
        rows.set(id, { doc: { id }, index });
      }
      await rm.commit({ writes, checkpoint: { name: 'p', position: ++position, version: 1 } });
    };
    const check = async () => {
      for (const v of pool) {
        for (const field of ['a', 'b']) {
          const plan: QueryPlan = {
            filters: [{ kind: 'any', field, values: [v] }],
            order: { kind: 'field', field: 'id', direction: 'asc' },
            offset: 0,
            limit: null,
          };
          const expected = referenceQuery([...rows.values()], plan);
          const got = await rm.query('posts', plan);
          assert.equal(idsOf(got), idsOf(expected), JSON.stringify(plan));
        }
      }
    };
    for (let round = 0; round < 8; round++) {
      await write(2500);
      await check();
    }
  },
);

big(
  'a bulk load counts each sort key over all its rows: deletes after it leave the rest ordered by the key',
  async () => {
    const rm = createMemoryReadModel();
    rm.beginBulkLoad!(['c']);
    const writes: DocWrite[] = [];
    // Two layouts share the sort key k; a third has none.
    for (let id = 1; id <= 60; id++) {
      const index =
        id % 3 === 0
          ? { sets: { s: id % 2 } }
          : id % 3 === 1
            ? { sort: { k: 100 - id } }
            : { sort: { k: 100 - id }, sets: { s: id % 2 } };
      writes.push({ collection: 'c', id, doc: { id }, index });
    }
    await rm.commit({ writes, checkpoint: { name: 'p', position: 1, version: 1 } });
    rm.endBulkLoad!();
    const keyed = (
      await rm.query('c', {
        filters: [],
        order: { kind: 'field', field: 'k', direction: 'asc' },
        offset: 0,
        limit: null,
      })
    ).items.map((d) => d.id);
    assert.equal(keyed.length, 60);
    // Deleting all but a few rows of each layout, one commit each, keeps the key's order for the rest.
    let position = 1;
    for (let id = 1; id <= 56; id++)
      await rm.commit({
        writes: [{ collection: 'c', id, doc: null }],
        checkpoint: { name: 'p', position: ++position, version: 1 },
      });
    const plan: QueryPlan = {
      filters: [{ kind: 'range', field: 'k', gt: 0 }],
      order: { kind: 'field', field: 'k', direction: 'asc' },
      offset: 0,
      limit: null,
    };
    const got = await rm.query('c', plan);
    assert.equal(idsOf(got), [59, 58]);
    const members = await rm.query('c', {
      filters: [{ kind: 'any', field: 's', values: [0] }],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: null,
    });
    assert.equal(idsOf(members), [60]);
  },
);

big.run();

// ASCII text columns are kept as they are and matched case-insensitively, others lowercased (textMatcher); this
// compares both with `lowercased column includes term` over characters whose case mappings trip naive folding.
const text = suite('memory read model: text columns with and without a lowercased copy');

text('text filters and relevance match the lowercased columns, whatever the characters', async () => {
  const rm = createMemoryReadModel();
  const alphabet = [
    'a',
    'B',
    'k',
    'K',
    'i',
    'I',
    's',
    'S',
    ' ',
    '.',
    '-',
    '\u212a',
    '\u0131',
    '\u0130',
    '\u017f',
    '\u00df',
    '\u00c9',
    '\u00e9',
    '\u03a3',
    '\u03c3',
    '\u03c2',
  ];
  let seed = 99;
  const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const word = (length: number) => Array.from({ length }, () => alphabet[rand(alphabet.length)]).join('');
  const rows: RefRow[] = [];
  const writes: DocWrite[] = [];
  for (let id = 1; id <= 600; id++) {
    // Half the documents are plain ASCII, half may hold any of the alphabet.
    const ascii = id % 2 === 0;
    const make = (length: number) => (ascii ? word(length).replace(/[^\x00-\x7f]/g, 'x') : word(length));
    const index = { sort: { n: rand(50) }, text: { title: make(6), excerpt: make(10), content: make(40) } };
    writes.push({ collection: 'posts', id, doc: { id }, index });
    rows.push({ doc: { id }, index });
  }
  await rm.commit({ writes, checkpoint: { name: 'p', position: 1, version: 1 } });
  const columns = { title: 'title', excerpt: 'excerpt', content: 'content' };
  for (let n = 0; n < 150; n++) {
    const term = word(1 + rand(3));
    const other = word(1 + rand(2));
    const plans: QueryPlan[] = [
      {
        filters: [{ kind: 'text', fields: ['title', 'content'], includes: [term], excludes: [] }],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: null,
      },
      {
        filters: [{ kind: 'text', fields: ['excerpt'], includes: [], excludes: [term] }],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: null,
      },
      {
        filters: [],
        order: {
          kind: 'relevance',
          phrase: `${term} ${other}`,
          terms: [term, other],
          columns,
          tieBreak: { field: 'n', direction: 'desc' },
        },
        offset: 0,
        limit: null,
      },
    ];
    for (const plan of plans) {
      const expected = referenceQuery(rows, plan);
      const got = await rm.query('posts', plan);
      assert.equal(idsOf(got), idsOf(expected), JSON.stringify(plan));
      assert.is(got.total, expected.total);
    }
  }
});

text.run();

// Documents are kept serialised (their JSON and text columns in arenas outside the V8 heap) and parsed on read into
// frozen objects; a document a caller keeps (keepIdentity) is one identity per stored version while the caller holds
// it (src/resources/content/present.ts keys its cache on it).
readModelContract('memory, no parsed documents kept', async () => ({
  readModel: createMemoryReadModel({ parsedDocsKept: 0 }),
  cleanup: async () => {},
}));

const stored = suite('memory read model: serialised documents');

const frozenThroughout = (value: unknown): boolean =>
  typeof value !== 'object' ||
  value === null ||
  (Object.isFrozen(value) && Object.values(value).every(frozenThroughout));

const fiftyPosts = (): DocWrite[] => {
  const writes: DocWrite[] = [];
  for (let id = 1; id <= 50; id++)
    writes.push({
      collection: 'posts',
      id,
      doc: { id, title: `Post ${id}`, nested: { list: [id] } },
      index: { sort: { n: id }, text: { title: `Post ${id}` } },
    });
  return writes;
};

stored('a kept document keeps one frozen identity until it changes, also when no parsed document is kept', async () => {
  for (const parsedDocsKept of [0, 1, 100]) {
    const rm = createMemoryReadModel({ parsedDocsKept });
    await rm.commit({ writes: fiftyPosts(), checkpoint: { name: 'p', position: 1, version: 1 } });
    const first = await rm.get('posts', 7);
    assert.ok(frozenThroughout(first));
    rm.keepIdentity!(first!);
    // Other reads push it out of any cache of recent documents; held here, it keeps its identity.
    for (let id = 1; id <= 50; id++) await rm.get('posts', id);
    await rm.query('posts', {
      filters: [],
      order: { kind: 'field', field: 'n', direction: 'desc' },
      offset: 0,
      limit: null,
    });
    assert.is(await rm.get('posts', 7), first, `parsedDocsKept ${parsedDocsKept}`);
    assert.is((await rm.getMany('posts', [7]))[0], first);
    const listed = await rm.query('posts', {
      filters: [{ kind: 'any', field: 'id', values: [7] }],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: 1,
    });
    assert.is(listed.items[0], first);
    await rm.commit({
      writes: [
        {
          collection: 'posts',
          id: 7,
          doc: { ...first!, title: 'Changed' },
          index: { sort: { n: 7 }, text: { title: 'Changed' } },
        },
      ],
      checkpoint: { name: 'p', position: 2, version: 1 },
    });
    const changed = await rm.get('posts', 7);
    assert.is.not(changed, first, 'a changed document is a new object');
    assert.is(changed!.title, 'Changed');
    assert.is(first!.title, 'Post 7', 'the old version is unchanged');
    assert.ok(frozenThroughout(changed));
  }
});

stored(
  'a document not kept is parsed afresh once out of the recent ones; keeping a changed one keeps nothing',
  async () => {
    const rm = createMemoryReadModel({ parsedDocsKept: 0 });
    await rm.commit({ writes: fiftyPosts(), checkpoint: { name: 'p', position: 1, version: 1 } });
    const first = await rm.get('posts', 7);
    const again = await rm.get('posts', 7);
    assert.is.not(again, first, 'nobody kept it: a new object');
    assert.equal(again, first);
    // Kept after a write: it is not the current version, so reads give the new one.
    const stale = await rm.get('posts', 8);
    await rm.commit({
      writes: [{ collection: 'posts', id: 8, doc: { id: 8, title: 'Changed' }, index: { sort: { n: 8 } } }],
      checkpoint: { name: 'p', position: 2, version: 1 },
    });
    rm.keepIdentity!(stale!);
    assert.is((await rm.get('posts', 8))!.title, 'Changed');
    // Of two objects of one version, the first kept stays the one read.
    const one = await rm.get('posts', 9);
    const other = await rm.get('posts', 9);
    rm.keepIdentity!(one!);
    rm.keepIdentity!(other!);
    assert.is(await rm.get('posts', 9), one);
    // Kept, then changed: the next version is a new object, and keeping it works as the first did.
    await rm.commit({
      writes: [{ collection: 'posts', id: 9, doc: { id: 9, title: 'Nine' }, index: { sort: { n: 9 } } }],
      checkpoint: { name: 'p', position: 3, version: 1 },
    });
    const next = await rm.get('posts', 9);
    assert.is(next!.title, 'Nine');
    rm.keepIdentity!(next!);
    assert.is(await rm.get('posts', 9), next);
    // Something not of this read model: nothing happens.
    rm.keepIdentity!({ id: 9, title: 'Nine' });
    assert.is(await rm.get('posts', 9), next);
  },
);

stored('once full, the recent documents take one on its second read', async () => {
  const rm = createMemoryReadModel({ parsedDocsKept: 3 });
  await rm.commit({ writes: fiftyPosts(), checkpoint: { name: 'p', position: 1, version: 1 } });
  const early = await rm.get('posts', 1);
  assert.is(await rm.get('posts', 1), early, 'kept at once while not full');
  await rm.get('posts', 2);
  await rm.get('posts', 3);
  const once = await rm.get('posts', 4);
  const twice = await rm.get('posts', 4);
  assert.is.not(twice, once, 'a first read once full is not kept');
  assert.is(await rm.get('posts', 4), twice, 'a second read is');
  assert.is.not(await rm.get('posts', 1), early, 'pushing out the least recently used');
});

stored('documents read back equal their JSON round trip, whatever stands in for a field', async () => {
  const rm = createMemoryReadModel({ parsedDocsKept: 0 });
  class Point {
    constructor(readonly x: number) {}
  }
  const docs: { doc: Record<string, unknown>; text: Record<string, string> }[] = [
    // The title column stands for the field (ASCII); the content column does not (it differs from the field).
    {
      doc: { id: 1, title: 'Plain ASCII', content: 'raw <b>body</b>' },
      text: { title: 'Plain ASCII', content: 'raw body' },
    },
    // Non-ASCII: stored lowercased, so it stands for the field only when the field is lowercase already.
    { doc: { id: 2, title: 'Straße Café', excerpt: 'déjà vu' }, text: { title: 'Straße Café', excerpt: 'déjà vu' } },
    // A lone surrogate: UTF-8 cannot hold it, so the columns are kept as strings.
    { doc: { id: 3, title: 'half \ud83d pair', other: 'x' }, text: { title: 'half \ud83d pair', other: 'x' } },
    // JSON's own rules: toJSON, class instances, undefined, non-finite numbers, -0.
    {
      doc: {
        id: 4,
        title: 'Dates',
        when: new Date(0),
        point: new Point(2),
        gone: undefined,
        list: [NaN, -0, undefined],
      },
      text: { title: 'Dates' },
    },
    // A column named like a field the document does not have, and a field named __proto__.
    {
      doc: JSON.parse('{"id":5,"__proto__":"proto text","title":"T"}') as Record<string, unknown>,
      text: JSON.parse('{"__proto__":"proto text","missing":"no field"}') as Record<string, string>,
    },
    // A document with a toJSON of its own.
    { doc: { id: 6, toJSON: () => ({ id: 6, title: 'from toJSON' }) }, text: { title: 'from toJSON' } },
    // Integer-like keys, which objects order first.
    { doc: { id: 7, b: 'bee', 2: 'two', title: 'Seven' }, text: { title: 'Seven', b: 'bee' } },
  ];
  const writes: DocWrite[] = docs.map(({ doc, text }) => ({
    collection: 'posts',
    id: doc.id as number,
    doc: doc as DocWrite['doc'] & object,
    index: { text },
  }));
  await rm.commit({ writes, checkpoint: { name: 'p', position: 1, version: 1 } });
  for (const { doc } of docs) {
    const got = await rm.get('posts', doc.id as number);
    assert.equal(got, JSON.parse(JSON.stringify(doc)), JSON.stringify(doc));
    assert.equal(Object.keys(got!), Object.keys(JSON.parse(JSON.stringify(doc)) as object), 'fields keep their order');
  }
  const plan = (term: string, fields: string[]): QueryPlan => ({
    filters: [{ kind: 'text', fields, includes: [term], excludes: [] }],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  const ids = async (term: string, fields: string[]) => idsOf(await rm.query('posts', plan(term, fields)));
  assert.equal(await ids('ascii', ['title']), [1]);
  assert.equal(await ids('STRASSE', ['title']), []);
  assert.equal(await ids('straße', ['title']), [2]);
  assert.equal(await ids('CAFÉ', ['title']), [2]);
  assert.equal(await ids('\ud83d', ['title']), [3]);
  assert.equal(await ids('half', ['title']), [3]);
  assert.equal(await ids('proto', ['__proto__']), [5]);
  assert.equal(await ids('field', ['missing']), [5]);
  assert.equal(await ids('toj', ['title']), [6]);
  assert.equal(await ids('bee', ['b', 'title']), [7]);
});

stored('a committed document is left as it was, however its stood-in fields are held', async () => {
  const rm = createMemoryReadModel({ parsedDocsKept: 0 });
  const text = { title: 'Title text', content: 'body text' };
  const plain = { id: 1, title: 'Title text', content: 'body text', tail: 'last' };
  const frozen = Object.freeze({ id: 2, title: 'Title text', content: 'body text', tail: 'last' });
  const sealed = Object.seal({ id: 3, title: 'Title text', content: 'body text', tail: 'last' });
  // A getter, and a setter that would record what is assigned.
  const assigned: unknown[] = [];
  const accessor = {
    id: 4,
    get title() {
      return 'Title text';
    },
    content: 'body text',
    tail: 'last',
  };
  const withSetter = {
    id: 5,
    title: 'Title text',
    get content() {
      return 'body text';
    },
    set content(value: unknown) {
      assigned.push(value);
    },
    tail: 'last',
  };
  const proxied = new Proxy(
    { id: 6, title: 'Title text', content: 'body text', tail: 'last' },
    {
      set: (target, key, value) => {
        assigned.push(value);
        return Reflect.set(target, key, value);
      },
    },
  );
  const docs: Record<string, unknown>[] = [plain, frozen, sealed, accessor, withSetter, proxied];
  const before = docs.map((doc) => ({ json: JSON.stringify(doc), keys: Object.keys(doc), values: Object.values(doc) }));
  await rm.commit({
    writes: docs.map((doc) => ({
      collection: 'posts',
      id: doc.id as number,
      doc: doc as DocWrite['doc'] & object,
      index: { text },
    })),
    checkpoint: { name: 'p', position: 1, version: 1 },
  });
  docs.forEach((doc, i) => {
    assert.is(JSON.stringify(doc), before[i]!.json, `document ${i + 1} unchanged`);
    assert.equal(Object.keys(doc), before[i]!.keys);
    assert.equal(Object.values(doc), before[i]!.values);
  });
  assert.equal(assigned, [], 'no setter or proxy trap ran');
  assert.ok(Object.isFrozen(frozen) && Object.isSealed(sealed));
  for (const doc of docs) {
    const got = await rm.get('posts', doc.id as number);
    assert.equal(got, JSON.parse(JSON.stringify(doc)));
    assert.equal(Object.keys(got!), ['id', 'title', 'content', 'tail'], 'fields keep their order');
  }
  // A document that cannot be serialised is refused, and its fields are put back all the same.
  const circular: Record<string, unknown> = { id: 7, title: 'Title text', content: 'body text' };
  circular.self = circular;
  const refused = await rm
    .commit({
      writes: [{ collection: 'posts', id: 7, doc: circular as DocWrite['doc'] & object, index: { text } }],
      checkpoint: { name: 'p', position: 2, version: 1 },
    })
    .then(
      () => null,
      (error: unknown) => error,
    );
  assert.match(String(refused), /cannot be serialised/);
  assert.is(circular.title, 'Title text');
  assert.is(circular.content, 'body text');
  assert.is(await rm.get('posts', 7), null);
});

stored('rewrites and deletes of large documents (compacted arenas) keep every document and search right', async () => {
  const rm = createMemoryReadModel({ parsedDocsKept: 3 });
  const rows = new Map<number, RefRow>();
  let seed = 4242;
  const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const words = ['alpha', 'Beta', 'gamma', 'DELTA', 'epsilon', 'zeta', 'été', 'Ωmega', '日本'];
  const body = () => Array.from({ length: 200 + rand(800) }, () => words[rand(words.length)]).join(' ');
  let position = 0;
  for (let round = 0; round < 12; round++) {
    const writes: DocWrite[] = [];
    for (let n = 0; n < 150; n++) {
      const id = rand(300);
      if (rand(6) === 0) {
        writes.push({ collection: 'posts', id, doc: null });
        rows.delete(id);
        continue;
      }
      const content = body();
      const doc = { id, title: words[rand(words.length)]!, content, round };
      const index = {
        sort: { round, n: rand(50) },
        sets: { status: rand(3) === 0 ? 'draft' : 'publish' },
        text: { title: doc.title, content },
      };
      writes.push({ collection: 'posts', id, doc, index });
      rows.set(id, { doc, index });
    }
    await rm.commit({ writes, checkpoint: { name: 'p', position: ++position, version: 1 } });
  }
  for (const [id, row] of rows) assert.equal(await rm.get('posts', id), row.doc);
  for (const term of ['alpha', 'beta', 'delta zeta', 'été', 'ωmega', '日本', 'a b', 'gamma epsilon']) {
    const plans: QueryPlan[] = [
      {
        filters: [{ kind: 'text', fields: ['title', 'content'], includes: term.split(' '), excludes: [] }],
        order: { kind: 'field', field: 'n', direction: 'desc' },
        offset: 0,
        limit: null,
      },
      {
        filters: [{ kind: 'text', fields: ['title'], includes: [], excludes: [term] }],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: null,
      },
      {
        filters: [{ kind: 'any', field: 'status', values: ['publish'] }],
        order: {
          kind: 'relevance',
          phrase: term,
          terms: term.split(' '),
          columns: { title: 'title', excerpt: 'excerpt', content: 'content' },
          tieBreak: { field: 'round', direction: 'desc' },
        },
        offset: 0,
        limit: null,
      },
    ];
    for (const plan of plans) {
      const expected = referenceQuery([...rows.values()], plan);
      const got = await rm.query('posts', plan);
      assert.equal(idsOf(got), idsOf(expected), JSON.stringify(plan));
      assert.is(got.total, expected.total);
    }
  }
});

stored(
  'index entries of different shapes one after another are each laid out as declared, also after a refused one',
  async () => {
    const rm = createMemoryReadModel();
    const long = {
      sort: { a: 1, b: 'x', c: 3 },
      sets: { s: [1, 2, 2, 3], t: 'one', u: [1] },
      text: { t1: 'Alpha', t2: 'beta' },
      partitions: ['s', 't', 's'],
    };
    const short = { sort: { a: 2 }, sets: { s: 4 }, text: { t1: 'Gamma' } };
    const write = (id: number, index: unknown): DocWrite => ({
      collection: 'c',
      id,
      doc: { id, t1: id === 1 ? 'Alpha' : 'Gamma' },
      index: index as DocWrite['index'],
    });
    await rm.commit({
      writes: [write(1, long), write(2, short), write(3, undefined), write(4, { sets: { s: [5, 5], v: [5] } })],
      checkpoint: { name: 'p', position: 1, version: 1 },
    });
    // A refused entry stops after reading part of itself; the next commit's entries owe it nothing.
    const refused = await rm
      .commit({
        writes: [write(5, { sort: { a: 1, b: 2, c: 3, d: 4, e: 5 }, sets: { s: [1, 2, 3, 4, { no: 1 }] } })],
        checkpoint: { name: 'p', position: 2, version: 1 },
      })
      .then(
        () => null,
        (error: Error) => error,
      );
    assert.match(String(refused), /set field "s" holds a value that is not a finite number or a string/);
    await rm.commit({ writes: [write(6, { sort: { a: 9 } })], checkpoint: { name: 'p', position: 3, version: 1 } });
    const rows = new Map([...rm.dump().rows].map((row) => [row.id, { layout: row.layout, values: [...row.values] }]));
    assert.equal(rows.get(1), {
      layout: {
        sort: ['a', 'b', 'c'],
        sets: ['s', 't', 'u'],
        counts: [3, 1, 1],
        text: ['t1', 't2'],
        elided: [true, false],
        partitions: ['s', 't'],
      },
      values: [1, 'x', 3, 1, 2, 3, 'one', 1],
    });
    assert.equal(rows.get(2), {
      layout: { sort: ['a'], sets: ['s'], counts: [1], text: ['t1'], elided: [true], partitions: [] },
      values: [2, 4],
    });
    assert.equal(rows.get(3), {
      layout: { sort: [], sets: [], counts: [], text: [], elided: [], partitions: [] },
      values: [],
    });
    assert.equal(rows.get(4), {
      layout: { sort: [], sets: ['s', 'v'], counts: [1, 1], text: [], elided: [], partitions: [] },
      values: [5, 5],
    });
    assert.is(rows.has(5), false);
    assert.equal(rows.get(6), {
      layout: { sort: ['a'], sets: [], counts: [], text: [], elided: [], partitions: [] },
      values: [9],
    });
    // The values a row keeps are its own, exactly sized.
    const values = [...rm.dump().rows].map((row) => row.values);
    assert.ok(values.every((v, i) => values.indexOf(v) === i || v.length === 0));
    const found = await rm.query('c', {
      filters: [{ kind: 'any', field: 's', values: [2] }],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: null,
    });
    assert.equal(
      found.items.map((doc) => doc.id),
      [1],
    );
  },
);

stored.run();

const snapshots = suite('memory read model: snapshot');

/** A log of `n` events, for the snapshot's position check. */
async function logOf(n: number): Promise<EventStore> {
  const store = createMemoryEventStore();
  for (let i = 0; i < n; i++)
    await store.appendToStream(
      `s-${i}`,
      [{ type: 'Happened', data: { i }, metadata: { userId: null, requestId: 'r', at: '2020-01-01T00:00:00Z' } }],
      { expectedRevision: 'no_stream' },
    );
  return store;
}

const projection = (name: string, collections: string[], version = 1) =>
  ({ name, version, collections, handles: [], locate: () => null, evolve: () => null }) as unknown as Projection;

snapshots('a snapshot loads back the same documents, identities apart, and answers every query the same', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-snapshot-'));
  try {
    const store = await logOf(3);
    const rm = createMemoryReadModel();
    const rows = new Map<number, RefRow>();
    let seed = 77;
    const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const writes: DocWrite[] = [];
    for (let id = 1; id <= 400; id++) {
      const title = ['Hello', 'Grüße', 'half \udc00', 'World'][rand(4)]!;
      const content = `body ${id} ${['fox', 'Dog', 'ÉCOLE', ''][rand(4)]}`;
      const doc = { id, title, content, tags: [rand(5)], nested: { deep: [id, { x: 'y' }] } };
      const index = {
        sort: { date: rand(100), title: title.toLowerCase() },
        sets: { status: rand(4) === 0 ? 'draft' : 'publish', tags: doc.tags },
        text: { title, content },
        partitions: ['status'],
      };
      writes.push({ collection: 'posts', id, doc, index });
      rows.set(id, { doc, index });
    }
    writes.push({ collection: 'other', id: 'a', doc: { id: 'a', n: 1 } });
    await rm.commit({ writes, checkpoint: { name: 'posts-projection', position: 2, version: 1 } });
    await rm.commit({
      writes: [{ collection: 'left', id: 1, doc: { id: 1 } }],
      checkpoint: { name: 'changed', position: 3, version: 1 },
    });
    const file = path.join(dir, 'read-model.snapshot');
    const projections = [projection('posts-projection', ['posts', 'other']), projection('changed', ['left'])];
    assert.ok(await writeSnapshot(file, rm, store, projections));

    // A projection whose version changed is left out, to be rebuilt.
    const loaded = createMemoryReadModel();
    const outcome = await loadSnapshot(file, loaded, store, [projections[0]!, projection('changed', ['left'], 2)]);
    assert.equal(outcome, { loaded: true, position: 3, rows: 402, rebuilt: ['changed'] });
    assert.equal(await loaded.checkpoint('posts-projection'), { position: 2, version: 1 });
    assert.is(await loaded.checkpoint('changed'), null);
    assert.is(await loaded.get('left', 1), null);
    assert.equal(await loaded.get('other', 'a'), { id: 'a', n: 1 });
    for (const [id, row] of rows) assert.equal(await loaded.get('posts', id), row.doc);
    const plans: QueryPlan[] = [];
    for (const direction of ['asc', 'desc'] as const) {
      plans.push({
        filters: [{ kind: 'any', field: 'status', values: ['publish'] }],
        order: { kind: 'field', field: 'date', direction },
        offset: 20,
        limit: 10,
      });
      plans.push({
        filters: [{ kind: 'all', field: 'tags', values: [2] }],
        order: { kind: 'field', field: 'title', direction },
        offset: 0,
        limit: null,
      });
      plans.push({
        filters: [{ kind: 'text', fields: ['title', 'content'], includes: ['école'], excludes: ['dog'] }],
        order: { kind: 'field', field: 'id', direction },
        offset: 0,
        limit: null,
      });
      plans.push({
        filters: [{ kind: 'text', fields: ['title'], includes: ['\udc00'], excludes: [] }],
        order: { kind: 'field', field: 'id', direction },
        offset: 0,
        limit: null,
      });
      plans.push({
        filters: [],
        order: {
          kind: 'relevance',
          phrase: 'hello',
          terms: ['hello'],
          columns: { title: 'title', excerpt: 'excerpt', content: 'content' },
          tieBreak: { field: 'date', direction },
        },
        offset: 0,
        limit: 30,
      });
    }
    for (const plan of plans) {
      const expected = referenceQuery([...rows.values()], plan);
      assert.equal(idsOf(await loaded.query('posts', plan)), idsOf(expected), JSON.stringify(plan));
      assert.equal(idsOf(await rm.query('posts', plan)), idsOf(expected), JSON.stringify(plan));
    }
    // The loaded read model takes writes like any other.
    await loaded.commit({
      writes: [{ collection: 'posts', id: 1, doc: { id: 1, title: 'New' }, index: { text: { title: 'New' } } }],
      checkpoint: { name: 'posts-projection', position: 3, version: 1 },
    });
    assert.equal(await loaded.get('posts', 1), { id: 1, title: 'New' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

snapshots(
  'a snapshot of the first format, a cut or damaged one, or one of another log is refused, leaving the read model empty',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-snapshot-'));
    try {
      const store = await logOf(2);
      const rm = createMemoryReadModel();
      const writes: DocWrite[] = Array.from({ length: 300 }, (_, i) => ({
        collection: 'posts',
        id: i + 1,
        doc: { id: i + 1, text: 'x'.repeat(500) },
        index: { sort: { n: i }, text: { text: 'x'.repeat(500) } },
      }));
      await rm.commit({ writes, checkpoint: { name: 'p', position: 2, version: 1 } });
      const projections = [projection('p', ['posts'])];
      const file = path.join(dir, 'read-model.snapshot');
      assert.ok(await writeSnapshot(file, rm, store, projections));
      const whole = fs.readFileSync(file);

      const refused = async (bytes: Buffer | string, reason: RegExp, against = store) => {
        fs.writeFileSync(file, bytes);
        const fresh = createMemoryReadModel();
        const outcome = await loadSnapshot(file, fresh, against, projections);
        assert.is(outcome.loaded, false);
        assert.match((outcome as { reason: string }).reason, reason);
        assert.is(await fresh.get('posts', 1), null);
        assert.is(await fresh.checkpoint('p'), null);
      };
      const header = whole.subarray(0, whole.indexOf(10)).toString();
      const first = JSON.stringify({ ...JSON.parse(header), formatVersion: 1 });
      await refused(`${first}\n["posts",1,{"id":1}]\n{"end":1}\n`, /not a snapshot of this format/);
      await refused(whole.subarray(0, whole.length - 20), /truncated/);
      await refused(whole.subarray(0, Math.floor(whole.length / 2)), /truncated/);
      await refused(whole, /does not hold its event/, await logOf(3).then(async (other) => other));
      // A byte of a document changed: nothing else can tell, as documents are not parsed at load.
      const damaged = Buffer.from(whole);
      damaged[damaged.indexOf('xxxxxxxxxx', Math.floor(whole.length / 2))] = 0x79;
      await refused(damaged, /checksum does not match/);
      fs.writeFileSync(file, whole);
      assert.is((await loadSnapshot(file, createMemoryReadModel(), store, projections)).loaded, true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

snapshots(
  'the server stopped as soon as it says it serves closes cleanly and writes its snapshot, which the next start loads',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-snapshot-'));
    // As `npm start` and the bench run it: the entry point itself, not the CLI.
    const run = async (): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> => {
      const env = { ...process.env, DATA_DIR: dir, PORT: String(await freePort()), HOST: '127.0.0.1' };
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      let stopped = false;
      const heard = (d: Buffer) => {
        output += d.toString();
        // Stopped the moment the line arrives (a log line, on stderr).
        if (!stopped && output.includes('palimpsest serving')) stopped = child.kill('SIGTERM');
      };
      child.stderr!.on('data', heard);
      child.stdout!.on('data', heard);
      const bound = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
      clearTimeout(bound);
      return { code, signal, output };
    };
    try {
      const first = await run();
      assert.is(first.signal, null, first.output);
      assert.is(first.code, 0, first.output);
      assert.ok(fs.existsSync(path.join(dir, 'read-model.snapshot')), 'the snapshot is written');
      const second = await run();
      assert.is(second.code, 0, second.output);
      assert.match(second.output, /read model snapshot loaded/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

snapshots.run();
