import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { StaleCommitError } from '../../src/ports/readModel';
import type { Commit, QueryPlan, ReadModel } from '../../src/ports/readModel';
import { defineProjection } from '../../src/projection/projection';
import { Projector } from '../../src/projection/runner';
import { readModelContract } from '../contracts/readModel.contract';
import { deleteKeysUnder, refuseNextEvalsha } from '../support/redis';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const runId = randomBytes(6).toString('hex');
let instances = 0;

async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...found);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** A fresh client and prefix per use; cleanup deletes the prefix's keys and quits so the process can exit. */
async function fresh() {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const prefix = `test:${runId}:${instances++}:`;
  return {
    redis,
    prefix,
    readModel: createRedisReadModel({ redis, prefix }),
    cleanup: async () => {
      await deleteKeysUnder(redis, prefix);
      await redis.quit();
    },
  };
}

readModelContract('redis', fresh);

/** The same, with the reads on an auto-pipelined connection of their own, as bootstrap.ts opens it. */
async function freshWithReader() {
  const opened = await fresh();
  const reader = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableAutoPipelining: true });
  await reader.connect();
  return {
    ...opened,
    readModel: createRedisReadModel({ redis: opened.redis, reader, prefix: opened.prefix }),
    cleanup: async () => {
      await opened.cleanup();
      await reader.quit();
    },
  };
}

readModelContract('redis, reads on an auto-pipelined connection', freshWithReader);

const own = suite('redis read model: round trips, scripts and keys');

const common: QueryPlan = {
  filters: [{ kind: 'any', field: 'status', values: ['publish'] }],
  order: { kind: 'field', field: 'date', direction: 'desc' },
  offset: 0,
  limit: 10,
};

/** Counts the commands sent through the client while `body` runs. */
async function countCommands(redis: Redis, body: () => Promise<void>): Promise<string[]> {
  const sent: string[] = [];
  const original = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    sent.push(command.name);
    return (original as (...a: unknown[]) => unknown)(command, ...rest);
  }) as typeof redis.sendCommand;
  try {
    await body();
  } finally {
    redis.sendCommand = original;
  }
  return sent;
}

own('a query and a commit are one round trip each', async () => {
  const { redis, readModel, cleanup } = await fresh();
  try {
    const writes = Array.from({ length: 50 }, (_, id) => ({
      collection: 'posts',
      id,
      doc: { id },
      index: {
        sort: { date: id % 7 },
        sets: { status: id % 3 ? 'publish' : 'draft', tags: [id % 4] },
        text: { title: `post ${id}` },
      },
    }));
    await readModel.commit({ writes, checkpoint: { name: 'p', position: 1, version: 1 } });
    const plans: QueryPlan[] = [
      common,
      {
        ...common,
        filters: [
          ...common.filters,
          { kind: 'any', field: 'tags', values: [1, 2] },
          { kind: 'text', fields: ['title'], includes: ['post 1'], excludes: [] },
        ],
      },
      { ...common, order: { kind: 'list', field: 'id', values: [3, 1] } },
    ];
    for (const plan of plans) {
      const sent = await countCommands(redis, async () => {
        await readModel.query('posts', plan);
      });
      assert.equal(sent, ['evalsha'], JSON.stringify(plan));
    }
    const sent = await countCommands(redis, () =>
      readModel.commit({ writes: writes.slice(0, 5), checkpoint: { name: 'p', position: 2, version: 1 } }),
    );
    assert.equal(sent, ['evalsha']);
  } finally {
    await cleanup();
  }
});

