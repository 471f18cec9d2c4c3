/**
 * The production shape as real processes: two API nodes (`serve --no-projector`) and one projector
 * (`palimpsest projector`) sharing the embedded SQLite event store and the real Redis (a key prefix of their own).
 * Writes go through both nodes; the projector is killed mid-stream and another one takes over when the lease
 * expires. Every answered write must be readable through both nodes, ids and slugs must stay unique across the
 * nodes, and the read model must equal a fresh rebuild from the log. Bounds are generous; nothing is timed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { dumpCollections, replayLog } from '../../src/projection/replay';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import builtInProjections from '../../projections/index';
import { REDIS_URL, deleteKeysUnder } from '../support/redis';
import {
  ROOT as root,
  eventually,
  freePort,
  kill9,
  sharedRedisEnv,
  startPalimpsest as start,
} from '../support/processes';
import type { Running } from '../support/processes';

const test = suite('several processes: two API nodes, a projector, a takeover');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('writes through both nodes stay unique and readable everywhere; a second projector takes over; the read model equals a rebuild', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-multiprocess-'));
  const prefix = `test:multiprocess:${randomUUID()}:`;
  const base = {
    ...sharedRedisEnv(dataDir, prefix, REDIS_URL, 'multi-process-test-secret'),
    PROJECTOR_LEASE_MS: '1500',
    // A write answers once the projector has applied it; during the takeover that takes a lease expiry or so.
    READ_YOUR_WRITES_TIMEOUT_MS: '60000',
    ID_BLOCK_SIZE: '3',
  };
  const running: Running[] = [];
  const redis = new Redis(REDIS_URL);
  try {
    const [p1, n1, n2, p2] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const projector1 = await start(['projector'], { ...base, PORT: String(p1) }, 'palimpsest projector running');
    running.push(projector1);
    await eventually('the first projector taking the lease', async () =>
      projector1.output().includes('holding the lease') ? true : undefined,
    );
    const nodes = [
      await start(['serve', '--no-projector'], { ...base, PORT: String(n1) }, 'palimpsest serving'),
      await start(['serve', '--no-projector'], { ...base, PORT: String(n2) }, 'palimpsest serving'),
    ];
    running.push(...nodes);

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/palimpsest.js', 'user', 'create', '--login', 'admin', '--role', 'administrator', '--json'],
      {
        cwd: root,
        env: { ...base, PORT: '0' },
      },
    );
    const { app_password } = JSON.parse(stdout.trim()) as { app_password: string };
    const auth = `Basic ${Buffer.from(`admin:${app_password}`).toString('base64')}`;

    const answered: { id: number; slug: string; title: string }[] = [];
    const writeBatch = async (batch: number) => {
      const results = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const node = nodes[i % 2]!;
          // One title for the whole batch: the slugs must come out distinct across both nodes.
          const title = `Same title ${batch}`;
          const response = await fetch(`${node.base}/core/v2/posts`, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: JSON.stringify({ title, status: 'publish', content: `written through node ${i % 2}` }),
          });
          assert.is(response.status, 201, await response.clone().text());
          const body = (await response.json()) as { id: number; slug: string };
          // Read your writes, through the other node too.
          for (const reader of nodes) {
            const read = await fetch(`${reader.base}/core/v2/posts/${body.id}`);
            assert.is(
              read.status,
              200,
              `post ${body.id} written through one node is not readable through ${reader.base}`,
            );
          }
          return { id: body.id, slug: body.slug, title };
        }),
      );
      answered.push(...results);
    };

    await writeBatch(0);
    await writeBatch(1);
    // Kill the projector while a batch is being written; the writes wait for the next one.
    const during = writeBatch(2);
    await sleep(20);
    await kill9(projector1);
    const projector2 = await start(['projector'], { ...base, PORT: String(p2) }, 'palimpsest projector running');
    running.push(projector2);
    await during;
    // The batch may have been projected before the kill; the takeover itself comes once the dead lease expires.
    await eventually('the second projector taking the lease', async () =>
      projector2.output().includes('holding the lease') ? true : undefined,
    );
    await writeBatch(3);

    assert.is(new Set(answered.map((a) => a.id)).size, answered.length, 'ids are unique across the nodes');
    assert.is(new Set(answered.map((a) => a.slug)).size, answered.length, 'slugs are unique across the nodes');

    for (const node of nodes) {
      const list = await fetch(`${node.base}/core/v2/posts?per_page=100`);
      assert.is(list.headers.get('x-wp-total'), String(answered.length), `every post is listed through ${node.base}`);
    }
    for (const node of nodes) {
      const ready = await fetch(`${node.base}/readyz`);
      assert.is(ready.status, 200, await ready.text());
    }

    // The read model the processes built equals one folded afresh from the log.
    const store = openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') });
    try {
      const head = await store.headPosition();
      await eventually('the projector applying the whole log', async () =>
        Number(await redis.get(`${prefix}projector:applied`)) >= head ? true : undefined,
      );
      const live = await dumpCollections(createRedisReadModel({ redis, prefix }), builtInProjections);
      const rebuilt = await replayLog({
        store,
        projections: builtInProjections,
        point: { position: head },
        readModel: createMemoryReadModel(),
      });
      assert.equal(live, rebuilt.collections);
    } finally {
      await store.close();
    }
  } finally {
    await Promise.all(running.map(kill9));
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
