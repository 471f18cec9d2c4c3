/**
 * A rebuild into a staged generation folds the log in memory and writes it with bulk commits (Commit.bulk: on
 * Redis, documents and orders by COMMIT, set and trigram memberships by large client-side SADDs). This proves the
 * result is the same as committing batch by batch: every document, every query over every kind of index, and on
 * Redis every index key's size, with updates, deletes and re-creations across several bulk flushes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { Projector } from '../../src/projection/runner';
import { defineProjection } from '../../src/projection/projection';
import type { EventStore, NewEvent, RecordedEvent } from '../../src/ports/eventStore';
import type { Doc, DocWrite, QueryPlan, ReadModel } from '../../src/ports/readModel';
import { randomUUID } from 'node:crypto';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { REDIS_URL, deleteKeysUnder } from '../support/redis';

const test = suite('bulk rebuilds equal incremental ones');
const metadata = { userId: 1, requestId: 'r', at: '2024-01-01T00:00:00.000Z' };

interface Note extends Doc {
  id: number;
  title: string;
  body: string;
  tags: string[];
  status: string;
  rank: number;
  edits: number;
}

const notes = defineProjection<Note>({
  name: 'notes',
  version: 1,
  collections: ['notes'],
  handles: ['NoteWritten', 'NoteDeleted'],
  locate: (event) => ({ collection: 'notes', id: (event.data as { id: number }).id }),
  evolve: (doc, event) => {
    if (event.type === 'NoteDeleted') return null;
    const data = event.data as Omit<Note, 'edits'>;
    return { ...data, edits: (doc?.edits ?? 0) + 1 } as Note;
  },
  index: (doc) => ({
    sort: { rank: doc.rank, title: doc.title.toLowerCase() },
    sets: { tags: doc.tags, status: doc.status },
    text: { title: doc.title, body: doc.body },
    partitions: ['status'],
  }),
});

/** A deterministic workload: writes, rewrites (changing every indexed field), deletes and re-creations. */
function workload(): NewEvent[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // With words under three bytes (no posting sets of their own) and a three-byte one.
  const words = [
    'zephyr',
    'Alpha',
    'beta',
    'Gamma',
    'delta',
    'ÉCLAIR',
    'kiwi',
    'lemon',
    'mango',
    'nectar',
    'olive',
    'pear',
    'ox',
    'é',
    '日',
  ];
  const pick = () => words[Math.floor(random() * words.length)]!;
  const events: NewEvent[] = [];
  for (let n = 0; n < 900; n++) {
    const id = 1 + Math.floor(random() * 260);
    if (random() < 0.08) {
      events.push({ type: 'NoteDeleted', data: { id }, metadata });
      continue;
    }
    const words = Array.from({ length: 5 + Math.floor(random() * 40) }, pick).join(' ');
    // Some bodies empty (an empty text is not stored), also in rewrites of notes that had one.
    const body = id % 11 === n % 3 ? '' : words;
    events.push({
      type: 'NoteWritten',
      data: {
        id,
        title: `${pick()} ${pick()} ${id % 17}`,
        body,
        tags: Array.from({ length: Math.floor(random() * 3) }, pick),
        status: random() < 0.7 ? 'publish' : random() < 0.5 ? 'draft' : 'private',
        rank: Math.floor(random() * 50),
      },
      metadata,
    });
  }
  return events;
}