own(
  'commits alongside one another write several projections and their checkpoints in one round trip, or nothing when one is refused',
  async () => {
    const { redis, prefix, readModel, cleanup } = await fresh();
    try {
      const post = (id: number, title: string) => ({
        collection: 'posts',
        id,
        doc: { id, title },
        index: { sets: { status: 'publish' }, text: { title } },
      });
      const term = (id: number) => ({ collection: 'terms', id, doc: { id } });
      await redis.set(`${prefix}projector:fence`, '7');
      assert.is(readModel.commitsAlongside, true);
      const sent = await countCommands(redis, () =>
        readModel.commit({
          writes: [post(1, 'alpha'), post(2, 'beta')],
          checkpoint: { name: 'content', position: 3, version: 2 },
          fence: 7,
          alongside: [
            { writes: [term(1)], checkpoint: { name: 'terms', position: 3, version: 1 }, fence: 7 },
            { writes: [], checkpoint: { name: 'users', position: 3, version: 1 }, fence: 7 },
          ],
        }),
      );
      assert.equal(sent, ['evalsha']);
      assert.equal(await readModel.checkpoint('content'), { position: 3, version: 2 });
      assert.equal(await readModel.checkpoint('users'), { position: 3, version: 1 });
      assert.equal(await readModel.get('terms', 1), { id: 1 });
      const search = (t: string): QueryPlan => ({
        ...common,
        filters: [{ kind: 'text', fields: ['title'], includes: [t], excludes: [] }],
        order: { kind: 'field', field: 'id', direction: 'asc' },
      });
      assert.equal((await readModel.query('posts', search('alpha'))).items, [{ id: 1, title: 'alpha' }]);
      // A newer lease: the whole call is refused, the sections before and after the stale one included.
      await redis.set(`${prefix}projector:fence`, '8');
      let refused: unknown = null;
      await readModel
        .commit({
          writes: [post(1, 'gamma')],
          checkpoint: { name: 'content', position: 4, version: 2 },
          alongside: [{ writes: [term(2)], checkpoint: { name: 'terms', position: 4, version: 1 }, fence: 7 }],
        })
        .catch((error) => (refused = error));
      assert.instance(refused, StaleCommitError);
      assert.is((refused as StaleCommitError).reason, 'fence');
      assert.equal(await readModel.checkpoint('content'), { position: 3, version: 2 });
      assert.equal(await readModel.checkpoint('terms'), { position: 3, version: 1 });
      assert.equal(await readModel.get('posts', 1), { id: 1, title: 'alpha' });
      assert.is(await readModel.get('terms', 2), null);
      assert.is((await readModel.query('posts', search('gamma'))).total, 0);
    } finally {
      await cleanup();
    }
  },
);

