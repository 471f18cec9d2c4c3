/** The memory read model's snapshot: loads to the same state the log replays to, and is refused when unsound. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import type { MemoryReadModel } from '../../src/readModel/memory/readModel';
import { loadSnapshot, writeSnapshot } from '../../src/readModel/memory/snapshot';
import { Projector } from '../../src/projection/runner';
import { defineProjection } from '../../src/projection/projection';
import type { EventStore, NewEvent } from '../../src/ports/eventStore';
import type { Doc, QueryPlan } from '../../src/ports/readModel';

const test = suite('read model snapshot');

const metadata = { userId: 1, requestId: 'r', at: '2024-01-01T00:00:00.000Z' };
const counted = (id: number, tag: string): NewEvent => ({ type: 'Counted', data: { id, tag }, metadata });

interface Counter extends Doc {
  id: number;
  count: number;
  tags: string[];
}

const counters = (version = 1) =>
  defineProjection<Counter>({
    name: 'counter',
    version,
    collections: ['counter'],
    handles: ['Counted'],
    locate: (event) => ({ collection: 'counter', id: (event.data as { id: number }).id }),
    evolve: (doc, event) => {
      const { id, tag } = event.data as { id: number; tag: string };
      return { id, count: (doc?.count ?? 0) + 1, tags: [...(doc?.tags ?? []), tag] };
    },
    index: (doc) => ({ sort: { count: doc.count }, sets: { tags: doc.tags }, text: { tags: doc.tags.join(' ') } }),
  });

const tagged = () =>
  defineProjection<Doc>({
    name: 'tags',
    version: 1,
    collections: ['tag'],
    handles: ['Counted'],
    locate: (event) => ({ collection: 'tag', id: (event.data as { tag: string }).tag }),
    evolve: (doc, event) => ({ id: (event.data as { tag: string }).tag, uses: ((doc?.uses as number) ?? 0) + 1 }),
  });

async function seeded(): Promise<EventStore> {
  const store = createMemoryEventStore();
  for (let i = 0; i < 200; i++)
    await store.appendToStream(`s-${i % 7}`, [counted(i % 37, `t${i % 5}`)], { expectedRevision: 'any' });
  return store;
}

async function replayed(store: EventStore, projections = [counters(), tagged()]): Promise<MemoryReadModel> {
  const readModel = createMemoryReadModel();
  const projector = new Projector({ store, readModel, projections, log: () => {} });
  await projector.start();
  await projector.stop();
  return readModel;
}

const plans: QueryPlan[] = [
  { filters: [], order: { kind: 'field', field: 'count', direction: 'desc' }, offset: 0, limit: null },
  {
    filters: [{ kind: 'any', field: 'tags', values: ['t2'] }],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  },
  {
    filters: [{ kind: 'text', fields: ['tags'], includes: ['T3'], excludes: [] }],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  },
];

async function state(readModel: MemoryReadModel) {
  return {
    counters: await Promise.all(plans.map((plan) => readModel.query('counter', plan))),
    tags: await readModel.query('tag', plans[0]!),
    checkpoints: [await readModel.checkpoint('counter'), await readModel.checkpoint('tags')],
  };
}

const dirs: string[] = [];
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-snapshot-'));
  dirs.push(dir);
  return path.join(dir, 'read-model.snapshot');
};
test.after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

test('a loaded snapshot equals the replayed read model: documents, indexes and checkpoints', async () => {
  const store = await seeded();
  const live = await replayed(store);
  const file = tmp();
  assert.ok(await writeSnapshot(file, live, store, [counters(), tagged()]));
  const loaded = createMemoryReadModel();
  const outcome = await loadSnapshot(file, loaded, store, [counters(), tagged()]);
  assert.equal(outcome, { loaded: true, position: 200, rows: 42, rebuilt: [] });
  assert.equal(await state(loaded), await state(live));
  assert.ok(Object.isFrozen(await loaded.get('counter', 1)));

  // The projector carries on from the loaded checkpoints: new events only.
  await store.appendToStream('s-x', [counted(1, 'new')], { expectedRevision: 'any' });
  const projector = new Projector({ store, readModel: loaded, projections: [counters(), tagged()], log: () => {} });
  await projector.start();
  await projector.stop();
  assert.equal(await state(loaded), await state(await replayed(store)));
});

test('a projection whose version changed is left out, so the projector rebuilds it', async () => {
  const store = await seeded();
  const file = tmp();
  await writeSnapshot(file, await replayed(store), store, [counters(1), tagged()]);
  const loaded = createMemoryReadModel();
  const outcome = await loadSnapshot(file, loaded, store, [counters(2), tagged()]);
  assert.equal(outcome, { loaded: true, position: 200, rows: 42, rebuilt: ['counter'] });
  assert.is(await loaded.checkpoint('counter'), null);
  assert.is(await loaded.get('counter', 1), null);
  assert.equal(await loaded.checkpoint('tags'), { position: 200, version: 1 });
});

test('a truncated, corrupt or foreign snapshot is ignored and leaves the read model empty', async () => {
  const store = await seeded();
  const file = tmp();
  await writeSnapshot(file, await replayed(store), store, [counters(), tagged()]);
  const whole = fs.readFileSync(file, 'utf8');
  const refused = async (text: string, onto = store) => {
    fs.writeFileSync(file, text);
    const readModel = createMemoryReadModel();
    const outcome = await loadSnapshot(file, readModel, onto, [counters(), tagged()]);
    assert.is(outcome.loaded, false, text.slice(0, 80));
    assert.is(await readModel.checkpoint('counter'), null);
    assert.is(await readModel.get('counter', 1), null);
  };
  await refused(whole.slice(0, Math.floor(whole.length / 2)));
  await refused(whole.split('\n').slice(0, -2).join('\n'));
  await refused(whole.replace('"count":', '"count":,'));
  await refused(`${whole}["counter",99,{"id":99}]\n`);
  await refused('');
  // Another log of the same length: the event at the snapshot's position has another id.
  await refused(whole, await seeded());
  // A shorter log.
  const shorter = createMemoryEventStore();
  await shorter.appendToStream('s', [counted(1, 't')], { expectedRevision: 'any' });
  await refused(whole, shorter);
  assert.equal(
    await loadSnapshot(path.join(path.dirname(file), 'absent'), createMemoryReadModel(), store, [counters()]),
    { loaded: false, reason: 'no snapshot' },
  );
});

test('nothing is written before any checkpoint', async () => {
  const store = createMemoryEventStore();
  const file = tmp();
  assert.is(await writeSnapshot(file, createMemoryReadModel(), store, [counters()]), false);
  assert.is(fs.existsSync(file), false);
});

test.run();