const field = (name: string, direction: 'asc' | 'desc') => ({ kind: 'field', field: name, direction }) as const;
const plans: QueryPlan[] = [
  { filters: [], order: field('id', 'asc'), offset: 0, limit: null },
  { filters: [], order: field('rank', 'desc'), offset: 5, limit: 40 },
  { filters: [], order: field('title', 'asc'), offset: 0, limit: null },
  {
    filters: [{ kind: 'any', field: 'status', values: ['publish'] }],
    order: field('rank', 'desc'),
    offset: 0,
    limit: 25,
  },
  {
    filters: [
      { kind: 'any', field: 'status', values: ['draft'] },
      { kind: 'range', field: 'rank', gte: 10, lt: 30 },
    ],
    order: field('rank', 'asc'),
    offset: 2,
    limit: 10,
  },
  {
    filters: [{ kind: 'any', field: 'tags', values: ['kiwi', 'zephyr'] }],
    order: field('id', 'desc'),
    offset: 0,
    limit: null,
  },
  {
    filters: [{ kind: 'all', field: 'tags', values: ['beta', 'delta'] }],
    order: field('title', 'desc'),
    offset: 0,
    limit: null,
  },
  {
    filters: [
      { kind: 'none', field: 'tags', values: ['mango'] },
      { kind: 'any', field: 'status', values: ['private', 'draft'] },
    ],
    order: field('rank', 'asc'),
    offset: 0,
    limit: null,
  },
  {
    filters: [{ kind: 'text', fields: ['title', 'body'], includes: ['zephyr'], excludes: [] }],
    order: field('id', 'asc'),
    offset: 0,
    limit: null,
  },
  {
    filters: [{ kind: 'text', fields: ['body'], includes: ['éclair', 'ive'], excludes: ['lemon'] }],
    order: field('rank', 'desc'),
    offset: 0,
    limit: null,
  },
  {
    filters: [{ kind: 'text', fields: ['title'], includes: ['alpha'], excludes: [] }],
    order: {
      kind: 'relevance',
      phrase: 'alpha beta',
      terms: ['alpha', 'beta'],
      columns: { title: 'title', excerpt: 'body', content: 'body' },
      tieBreak: field('rank', 'desc'),
    },
    offset: 0,
    limit: 30,
  },
  { filters: [], order: { kind: 'list', field: 'tags', values: ['pear', 'kiwi'] }, offset: 0, limit: 50 },
  {
    filters: [{ kind: 'text', fields: ['title', 'body'], includes: ['ox', '日'], excludes: ['é'] }],
    order: field('id', 'asc'),
    offset: 0,
    limit: null,
  },
];

async function state(readModel: ReadModel) {
  const docs = await readModel.getMany(
    'notes',
    Array.from({ length: 262 }, (_, i) => i),
  );
  const results = [];
  for (const plan of plans) results.push(await readModel.query('notes', plan));
  return { docs, results, checkpoint: await readModel.checkpoint('notes') };
}

async function seeded(): Promise<EventStore> {
  const store = createMemoryEventStore();
  const events = workload();
  for (let i = 0; i < events.length; i += 37)
    await store.appendToStream('notes', events.slice(i, i + 37), { expectedRevision: 'any' });
  return store;
}

/** Every key of a collection's generation, by its name after the generation prefix: type and size. */
async function keyShapes(redis: Redis, prefix: string): Promise<Record<string, string>> {
  const shapes: Record<string, string> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      const size =
        type === 'set'
          ? await redis.scard(key)
          : type === 'zset'
            ? await redis.zcard(key)
            : type === 'hash'
              ? await redis.hlen(key)
              : await redis.strlen(key);
      shapes[key.slice(prefix.length)] = `${type} ${size}`;
    }
  } while (cursor !== '0');
  return shapes;
}

/** The generation a rebuild made live, polled for up to 4 s (0 if none went live). */
async function liveGenerationOf(
  readModel: { generations?: { liveGeneration(name: string): Promise<number> } },
  name: string,
): Promise<number> {
  let generation = 0;
  for (let tries = 0; generation === 0 && tries < 400; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    generation = await readModel.generations!.liveGeneration(name);
  }
  return generation;
}

