import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryReadModel, DocCopier } from '../../src/adapters/memory/readModel';
import type { DocWrite, QueryPlan } from '../../src/ports/readModel';
import { readModelContract } from '../contracts/readModel.contract';
import { idsOf, referenceQuery, type RefRow } from '../support/referenceQuery';

readModelContract('memory', async () => ({ readModel: createMemoryReadModel(), cleanup: async () => {} }));

// The contract's data sets fit in one index chunk; this one makes the order indexes split, shrink and walk
// across many chunks.
const big = suite('memory read model: many documents');

big('order indexes stay correct across chunk splits and deletes', async () => {
  const rm = createMemoryReadModel();
  const rows = new Map<number, RefRow>();
  let seed = 12345;
  const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
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
    for (const [offset, limit] of [[0, 10], [1500, 20], [2900, 500], [0, null]] as const) {
      plans.push({ filters: [{ kind: 'any', field: 'status', values: ['publish'] }], order: { kind: 'field', field: 'date', direction }, offset, limit });
      plans.push({ filters: [], order: { kind: 'field', field: 'date', direction }, offset, limit });
      plans.push({ filters: [{ kind: 'range', field: 'date', gte: 100, lt: 600 }], order: { kind: 'field', field: 'date', direction }, offset, limit });
      plans.push({ filters: [{ kind: 'range', field: 'id', gt: 1000 }], order: { kind: 'field', field: 'id', direction }, offset, limit });
    }
  }
  for (const plan of plans) {
    const expected = referenceQuery([...rows.values()], plan);
    const got = await rm.query('posts', plan);
    assert.equal(idsOf(got), idsOf(expected), JSON.stringify(plan));
    assert.is(got.total, expected.total, JSON.stringify(plan));
  }
});

big.run();

const copies = suite('memory read model: document copies');

copies('a copy equals the JSON round trip, is frozen throughout, and shares only the stored version\'s subtrees', () => {
  const copier = new DocCopier();
  class Point {
    constructor(readonly x: number) {}
  }
  const tricky = {
    id: 1,
    text: 'é 🦊',
    gone: undefined,
    fn: () => 1,
    list: [1, undefined, () => 2, NaN, -0, Infinity, null, [true, false]],
    when: new Date(0),
    point: new Point(3),
    nested: { withJson: { toJSON: () => 'shown' }, empty: {} },
    bare: Object.assign(Object.create(null) as object, { a: 1 }),
  };
  const copy = copier.copy(tricky) as Record<string, unknown>;
  assert.equal(copy, JSON.parse(JSON.stringify(tricky)));
  assert.is(Object.is((copy.list as unknown[])[4], 0), true);
  const frozen = (value: unknown): boolean =>
    typeof value !== 'object' || value === null || (Object.isFrozen(value) && Object.values(value).every(frozen));
  assert.ok(frozen(copy));

  const caller = { inner: [1, 2] };
  const first = copier.copy({ id: 2, caller, kept: { deep: [1] } }) as Record<string, unknown>;
  assert.is.not(first.caller, caller, 'a caller\'s object is copied');
  caller.inner.push(3);
  assert.equal(first.caller, { inner: [1, 2] });
  const next = copier.copy({ ...first, title: 'changed' }, first) as Record<string, unknown>;
  assert.is(next.kept, first.kept, 'an unchanged stored subtree is shared');
  const elsewhere = copier.copy({ id: 2, moved: first.kept }, first) as Record<string, unknown>;
  assert.is.not(elsewhere.moved, first.kept, 'a stored subtree at another place is copied');
  assert.equal(elsewhere.moved, { deep: [1] });
  assert.equal(next, { id: 2, caller: { inner: [1, 2] }, kept: { deep: [1] }, title: 'changed' });
  assert.ok(Object.isFrozen(next));

  const cyclic: Record<string, unknown> = { id: 3 };
  cyclic.self = cyclic;
  assert.throws(() => copier.copy(cyclic), /circular/i);
  assert.throws(() => copier.copy({ id: 4, big: 1n }), TypeError);
});

copies.run();

// ASCII text columns are kept as they are and matched case-insensitively, others lowercased (textMatcher); this
// compares both with `lowercased column includes term` over characters whose case mappings trip naive folding.
const text = suite('memory read model: text columns with and without a lowercased copy');

text('text filters and relevance match the lowercased columns, whatever the characters', async () => {
  const rm = createMemoryReadModel();
  const alphabet = ['a', 'B', 'k', 'K', 'i', 'I', 's', 'S', ' ', '.', '-', '\u212a', '\u0131', '\u0130', '\u017f', '\u00df', '\u00c9', '\u00e9', '\u03a3', '\u03c3', '\u03c2'];
  let seed = 99;
  const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
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
      { filters: [{ kind: 'text', fields: ['title', 'content'], includes: [term], excludes: [] }], order: { kind: 'field', field: 'id', direction: 'asc' }, offset: 0, limit: null },
      { filters: [{ kind: 'text', fields: ['excerpt'], includes: [], excludes: [term] }], order: { kind: 'field', field: 'id', direction: 'asc' }, offset: 0, limit: null },
      { filters: [], order: { kind: 'relevance', phrase: `${term} ${other}`, terms: [term, other], columns, then: { field: 'n', direction: 'desc' } }, offset: 0, limit: null },
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
