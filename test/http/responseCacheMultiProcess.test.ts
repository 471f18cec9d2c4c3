/**
 * The shared response cache with several processes: a projector (`palimpsest projector`) and two API nodes
 * (`serve --no-projector`) on the real Redis. Node B keeps anonymous answers in its own cache; a write through node A
 * reaches B's cache through the coordination's notice (the applied position the projector publishes), so B's next
 * answers show it. Bounds are generous; nothing is timed.
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
import {
  ROOT as root,
  eventually,
  freePort,
  kill9,
  sharedRedisEnv,
  startPalimpsest as start,
} from '../support/processes';
import type { Running } from '../support/processes';

/** Its waits are shorter than the takeover test's: nothing here waits on a lease expiry. */
const eventuallySoon = <T>(what: string, probe: () => Promise<T | undefined>) => eventually(what, probe, 30_000, 50);

const test = suite('response cache: two API nodes and a projector');

async function cacheHits(node: Running): Promise<number> {
  const text = await (await fetch(`${node.base}/metrics`)).text();
  return Number(/^palimpsest_response_cache_hits_total (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

test("a write through node A reaches node B's cached answers", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-cache-multiprocess-'));
  const prefix = `test:cache-multiprocess:${randomUUID()}:`;
  const base = {
    ...sharedRedisEnv(dataDir, prefix, REDIS_URL, 'cache-multi-process-test-secret'),
    READ_YOUR_WRITES_TIMEOUT_MS: '30000',
    CACHE_MEMORY_MB: '',
    CACHES_OFF: '',
  };
  const running: Running[] = [];
  const redis = new Redis(REDIS_URL);
  try {
    const [p, a, b] = await Promise.all([freePort(), freePort(), freePort()]);
    const projector = await start(['projector'], { ...base, PORT: String(p) }, 'palimpsest projector running');
    running.push(projector);
    await eventuallySoon('the projector taking the lease', async () =>
      projector.output().includes('holding the lease') ? true : undefined,
    );
    const nodeA = await start(['serve', '--no-projector'], { ...base, PORT: String(a) }, 'palimpsest serving');
    running.push(nodeA);
    const nodeB = await start(['serve', '--no-projector'], { ...base, PORT: String(b) }, 'palimpsest serving');
    running.push(nodeB);

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
    const write = async (method: string, route: string, body: Record<string, unknown>) => {
      const response = await fetch(`${nodeA.base}${route}`, {
        method,
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.ok(response.status === 200 || response.status === 201, await response.clone().text());
      return (await response.json()) as { id: number };
    };
    const titlesOnB = async (route: string) =>
      ((await (await fetch(`${nodeB.base}${route}`)).json()) as { title: { rendered: string } }[]).map(
        (post) => post.title.rendered,
      );

    const first = await write('POST', '/core/v2/posts', { title: 'First', status: 'publish' });
    await eventuallySoon('node B listing the first post', async () =>
      (await titlesOnB('/core/v2/posts')).length === 1 ? true : undefined,
    );
    // B answers the list from its cache (once the events the first write set off, such as the password's use, are in).
    await eventuallySoon('node B answering the list from its cache', async () => {
      const hitsBefore = await cacheHits(nodeB);
      assert.equal(await titlesOnB('/core/v2/posts'), ['First']);
      return (await cacheHits(nodeB)) > hitsBefore ? true : undefined;
    });

    // A write through A: B's cached list must give way to it once B hears of it.
    await write('POST', '/core/v2/posts', { title: 'Second', status: 'publish' });
    await eventuallySoon("node B's list showing the post written through node A", async () =>
      JSON.stringify(await titlesOnB('/core/v2/posts')) === JSON.stringify(['Second', 'First']) ? true : undefined,
    );
    // And an update of a post B had cached as an item.
    const item = async () =>
      ((await (await fetch(`${nodeB.base}/core/v2/posts/${first.id}`)).json()) as { title: { rendered: string } }).title
        .rendered;
    await eventuallySoon('node B answering the item from its cache', async () => {
      const hitsBefore = await cacheHits(nodeB);
      assert.is(await item(), 'First');
      return (await cacheHits(nodeB)) > hitsBefore ? true : undefined;
    });
    await write('POST', `/core/v2/posts/${first.id}`, { title: 'First, renamed' });
    await eventuallySoon("node B's item showing the update made through node A", async () =>
      (await item()) === 'First, renamed' ? true : undefined,
    );
    assert.equal(await titlesOnB('/core/v2/posts'), ['Second', 'First, renamed']);
  } finally {
    await Promise.all(running.map(kill9));
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