test('Redis: a rebuild in bulk (several flushes) gives the documents, indexes and query results of batch-by-batch commits', async () => {
  const store = await seeded();
  const redis = new Redis(REDIS_URL);
  const prefix = `test:${randomUUID()}:`;
  const readModel = createRedisReadModel({ redis, prefix });
  try {
    // `idle` handles none of the events: its bulk flush commits a checkpoint without documents.
    const idle = defineProjection<Note>({ ...notes, name: 'idle', collections: ['idle'], handles: ['NeverAppended'] });
    const projector = new Projector({
      store,
      readModel,
      projections: [notes, idle],
      maxBatchSize: 50,
      bulkFlushDocs: 60,
      retireGraceMs: 10_000,
    });
    await projector.start();
    const incremental = await state(readModel);
    assert.ok(incremental.results[0]!.total > 150, 'the workload leaves many notes');
    const bulkCommits: boolean[] = [];
    const commit = readModel.commit.bind(readModel);
    readModel.commit = (c) => {
      bulkCommits.push(c.bulk === true);
      return commit(c);
    };
    // Resolves after the grace, once the old generation is dropped: compare while both exist (the grace is long enough
    // for the comparison on a loaded machine; the old generation is gone once it ends).
    const rebuilt = projector.rebuild('notes');
    const generation = await liveGenerationOf(readModel, 'notes');
    assert.ok(generation > 0, 'the rebuilt generation is live');
    assert.ok(bulkCommits.filter(Boolean).length >= 3, `several bulk flushes (${bulkCommits.length} commits)`);
    assert.equal(await state(readModel), incremental);
    const bulkShapes = await keyShapes(redis, `${prefix}g${generation}:c:notes:`);
    const incrementalShapes = await keyShapes(redis, `${prefix}c:notes:`);
    for (const kind of ['w:', 'v:', 'y:'])
      assert.ok(
        Object.keys(bulkShapes).some((key) => key.startsWith(kind)),
        `${kind} keys (the token index) were written`,
      );
    // The handle counter may differ (a note created and deleted within one flush never takes a handle in bulk).
    delete bulkShapes.seq;
    delete incrementalShapes.seq;
    assert.equal(bulkShapes, incrementalShapes);
    await rebuilt;
    const idleRebuilt = await projector.rebuild('idle');
    assert.is(idleRebuilt.applied, await store.headPosition());
    assert.equal(await readModel.checkpoint('idle'), { position: await store.headPosition(), version: 1 });
    await projector.stop();
  } finally {
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
  }
});

/** Decodes the MessagePack the index entries (C:m) are stored in: maps, arrays and strings, as cmsgpack packs them. */
function unpack(bytes: Buffer): unknown {
  let at = 0;
  const length = (first: number, fix: number, eight: number, sixteen: number, thirtyTwo: number): number => {
    if (first === eight) return bytes[at++]!;
    if (first === sixteen) {
      at += 2;
      return bytes.readUInt16BE(at - 2);
    }
    if (first === thirtyTwo) {
      at += 4;
      return bytes.readUInt32BE(at - 4);
    }
    return first & fix;
  };
  const value = (): unknown => {
    const first = bytes[at++]!;
    if ((first & 0xe0) === 0xa0 || first === 0xd9 || first === 0xda || first === 0xdb) {
      const n = length(first, 0x1f, 0xd9, 0xda, 0xdb);
      return bytes.subarray(at, (at += n)).toString('hex');
    }
    if ((first & 0xf0) === 0x90 || first === 0xdc || first === 0xdd)
      return Array.from({ length: length(first, 0x0f, -1, 0xdc, 0xdd) }, value);
    if ((first & 0xf0) === 0x80 || first === 0xde || first === 0xdf) {
      const n = length(first, 0x0f, -1, 0xde, 0xdf);
      const map: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) map[Buffer.from(value() as string, 'hex').toString()] = value();
      return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : 1)));
    }
    throw new Error(`unexpected MessagePack byte ${first.toString(16)}`);
  };
  return value();
}

/**
 * Every key under `prefix` (a collection of one generation), by its name after the prefix, with its whole value:
 * strings, hashes as sorted field/value pairs (index entries decoded), sets as sorted members, sorted sets in order.
 * Binary names and values in hex.
 */
async function keyValues(redis: Redis, prefix: string): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scanBuffer(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = String(next);
    for (const key of keys) {
      const name = key.subarray(prefix.length).toString('hex');
      const type = await redis.type(key);
      if (type === 'string') values[name] = (await redis.getBuffer(key))!.toString('hex');
      else if (type === 'set') values[name] = (await redis.smembersBuffer(key)).map((m) => m.toString('hex')).sort();
      else if (type === 'zset') values[name] = (await redis.zrangeBuffer(key, 0, -1)).map((m) => m.toString('hex'));
      else if (type === 'hash') {
        // As a flat list of buffers: hgetallBuffer would key an object by field names decoded as text.
        const flat = (await redis.callBuffer('HGETALL', key)) as Buffer[];
        const isEntries = key.subarray(prefix.length).toString() === 'm';
        const pairs: [string, unknown][] = [];
        for (let i = 0; i < flat.length; i += 2)
          pairs.push([flat[i]!.toString('hex'), isEntries ? unpack(flat[i + 1]!) : flat[i + 1]!.toString('hex')]);
        values[name] = pairs.sort(([a], [b]) => (a < b ? -1 : 1));
      } else values[name] = type;
    }
  } while (cursor !== '0');
  return values;
}

