import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryReadModel } from '../../src/adapters/memory/readModel';
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
