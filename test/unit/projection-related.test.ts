/** Projections that change several documents per event (`related`): same result however the log is batched. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { Projector } from '../../src/projection/runner';
import { defineProjection } from '../../src/projection/projection';
import type { EventStore, NewEvent } from '../../src/ports/eventStore';
import type { Doc, ReadModel } from '../../src/ports/readModel';

const test = suite('projections with related documents');

const metadata = { userId: 1, requestId: 'r', at: '2024-01-01T00:00:00.000Z' };
/** A member joins a team (or moves to another one); each team counts its members. */
const joined = (member: string, team: string): NewEvent => ({ type: 'Joined', data: { member, team }, metadata });
const left = (member: string): NewEvent => ({ type: 'Left', data: { member }, metadata });

interface Member extends Doc {
  id: string;
  team: string;
}
interface Team extends Doc {
  id: string;
  members: number;
}

const memberAfter = (member: Member | null, event: { type: string; data: unknown }): Member | null => {
  const data = event.data as { member: string; team?: string };
  return event.type === 'Joined' ? { id: data.member, team: data.team! } : event.type === 'Left' ? null : member;
};

const teams = defineProjection<Member | Team>({
  name: 'teams',
  version: 1,
  collections: ['members', 'teams'],
  handles: ['Joined', 'Left'],
  locate: (event) => ({ collection: 'members', id: (event.data as { member: string }).member }),
  related(event, read) {
    const before = read('members', (event.data as { member: string }).member) as Member | null;
    const after = memberAfter(before, event);
    return [before, after].filter((m): m is Member => m !== null).map((m) => ({ collection: 'teams', id: m.team }));
  },
  evolve(doc, event, context) {
    if (!context || context.collection === 'members') return memberAfter(doc as Member | null, event);
    const before = context.read('members', (event.data as { member: string }).member) as Member | null;
    const after = memberAfter(before, event);
    const members =
      ((doc as Team | null)?.members ?? 0) -
      (before?.team === context.id ? 1 : 0) +
      (after?.team === context.id ? 1 : 0);
    return members > 0 ? { id: String(context.id), members } : null;
  },
  index: (doc, collection) => (collection === 'teams' ? { sort: { members: (doc as Team).members } } : {}),
});

const all = (readModel: ReadModel, collection: string) =>
  readModel
    .query(collection, { filters: [], order: { kind: 'field', field: 'id', direction: 'asc' }, offset: 0, limit: null })
    .then((r) => r.items);

async function fold(store: EventStore, maxBatchSize: number) {
  const readModel = createMemoryReadModel();
  const projector = new Projector({ store, readModel, projections: [teams], maxBatchSize });
  await projector.start();
  await projector.stop();
  return { members: await all(readModel, 'members'), teams: await all(readModel, 'teams') };
}

test('moving between aggregates adjusts both, and an emptied aggregate goes away', async () => {
  const store = createMemoryEventStore();
  await store.appendToStream(
    'log',
    [joined('ann', 'red'), joined('bob', 'red'), joined('cy', 'blue'), joined('ann', 'blue'), left('bob')],
    { expectedRevision: 'any' },
  );
  const { members, teams: counts } = await fold(store, 1000);
  assert.equal(members, [
    { id: 'ann', team: 'blue' },
    { id: 'cy', team: 'blue' },
  ]);
  assert.equal(counts, [{ id: 'blue', members: 2 }]);
});

test('one event per batch and the whole log in one batch give the same documents', async () => {
  const store = createMemoryEventStore();
  const names = ['ann', 'bob', 'cy', 'dee'];
  const colours = ['red', 'blue', 'green'];
  for (let i = 0; i < 60; i++) {
    const event = i % 7 === 6 ? left(names[i % 4]!) : joined(names[i % 4]!, colours[(i * 5) % 3]!);
    await store.appendToStream('log', [event], { expectedRevision: 'any' });
  }
  const oneByOne = await fold(store, 1);
  const together = await fold(store, 1000);
  const inThrees = await fold(store, 3);
  assert.equal(oneByOne, together);
  assert.equal(inThrees, together);
  const total = (together.teams as Team[]).reduce((sum, t) => sum + t.members, 0);
  assert.is(total, together.members.length, 'every member counted once');
});

test('the index of every related document is written with it', async () => {
  const store = createMemoryEventStore();
  const readModel = createMemoryReadModel();
  await store.appendToStream('log', [joined('ann', 'red'), joined('bob', 'red'), joined('cy', 'blue')], {
    expectedRevision: 'any',
  });
  const projector = new Projector({ store, readModel, projections: [teams] });
  await projector.start();
  const biggest = await readModel.query('teams', {
    filters: [],
    order: { kind: 'field', field: 'members', direction: 'desc' },
    offset: 0,
    limit: 1,
  });
  assert.equal(biggest.items, [{ id: 'red', members: 2 }]);
  await projector.stop();
});

test('reading a document the event does not change stops the projection instead of guessing', async () => {
  const store = createMemoryEventStore();
  const nosy = defineProjection<Member | Team>({
    ...teams,
    name: 'nosy',
    evolve: (doc, event, context) => {
      context?.read('teams', 'somewhere-else');
      return teams.evolve(doc, event, context);
    },
  });
  const projector = new Projector({ store, readModel: createMemoryReadModel(), projections: [nosy], log: () => {} });
  await projector.start();
  const { position } = await store.appendToStream('log', [joined('ann', 'red')], { expectedRevision: 'any' });
  assert.is(await projector.waitFor(position, 200), false);
  assert.match(String(projector.failures[0]?.error), /does not change/);
  await projector.stop();
});

test('numeric and string ids of the same text are different documents', async () => {
  const store = createMemoryEventStore();
  const readModel = createMemoryReadModel();
  const byKey = defineProjection({
    name: 'keys',
    version: 1,
    collections: ['keys'],
    handles: ['Keyed'],
    locate: (event) => ({ collection: 'keys', id: (event.data as { key: number | string }).key }),
    evolve: (doc, event) => ({
      id: (event.data as { key: number | string }).key,
      seen: ((doc?.seen as number) ?? 0) + 1,
    }),
  });
  await store.appendToStream(
    'k',
    [
      { type: 'Keyed', data: { key: 1 }, metadata },
      { type: 'Keyed', data: { key: '1' }, metadata },
    ],
    { expectedRevision: 'any' },
  );
  const projector = new Projector({ store, readModel, projections: [byKey] });
  await projector.start();
  assert.equal(await readModel.get('keys', 1), { id: 1, seen: 1 });
  assert.equal(await readModel.get('keys', '1'), { id: '1', seen: 1 });
  await projector.stop();
});

test.run();