test('Redis: without deletions, a rebuild in bulk writes exactly the keys and values of batch-by-batch commits (handles included)', async () => {
  // Deleted or re-created notes take handles differently in bulk (a note created and deleted within one flush takes
  // none), so this workload only writes and rewrites; rewrites after a flush go through COMMIT, new notes do not.
  const store = createMemoryEventStore();
  const events = workload().filter((event) => event.type !== 'NoteDeleted');
  for (let i = 0; i < events.length; i += 37)
    await store.appendToStream('notes', events.slice(i, i + 37), { expectedRevision: 'any' });
  const redis = new Redis(REDIS_URL);
  const prefix = `test:${randomUUID()}:`;
  const readModel = createRedisReadModel({ redis, prefix });
  try {
    const projector = new Projector({
      store,
      readModel,
      projections: [notes],
      maxBatchSize: 50,
      bulkFlushDocs: 60,
      retireGraceMs: 60_000,
    });
    await projector.start();
    const rebuilt = projector.rebuild('notes');
    const generation = await liveGenerationOf(readModel, 'notes');
    assert.ok(generation > 0, 'the rebuilt generation is live');
    const incremental = await keyValues(redis, `${prefix}c:notes:`);
    assert.ok(Object.keys(incremental).length > 100, 'the notes have many index keys');
    const bulk = await keyValues(redis, `${prefix}g${generation}:c:notes:`);
    const differing = [...new Set([...Object.keys(bulk), ...Object.keys(incremental)])].filter(
      (k) => JSON.stringify(bulk[k]) !== JSON.stringify(incremental[k]),
    );
    assert.equal(
      differing.map((k) => Buffer.from(k, 'hex').toString()),
      [],
      'keys whose values differ',
    );
    assert.equal(bulk, incremental);
    await projector.stop();
    void rebuilt.catch(() => undefined);
  } finally {
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
  }
});

/** The memory read model without its bulk-load hint: every commit keeps the indexes up to date. */
const incrementalMemory = (): ReadModel => ({
  ...createMemoryReadModel(),
  beginBulkLoad: undefined,
  endBulkLoad: undefined,
});

test('memory: a start-up replay and a rebuild with deferred indexes give the documents and query results of commits indexed one by one', async () => {
  const store = await seeded();
  const reference = incrementalMemory();
  const first = new Projector({ store, readModel: reference, projections: [notes], maxBatchSize: 50 });
  await first.start();
  const incremental = await state(reference);
  await first.stop();
  assert.ok(incremental.results[0]!.total > 150, 'the workload leaves many notes');

  const readModel = createMemoryReadModel();
  let deferred = 0;
  const begin = readModel.beginBulkLoad!.bind(readModel);
  readModel.beginBulkLoad = (collections) => {
    deferred++;
    return begin(collections);
  };
  const projector = new Projector({ store, readModel, projections: [notes], maxBatchSize: 50 });
  await projector.start();
  assert.equal(await state(readModel), incremental);
  await projector.rebuild('notes');
  assert.equal(await state(readModel), incremental);
  assert.is(deferred, 2, 'the start-up replay and the rebuild both loaded in bulk');
  await projector.stop();
});

test('memory: a query during a bulk load builds the indexes first, and later commits keep them', async () => {
  const reference = incrementalMemory();
  const readModel = createMemoryReadModel();
  readModel.beginBulkLoad!(['notes']);
  const docs = new Map<number, Note | null>();
  const events = workload();
  for (let from = 0, position = 1; from < events.length; from += 50, position++) {
    const writes: DocWrite[] = [];
    for (const event of events.slice(from, from + 50)) {
      const id = (event.data as { id: number }).id;
      const doc = notes.evolve(docs.get(id) ?? null, {
        ...event,
        id: '',
        streamId: 'notes',
        revision: 0,
        position,
        recordedAt: '',
      } as unknown as RecordedEvent);
      docs.set(id, doc);
      writes.push(
        doc
          ? { collection: 'notes', id, doc, index: notes.index!(doc, 'notes') }
          : { collection: 'notes', id, doc: null },
      );
    }
    const checkpoint = { name: 'notes', position, version: 1 };
    await Promise.all([reference, readModel].map((rm) => rm.commit({ writes, checkpoint })));
    // Half-way through the load, and at its end.
    if (from === 300 || from + 50 >= events.length) assert.equal(await state(readModel), await state(reference));
  }
  readModel.endBulkLoad!();
  assert.equal(await state(readModel), await state(reference));
});

test.run();