own(
  'the projector commits every projection of a batch in one call, and each alone when that call is refused',
  async () => {
    const { redis, readModel, cleanup } = await fresh();
    const store = createMemoryEventStore();
    const counter = (name: string) =>
      defineProjection<{ id: number; count: number }>({
        name,
        version: 1,
        collections: [name],
        handles: ['Counted'],
        locate: (event) => ({ collection: name, id: (event.data as { id: number }).id }),
        evolve: (doc, event) => ({ id: (event.data as { id: number }).id, count: (doc?.count ?? 0) + 1 }),
      });
    let refuse = 0;
    const calls: number[] = [];
    // Refuses combined commits while `refuse` > 0, as Redis does when one section's generation was replaced.
    const guarded: ReadModel = new Proxy(readModel, {
      get(target, property) {
        if (property === 'commit') {
          return (commit: Commit) => {
            calls.push(1 + (commit.alongside?.length ?? 0));
            if ((commit.alongside?.length ?? 0) > 0 && refuse > 0) {
              refuse--;
              return Promise.reject(new StaleCommitError('generation', 'replaced'));
            }
            return target.commit(commit);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const projector = new Projector({ store, readModel: guarded, projections: [counter('a'), counter('b')] });
    const counted = (id: number) => ({
      type: 'Counted',
      data: { id },
      metadata: { userId: 1, requestId: 'r', at: '2024-01-01T00:00:00.000Z' },
    });
    try {
      await projector.start();
      let position = (await store.appendToStream('s', [counted(1), counted(2)], { expectedRevision: 'any' })).position;
      const sent = await countCommands(redis, async () => {
        assert.ok(await projector.waitFor(position, 2_000));
      });
      assert.is(sent.filter((c) => c === 'evalsha').length, 1, `one COMMIT for both projections (${sent.join(', ')})`);
      assert.equal(calls.at(-1), 2);
      refuse = 1;
      position = (await store.appendToStream('s', [counted(1)], { expectedRevision: 'any' })).position;
      assert.ok(await projector.waitFor(position, 2_000));
      assert.equal(calls.slice(-3), [2, 1, 1], 'refused together, then committed one by one');
      for (const name of ['a', 'b']) {
        assert.equal(await readModel.get(name, 1), { id: 1, count: 2 });
        assert.equal(await readModel.checkpoint(name), { position, version: 1 });
      }
    } finally {
      await projector.stop();
      await cleanup();
    }
  },
);

own(
  'parsed documents are reused while their JSON is the same, and never for another JSON of the same length, head and tail',
  async () => {
    const { readModel, cleanup } = await fresh();
    try {
      const body = (middle: string) => `${'head '.repeat(40)}${middle}${' tail'.repeat(40)}`;
      const put = (position: number, middle: string) =>
        readModel.commit({
          writes: [
            { collection: 'posts', id: 1, doc: { id: 1, body: body(middle) }, index: { sets: { status: 'publish' } } },
          ],
          checkpoint: { name: 'p', position, version: 1 },
        });
      await put(1, 'AAAA');
      const first = await readModel.get('posts', 1);
      assert.is(await readModel.get('posts', 1), first, 'the same JSON gives the same frozen document');
      assert.is((await readModel.query('posts', common)).items[0], first);
      await put(2, 'BBBB');
      const second = await readModel.get('posts', 1);
      assert.equal(second, { id: 1, body: body('BBBB') });
      assert.is((await readModel.query('posts', common)).items[0], second);
      await put(3, 'AAAA');
      assert.equal(await readModel.get('posts', 1), { id: 1, body: body('AAAA') });
    } finally {
      await cleanup();
    }
  },
);

own(
  'documents of an older key layout: the checkpoint reads as version -1 (rebuild), and search scans their text',
  async () => {
    const { redis, prefix, readModel, cleanup } = await fresh();
    try {
      const writes = Array.from({ length: 40 }, (_, i) => i + 1).map((id) => ({
        collection: 'posts',
        id,
        doc: { id },
        index: {
          sort: { date: 100 - id },
          sets: { status: 'publish', tags: id >= 4 && id <= 8 ? ['x'] : [] },
          text: { title: id === 2 ? 'Zephyr wind' : `post ${id}` },
        },
      }));
      await readModel.commit({ writes, checkpoint: { name: 'content', position: 1, version: 4 } });
      assert.equal(await readModel.checkpoint('content'), { position: 1, version: 4 });
      // What a read model written before the token index holds: a checkpoint without a layout, no token keys.
      await redis.hset(`${prefix}checkpoints`, 'content', JSON.stringify({ position: 1, version: 4 }));
      const tokenKeys = (await keysUnder(redis, `${prefix}c:posts:`)).filter((k) =>
        /^c:posts:(w|v|y):|^c:posts:tx$/.test(k.slice(prefix.length)),
      );
      assert.ok(tokenKeys.length > 3);
      await redis.del(...tokenKeys);
      // Before layout 2 a sort key's hash held ord(value) alone: a number's nine bytes.
      const dateKey = `${prefix}c:posts:k:date`;
      const members = await redis.hgetallBuffer(dateKey);
      for (const [handle, member] of Object.entries(members)) await redis.hset(dateKey, handle, member.subarray(0, 9));
      assert.equal(await readModel.checkpoint('content'), { position: 1, version: -1 });
      const found = await readModel.query('posts', {
        ...common,
        filters: [{ kind: 'text', fields: ['title'], includes: ['ZEPHYR'], excludes: ['post'] }],
      });
      assert.equal(found, { items: [{ id: 2 }], total: 1 });
      // Ranges and orders on such keys: the candidates of a set filter tested and sorted by their keys.
      const byDate = await readModel.query('posts', {
        filters: [
          { kind: 'any', field: 'tags', values: ['x'] },
          { kind: 'range', field: 'date', gte: 93, lt: 96 },
        ],
        order: { kind: 'field', field: 'date', direction: 'asc' },
        offset: 0,
        limit: 2,
      });
      assert.equal(byDate, { items: [{ id: 7 }, { id: 6 }], total: 3 });
    } finally {
      await cleanup();
    }
  },
);

own('falls back to EVAL when the server has lost the script', async () => {
  const { redis, readModel, cleanup } = await fresh();
  try {
    await readModel.commit({
      writes: [
        { collection: 'posts', id: 1, doc: { id: 1 }, index: { sort: { date: 1 }, sets: { status: 'publish' } } },
      ],
      checkpoint: { name: 'p', position: 1, version: 1 },
    });
    // The next EVALSHA answers NOSCRIPT, as after a flush of the script cache.
    const refused = refuseNextEvalsha(redis);
    const result = await readModel.query('posts', common);
    assert.is(refused(), 1);
    assert.equal(result, { items: [{ id: 1 }], total: 1 });
  } finally {
    await cleanup();
  }
});

own('keys stay under the prefix; reset removes every key of its collections', async () => {
  const { redis, prefix, readModel, cleanup } = await fresh();
  try {
    const index = { sort: { date: 3 }, sets: { status: 'publish' }, text: { title: 'Hello ✓ world' } };
    await readModel.commit({
      writes: [
        { collection: 'posts', id: 1, doc: { id: 1 }, index },
        { collection: 'posts:2', id: 1, doc: { id: 1 }, index },
        { collection: 'p*', id: 1, doc: { id: 1 }, index },
      ],
      checkpoint: { name: 'p', position: 1, version: 1 },
    });
    const before = await keysUnder(redis, prefix);
    assert.ok(before.length > 10);
    assert.ok(before.every((k) => k.startsWith(prefix)));
    // A glob character in a collection name must not widen the reset to other collections.
    await readModel.reset('p', ['p*']);
    assert.equal(await readModel.get('posts', 1), { id: 1 });
    assert.equal(await readModel.get('posts:2', 1), { id: 1 });
    assert.is(await readModel.get('p*', 1), null);
    await readModel.reset('p', ['posts', 'posts:2']);
    assert.equal(await keysUnder(redis, prefix), []);
  } finally {
    await cleanup();
  }
});

own('deleting every document leaves no index keys behind', async () => {
  const { redis, prefix, readModel, cleanup } = await fresh();
  try {
    const writes = Array.from({ length: 20 }, (_, id) => ({
      collection: 'posts',
      id,
      doc: { id },
      index: {
        sort: { date: id, title: `t${id}` },
        sets: { status: 'publish', tags: [id, 'x'] },
        text: { title: `title ${id}`, content: 'some longer content' },
      },
    }));
    await readModel.commit({ writes, checkpoint: { name: 'p', position: 1, version: 1 } });
    await readModel.commit({
      writes: writes.map((w) => ({ ...w, doc: null })),
      checkpoint: { name: 'p', position: 2, version: 1 },
    });
    // What may remain: the handle counter, the mark of the token index and the checkpoint.
    const left = (await keysUnder(redis, prefix)).map((k) => k.slice(prefix.length)).sort();
    assert.equal(left, ['c:posts:seq', 'c:posts:tx', 'checkpoints']);
  } finally {
    await cleanup();
  }
});

own(
  "a token longer than 64 bytes is listed once, in its column's long-token set, not under its trigrams: search finds it by any part, and it leaves with its last posting",
  async () => {
    const { redis, prefix, readModel, cleanup } = await fresh();
    try {
      const long = `${'q'.repeat(40)}middlepart${'z'.repeat(40)}`;
      const post = (id: number, title: string) => ({
        collection: 'posts',
        id,
        doc: { id, title },
        index: { sets: { status: 'publish' }, text: { title } },
      });
      const search = (t: string): QueryPlan => ({
        ...common,
        filters: [{ kind: 'text', fields: ['title'], includes: [t], excludes: [] }],
        order: { kind: 'field', field: 'id', direction: 'asc' },
      });
      await readModel.commit({
        writes: [post(1, `short ${long}`), post(2, 'short')],
        checkpoint: { name: 'content', position: 1, version: 1 },
      });
      const vocabularyKeys = async () => (await keysUnder(redis, prefix)).filter((key) => key.includes(':y:title:'));
      const listing = async (token: string) => {
        const holders: string[] = [];
        for (const key of await vocabularyKeys())
          if (await redis.sismember(key, token)) holders.push(key.slice(key.lastIndexOf(':') + 1));
        return holders;
      };
      assert.equal(await listing(long), ['long']);
      assert.equal((await listing('short')).sort(), ['hor', 'ort', 'sho']);
      for (const part of ['middlepart', 'qqqmiddle', 'zzz', long, 'short']) {
        assert.equal(
          (await readModel.query('posts', search(part))).items.map((doc) => doc.id),
          part === 'short' ? [1, 2] : [1],
          part,
        );
      }
      await readModel.commit({ writes: [post(1, 'other')], checkpoint: { name: 'content', position: 2, version: 1 } });
      assert.equal(await listing(long), []);
      assert.is((await readModel.query('posts', search('middlepart'))).total, 0);
      assert.equal(
        (await readModel.query('posts', search('short'))).items.map((doc) => doc.id),
        [2],
      );
    } finally {
      await cleanup();
    }
  },
);

own(
  'tokens under three bytes get no posting set and no vocabulary entry, and an empty text is not stored; search answers them from the stored text',
  async () => {
    const { redis, prefix, readModel, cleanup } = await fresh();
    try {
      const post = (id: number, title: string, excerpt: string) => ({
        collection: 'posts',
        id,
        doc: { id },
        index: { sets: { status: 'publish' }, text: { title, excerpt } },
      });
      const search = (t: string): QueryPlan => ({
        ...common,
        filters: [{ kind: 'text', fields: ['title', 'excerpt'], includes: [t], excludes: [] }],
        order: { kind: 'field', field: 'id', direction: 'asc' },
      });
      const found = async (t: string) => (await readModel.query('posts', search(t))).items.map((doc) => doc.id);
      // "é" is two bytes, "日" three: only the second is a token the index lists.
      await readModel.commit({
        writes: [post(1, 'A tale of 2 cafés', ''), post(2, 'Of é and 日', 'wp p'), post(3, 'tale', '')],
        checkpoint: { name: 'content', position: 1, version: 1 },
      });
      const tokenKeys = async () =>
        (await keysUnder(redis, `${prefix}c:posts:w:`)).map((k) => k.slice(`${prefix}c:posts:w:`.length)).sort();
      assert.equal(await tokenKeys(), ['title:and', 'title:cafés', 'title:tale', 'title:日']);
      assert.equal((await redis.smembers(`${prefix}c:posts:v:title`)).sort(), ['and', 'cafés', 'tale', '日']);
      assert.is(await redis.exists(`${prefix}c:posts:v:excerpt`), 0);
      assert.equal(await redis.hkeys(`${prefix}c:posts:x:excerpt`), ['2']);
      assert.equal((await redis.hkeys(`${prefix}c:posts:x:title`)).sort(), ['1', '2', '3']);
      for (const [term, ids] of [
        ['of', [1, 2]],
        ['a', [1, 2, 3]],
        ['2', [1]],
        ['é', [1, 2]],
        ['日', [2]],
        ['wp', [2]],
        ['tale', [1, 3]],
        ['caf', [1]],
      ] as const) {
        assert.equal(await found(term), [...ids], term);
      }
      // An update: tokens and texts come and go as the text changes.
      await readModel.commit({
        writes: [post(1, 'of', 'x 日'), post(2, 'Of é and 日', '')],
        checkpoint: { name: 'content', position: 2, version: 1 },
      });
      assert.equal(await tokenKeys(), ['excerpt:日', 'title:and', 'title:tale', 'title:日']);
      assert.equal(await redis.hkeys(`${prefix}c:posts:x:excerpt`), ['1']);
      for (const [term, ids] of [
        ['of', [1, 2]],
        ['wp', []],
        ['日', [1, 2]],
        ['x', [1]],
        ['caf', []],
      ] as const)
        assert.equal(await found(term), [...ids], term);
    } finally {
      await cleanup();
    }
  },
);

own.run();
