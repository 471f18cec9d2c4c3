/** The projector: checkpoints move with documents, versions trigger rebuilds, and waitFor is bounded. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { Projector } from '../../src/projection/runner';
import { defineProjection } from '../../src/projection/projection';
import type { EventStore, NewEvent } from '../../src/ports/eventStore';
import type { Doc } from '../../src/ports/readModel';

const test = suite('projector');

const metadata = { userId: 1, requestId: 'r', at: '2024-01-01T00:00:00.000Z' };
const counted = (id: number): NewEvent => ({ type: 'Counted', data: { id }, metadata });

interface Counter extends Doc {
  id: number;
  count: number;
}

function counterProjection(version: number, step = 1) {
  return defineProjection<Counter>({
    name: 'counter',
    version,
    collections: ['counter'],
    handles: ['Counted'],
    locate: (event) => ({ collection: 'counter', id: (event.data as { id: number }).id }),
    evolve: (doc, event) => ({ id: (event.data as { id: number }).id, count: (doc?.count ?? 0) + step }),
    index: (doc) => ({ sort: { count: doc.count } }),
  });
}

async function append(store: EventStore, stream: string, events: NewEvent[]): Promise<number> {
  return (await store.appendToStream(stream, events, { expectedRevision: 'any' })).position;
}

test('applies events, including ones appended after start, and commits the checkpoint with them', async () => {
  const store = createMemoryEventStore();
  const readModel = createMemoryReadModel();
  await append(store, 'a', [counted(1), counted(1), counted(2)]);
  const projector = new Projector({ store, readModel, projections: [counterProjection(1)] });
  await projector.start();
  assert.equal(await readModel.get('counter', 1), { id: 1, count: 2 });
  const position = await append(store, 'a', [counted(2), { type: 'Ignored', data: {}, metadata }]);
  assert.ok(await projector.waitFor(position, 1000));
  assert.equal(await readModel.get('counter', 2), { id: 2, count: 2 });
  assert.equal(await readModel.checkpoint('counter'), { position, version: 1 });
  await projector.stop();
});

test('resumes from its checkpoint without applying an event twice', async () => {
  const store = createMemoryEventStore();
  const readModel = createMemoryReadModel();
  await append(store, 'a', [counted(1), counted(1)]);
  const first = new Projector({ store, readModel, projections: [counterProjection(1)] });
  await first.start();
  await first.stop();
  await append(store, 'a', [counted(1)]);
  const second = new Projector({ store, readModel, projections: [counterProjection(1)] });
  await second.start();
  assert.equal(await readModel.get('counter', 1), { id: 1, count: 3 });
  await second.stop();
});

test('a changed version rebuilds the read model from the whole log', async () => {
  const store = createMemoryEventStore();
  const readModel = createMemoryReadModel();
  await append(store, 'a', [counted(1), counted(1)]);
  const v1 = new Projector({ store, readModel, projections: [counterProjection(1)] });
  await v1.start();
  await v1.stop();
  const v2 = new Projector({ store, readModel, projections: [counterProjection(2, 10)] });
  await v2.start();
  assert.equal(await readModel.get('counter', 1), { id: 1, count: 20 });
  assert.is((await readModel.checkpoint('counter'))!.version, 2);
  await v2.stop();
});

test('rebuild on demand reports progress and ends equal to the live read model', async () => {
  const store = createMemoryEventStore();
  const readModel = createMemoryReadModel();
  for (let i = 0; i < 50; i++) await append(store, `s${i}`, [counted(i % 5)]);
  const projector = new Projector({ store, readModel, projections: [counterProjection(1)], maxBatchSize: 7 });
  await projector.start();
  const before = await readModel.query('counter', {
    filters: [],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  const progress: number[] = [];
  const result = await projector.rebuild('counter', (p) => progress.push(p.applied));
  const after = await readModel.query('counter', {
    filters: [],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  assert.equal(after, before);
  assert.is(result.applied, 50);
  assert.ok(progress.length >= 7, 'progress is reported per batch');
  await projector.stop();
});

test('waitFor resolves false after its bound when the position is never reached', async () => {
  const store = createMemoryEventStore();
  const projector = new Projector({ store, readModel: createMemoryReadModel(), projections: [counterProjection(1)] });
  await projector.start();
  const started = Date.now();
  assert.is(await projector.waitFor(99, 50), false);
  assert.ok(Date.now() - started >= 45);
  await projector.stop();
});

test('a projection that throws is reported as failed instead of silently skipping events', async () => {
  const store = createMemoryEventStore();
  const broken = {
    ...counterProjection(1),
    evolve: () => {
      throw new Error('boom');
    },
  };
  const projector = new Projector({ store, readModel: createMemoryReadModel(), projections: [broken], log: () => {} });
  await projector.start();
  const position = await append(store, 'a', [counted(1)]);
  assert.is(await projector.waitFor(position, 200), false);
  assert.is(projector.failures.length, 1);
  assert.is(projector.failures[0]!.projection, 'counter');
  await projector.stop();
});

test('a batch folds documents 1 and "1" apart and writes each once, in the order first touched', async () => {
  const store = createMemoryEventStore();
  const tally = (id: unknown): NewEvent => ({ type: 'Tallied', data: { id }, metadata });
  // One batch: the ids as a fold must tell them apart (a key per document, as the read model does).
  await append(store, 'a', [tally('1'), tally(1), tally(1), tally(0), tally('1'), tally(0), tally(2)]);
  const order: unknown[] = [];
  const observed = createMemoryReadModel();
  const recording = Object.assign(Object.create(observed) as typeof observed, {
    async commit(commit: Parameters<typeof observed.commit>[0]) {
      for (const write of commit.writes) order.push(write.id);
      return observed.commit(commit);
    },
  });
  const projection = defineProjection<Doc>({
    name: 'tally',
    version: 1,
    collections: ['tally'],
    handles: ['Tallied'],
    locate: (event) => ({ collection: 'tally', id: (event.data as { id: number | string }).id }),
    evolve: (doc, event) => ({
      id: (event.data as { id: number | string }).id,
      n: ((doc?.n as number | undefined) ?? 0) + 1,
    }),
  });
  const projector = new Projector({ store, readModel: recording, projections: [projection], maxBatchSize: 100 });
  await projector.start();
  assert.equal(await observed.get('tally', '1'), { id: '1', n: 2 });
  assert.equal(await observed.get('tally', 1), { id: 1, n: 2 });
  assert.equal(await observed.get('tally', 0), { id: 0, n: 2 });
  assert.equal(await observed.get('tally', 2), { id: 2, n: 1 });
  // Each written once per batch, in the order first touched.
  assert.equal(order, ['1', 1, 0, 2]);
  await projector.stop();
});

test('every projection gets the event data frozen throughout; a fold that mutates it fails instead of changing what others read', async () => {
  const store = createMemoryEventStore();
  const noted: NewEvent = {
    type: 'Noted',
    data: { id: 1, post: { title: 't', tags: [1, 2], meta: { footnotes: '' } } },
    metadata,
  };
  type Frozen = Doc & { frozen: boolean[] };
  const reader = defineProjection<Frozen>({
    name: 'reader',
    version: 1,
    collections: ['reader'],
    handles: ['Noted'],
    locate: () => ({ collection: 'reader', id: 1 }),
    evolve: (_doc, event) => {
      const data = event.data as { post: { title: string; tags: number[]; meta: object } };
      return {
        id: 1,
        title: data.post.title,
        frozen: [data, data.post, data.post.tags, data.post.meta].map((part) => Object.isFrozen(part)),
      };
    },
  });
  const mutating = defineProjection<Doc>({
    name: 'mutating',
    version: 1,
    collections: ['mutating'],
    handles: ['Noted'],
    locate: () => ({ collection: 'mutating', id: 1 }),
    evolve: (_doc, event) => {
      (event.data as { post: { title: string } }).post.title = 'changed';
      return { id: 1 };
    },
  });
  const readModel = createMemoryReadModel();
  // The mutating one first: the reader still sees the data as the log has it.
  const projector = new Projector({ store, readModel, projections: [mutating, reader], log: () => {} });
  await projector.start();
  const position = await append(store, 'a', [noted]);
  assert.is(await projector.waitFor(position, 200), false);
  assert.equal(await readModel.get('reader', 1), { id: 1, title: 't', frozen: [true, true, true, true] });
  assert.is(await readModel.get('mutating', 1), null);
  assert.is(projector.failures.length, 1);
  assert.is(projector.failures[0]!.projection, 'mutating');
  assert.match(String(projector.failures[0]!.error), /read.only|frozen|Cannot assign/);
  await projector.stop();
});

test.run();
