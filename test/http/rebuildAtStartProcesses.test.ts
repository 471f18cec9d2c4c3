/**
 * The production shape as real processes: an API node (`serve --no-projector`) and a projector (`palimpsest
 * projector`, or `serve` running the projector beside the API) sharing the embedded SQLite event store and the real
 * Redis. The projector is replaced by one whose
 * custom projection has a new version and a slow fold, so it rebuilds that projection at start for several seconds.
 * Meanwhile posts are created through the API node and answered, correctly, before the rebuild is switched in (the
 * write waited only for the other projections); once switched in, the rebuilt projection holds them too. The
 * projector answers /healthz and shows the rebuild's progress on /metrics meanwhile. Nothing is timed: a write that
 * waited for the rebuild would answer only after the switch, which the test sees in Redis. The rebuild is slow only
 * while a gate file exists, which the test removes once its writes are answered: ~20 s of folding at the least (its
 * bulk events at 0.2 ms each), far longer than the writes take even on a loaded machine.
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
import { REDIS_URL, deleteKeysUnder } from '../support/redis';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import {
  ROOT as root,
  eventually,
  freePort,
  kill9,
  sharedRedisEnv,
  startPalimpsest as start,
} from '../support/processes';
import type { Running } from '../support/processes';

const test = suite('processes: writes while the projector rebuilds a changed projection at start');

/**
 * A custom projection module: one document per post, and counts of the test's bulk events. With a `gate`, each of
 * those costs `msPerEvent` while the gate file exists, so its rebuild is slow until the test removes it or the bulk
 * events are folded (a batch still takes well under the lease time).
 */
const projectionModule = (version: number, msPerEvent: number, gate: string | null) => `
import { existsSync } from 'node:fs';
const gate = ${JSON.stringify(gate)};
export default {
  name: 'post-titles',
  version: ${version},
  collections: ['post-titles'],
  handles: ['PostCreated', 'TestNoted'],
  locate: (event) => ({ collection: 'post-titles', id: event.type === 'TestNoted' ? 'noted-' + (event.data.n % 100) : event.data.id }),
  evolve(doc, event) {
    if (event.type === 'TestNoted') {
      if (gate !== null && existsSync(gate)) {
        const until = performance.now() + ${msPerEvent};
        while (performance.now() < until);
      }
      return { id: 'noted-' + (event.data.n % 100), count: (doc ? doc.count : 0) + 1 };
    }
    return { id: event.data.id, title: event.data.post.title, version: ${version} };
  },
};
`;
/** Events of the test's own type, which only the custom projection folds: a long log to rebuild it from. */
const BULK_EVENTS = 100_000;

