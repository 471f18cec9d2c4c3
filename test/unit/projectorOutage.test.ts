/**
 * The projector through an outage of its read model (DependencyUnavailableError, as the Redis adapter fails when
 * Redis does not answer): the projections are not stopped, each resumes from its checkpoint once the read model
 * answers, and no event is applied twice, also when a commit landed but its answer was lost.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { Projector } from '../../src/projection/runner';
import { defineProjection } from '../../src/projection/projection';
import type { NewEvent } from '../../src/ports/eventStore';
import type { Doc, ReadModel } from '../../src/ports/readModel';
import { DependencyUnavailableError } from '../../src/ports/unavailable';

const test = suite('projector through a read-model outage');

const metadata = { userId: 1, requestId: 'r', at: '2024-01-01T00:00:00.000Z' };
const counted = (id: number): NewEvent => ({ type: 'Counted', data: { id }, metadata });

/** Two projections counting the same events into collections of their own. */
const counters = ['first', 'second'].map((name) =>
  defineProjection<Doc & { count: number }>({
    name,
    version: 1,
    collections: [name],
    handles: ['Counted'],
    locate: (event) => ({ collection: name, id: (event.data as { id: number }).id }),
    evolve: (doc, event) => ({ id: (event.data as { id: number }).id, count: (doc?.count ?? 0) + 1 }),
  }),
);

interface Outage {
  /** Every call fails. */
  down: boolean;
  /** The next commits land, then fail as if their answer was lost. */
  loseAnswers: number;
  failedCalls: number;
}

function unreliable(readModel: ReadModel, outage: Outage): ReadModel {
  const failed = () => {
    outage.failedCalls++;
    return new DependencyUnavailableError('read model', 'Redis did not answer: Command timed out');
  };
  return {
    ...readModel,
    // In one commit per projection, as the adapter is asked when it does not take several at once.
    commitsAlongside: false,
    async commit(commit) {
      if (outage.down) throw failed();
      await readModel.commit(commit);
      if (outage.loseAnswers > 0) {
        outage.loseAnswers--;
        throw failed();
      }
    },
    async checkpoint(name) {
      if (outage.down) throw failed();
      return readModel.checkpoint(name);
    },
  };
}

const until = async (what: string, condition: () => boolean) => {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(condition(), what);
};

test('an outage stops no projection; each resumes from its checkpoint once the read model answers, logged once', async () => {
  const store = createMemoryEventStore();
  const memory = createMemoryReadModel();
  const outage: Outage = { down: false, loseAnswers: 0, failedCalls: 0 };
  const lines: string[] = [];
  const projector = new Projector({
    store,
    readModel: unreliable(memory, outage),
    projections: counters,
    log: (line) => lines.push(line),
  });
  await projector.start();
  try {
    await store.appendToStream('a', [counted(1)], { expectedRevision: 'any' });
    outage.down = true;
    let position = 0;
    for (let i = 0; i < 3; i++)
      position = (await store.appendToStream('a', [counted(1)], { expectedRevision: 'any' })).position;
    // Commits and the resumptions' checkpoint reads fail for a while.
    await until('several calls failed', () => outage.failedCalls >= 4);
    assert.equal(projector.failures, [], 'no projection stopped');
    assert.is(await projector.waitFor(position, 1), false, 'nothing applied meanwhile');
    outage.down = false;
    assert.ok(await projector.waitFor(position, 10_000), 'caught up once the read model answers');
    for (const name of ['first', 'second'])
      assert.equal(await memory.get(name, 1), { id: 1, count: 4 }, `${name}: every event once`);
    assert.equal(
      lines.filter((line) => /resuming from its checkpoint once it answers/.test(line)).length,
      2,
      lines.join('\n'),
    );
    assert.equal(projector.failures, []);
  } finally {
    await projector.stop();
  }
});

test('a commit that landed without an answer is not applied again', async () => {
  const store = createMemoryEventStore();
  const memory = createMemoryReadModel();
  const outage: Outage = { down: false, loseAnswers: 0, failedCalls: 0 };
  const projector = new Projector({
    store,
    readModel: unreliable(memory, outage),
    projections: counters,
    log: () => undefined,
  });
  await projector.start();
  try {
    outage.loseAnswers = 2;
    const { position } = await store.appendToStream('a', [counted(7), counted(7)], { expectedRevision: 'any' });
    assert.ok(await projector.waitFor(position, 10_000));
    for (const name of ['first', 'second']) assert.equal(await memory.get(name, 7), { id: 7, count: 2 }, name);
    assert.is(outage.loseAnswers, 0, 'both answers were lost');
  } finally {
    await projector.stop();
  }
});

test('a projector stopped during an outage does not resume', async () => {
  const store = createMemoryEventStore();
  const memory = createMemoryReadModel();
  const outage: Outage = { down: true, loseAnswers: 0, failedCalls: 0 };
  const projector = new Projector({
    store,
    readModel: unreliable(memory, outage),
    projections: counters.slice(0, 1),
    log: () => undefined,
  });
  outage.down = false;
  await projector.start();
  outage.down = true;
  await store.appendToStream('a', [counted(1)], { expectedRevision: 'any' });
  await until('a commit failed', () => outage.failedCalls >= 1);
  await projector.stop();
  const failedWhenStopped = outage.failedCalls;
  outage.down = false;
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.is(outage.failedCalls, failedWhenStopped, 'no call after the stop');
  assert.is(await memory.checkpoint('first'), null, 'nothing committed after the stop');
});

test.run();