for (const role of ['projector', 'serve'] as const) {
  const who = role === 'projector' ? '`palimpsest projector`' : '`serve` (projector and API in one process)';
  test(`${who}: posts written meanwhile are answered during the rebuild, and the rebuilt projection holds them`, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-rebuild-processes-'));
    const prefix = `test:rebuild-processes:${randomUUID()}:`;
    const projections = (version: number, msPerEvent: number, gate: string | null) => {
      const dir = path.join(dataDir, `projections-v${version}`);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'postTitles.mjs'), projectionModule(version, msPerEvent, gate));
      return dir;
    };
    // Held from the start; removed once the writes made during the rebuild are answered and checked.
    const gate = path.join(dataDir, 'rebuild-gate');
    fs.writeFileSync(gate, '');
    const base = {
      ...sharedRedisEnv(dataDir, prefix, REDIS_URL, 'rebuild-processes-test-secret'),
      PROJECTOR_LEASE_MS: '1500',
      // Long enough that a write waiting for the rebuild would answer only after the switch.
      READ_YOUR_WRITES_TIMEOUT_MS: '120000',
      // The slow fold holds the thread ~200 ms per batch; on a loaded machine a Redis reply can then wait past the
      // default 2 s and answer as an outage (503). Outages are tested elsewhere; here a slow reply is only slow.
      REDIS_COMMAND_TIMEOUT_MS: '15000',
    };
    const v1 = { ...base, PROJECTIONS_DIR: projections(1, 0, null) };
    const v2 = { ...base, PROJECTIONS_DIR: projections(2, 0.2, gate) };
    const running: Running[] = [];
    const redis = new Redis(REDIS_URL);
    const liveGeneration = async () => Number((await redis.hget(`${prefix}gen:live`, 'post-titles')) ?? 0);
    try {
      const [p1, p2, n1] = await Promise.all([freePort(), freePort(), freePort()]);
      const first = await start(['projector'], { ...v1, PORT: String(p1) }, 'palimpsest projector running');
      running.push(first);
      await eventually('the first projector taking the lease', async () =>
        first.output().includes('holding the lease') ? true : undefined,
      );
      const node = await start(['serve', '--no-projector'], { ...v2, PORT: String(n1) }, 'palimpsest serving');
      running.push(node);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['bin/palimpsest.js', 'user', 'create', '--login', 'admin', '--role', 'administrator', '--json'],
        {
          cwd: root,
          env: { ...v1, PORT: '0' },
        },
      );
      const { app_password } = JSON.parse(stdout.trim()) as { app_password: string };
      const auth = `Basic ${Buffer.from(`admin:${app_password}`).toString('base64')}`;
      const create = async (title: string, through: Running = node) => {
        const response = await fetch(`${through.base}/core/v2/posts`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({ title, status: 'publish', content: 'words' }),
        });
        assert.is(response.status, 201, await response.clone().text());
        return (await response.json()) as { id: number; title: { raw: string } };
      };
      for (let i = 0; i < 5; i++) await create(`Before ${i}`);
      const store = openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') });
      try {
        const metadata = { userId: null, requestId: 'bulk', at: new Date(0).toISOString() };
        for (let from = 0; from < BULK_EVENTS; from += 1000) {
          const events = Array.from({ length: 1000 }, (_, i) => ({
            type: 'TestNoted',
            data: { n: from + i },
            metadata,
          }));
          await store.appendToStream('test-noted', events, { expectedRevision: 'any' });
        }
        // The first projector applies them all (quickly: version 1 spends nothing on them), then is replaced.
        const head = await store.headPosition();
        await eventually(
          'the first projector applying the bulk events',
          async () => (Number(await redis.get(`${prefix}projector:applied`)) >= head ? true : undefined),
          120_000,
        );
      } finally {
        await store.close();
      }
      // A clean stop gives the lease up: the new projector takes it at once and starts with the rebuild.
      const exited = new Promise((resolve) => first.child.once('exit', resolve));
      first.child.kill('SIGTERM');
      await exited;

      const second =
        role === 'projector'
          ? await start(['projector'], { ...v2, PORT: String(p2) }, 'projector: holding the lease', 120_000)
          : // It listens once the other projections have caught up, with the rebuild still running.
            await start(['serve'], { ...v2, PORT: String(p2) }, 'palimpsest serving', 120_000);
      running.push(second);
      await eventually('the rebuild began', async () =>
        second.output().includes('post-titles: version 1 -> 2, rebuilding') ? true : undefined,
      );
      if (role === 'serve')
        assert.is(await liveGeneration(), 0, 'serving before the rebuilt projection was switched in');
      // The projector answers its health check and shows the rebuild's progress meanwhile.
      assert.is((await fetch(`${second.base}/healthz`)).status, 200);
      await eventually('the rebuild progress on /metrics', async () =>
        /^palimpsest_projection_rebuild_applied_events\{projection="post-titles"\} [1-9]/m.test(
          await (await fetch(`${second.base}/metrics`)).text(),
        )
          ? true
          : undefined,
      );
      const during: number[] = [];

      for (let i = 0; i < 3; i++) {
        const through = role === 'serve' && i % 2 === 0 ? second : node;
        const post = await create(`During ${i}`, through);
        assert.is(post.title.raw, `During ${i}`);
        during.push(post.id);
        for (const reader of role === 'serve' ? [node, second] : [node]) {
          const read = await fetch(`${reader.base}/core/v2/posts/${post.id}`);
          assert.is(
            read.status,
            200,
            `${reader === node ? 'the API node' : 'the serving projector'}: ${await read.text()}`,
          );
        }
      }
      assert.is(await liveGeneration(), 0, 'the writes were answered before the rebuilt projection was switched in');
      fs.rmSync(gate);

      await eventually('the switch', async () => ((await liveGeneration()) > 0 ? true : undefined), 120_000);
      // A read model made after the switch reads the live generation.
      const readModel = createRedisReadModel({ redis, prefix });
      for (const [i, id] of during.entries()) {
        const doc = await eventually(
          `post-titles/${id}`,
          async () =>
            ((await readModel.get('post-titles', id)) as { title: string; version: number } | null) ?? undefined,
        );
        assert.equal(doc, { id, title: `During ${i}`, version: 2 });
      }
    } finally {
      for (const process of running) await kill9(process);
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

test.run();
