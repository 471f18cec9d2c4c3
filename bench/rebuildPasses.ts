/**
 * How long `palimpsest projections rebuild` takes for every projection against the rebuild of `content` alone, on the
 * Redis read model. A rebuild of several projections reads the log once for all of them (Projector.rebuildAll), so
 * the whole rebuild should cost little more than its largest projection's.
 *
 *   npx tsx bench/rebuildPasses.ts [--posts 16000] [--rounds 3] [--data DIR] [--redis-url URL] [--redis-db 15]
 *
 * Seeds a SQLite log in DIR (a temporary folder unless --data names one that already has `events.sqlite`) through the
 * site's own HTTP API, in process: posts in a few categories and tags, every third one updated (a revision), comments
 * on every fifth, a few users. Then, in a child process per run (the CLI's own code: openSite, then the rebuild
 * command's body), it rebuilds `content` alone and every projection, alternately, `--rounds` times each, under a key
 * prefix of its own in the Redis database `--redis-db` (emptied of that prefix at the end). The read model is first
 * built once by a full rebuild, so every measured rebuild replaces live generations, as in production.
 *
 * Each run reports: until the last switch (the pass and the switches: what the projections' readers wait for), in
 * all (the 5 s grace before the replaced generations are deleted, and their deletion, included), the rebuilding
 * process's CPU until the last switch and Redis's (INFO cpu; use a Redis of the bench's own for that to mean
 * anything). The summary gives the best and the median of each: on a loaded machine wall times move a lot between
 * runs, CPU times much less. The ratio asked of the one-pass rebuild: every projection in at most 1.5 times content's
 * time.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values: options } = parseArgs({
  options: {
    posts: { type: 'string', default: '16000' },
    rounds: { type: 'string', default: '3' },
    data: { type: 'string' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
    'redis-db': { type: 'string', default: '15' },
    child: { type: 'string' },
  },
});

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');

if (options.child !== undefined) await child(options.child === 'all' ? [] : options.child.split(','));
else await parent();

/** One rebuild, as the CLI runs it, timed from the call: prints one JSON line. */
async function child(names: string[]): Promise<void> {
  const [{ loadConfig }, { openSite }] = await Promise.all([import('../src/config'), import('../src/bootstrap')]);
  const site = await openSite(loadConfig());
  const wanted = names.length > 0 ? names : site.projector.names;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let lastSwitch = 0;
  let cpu = 0;
  let events = 0;
  await site.projector.rebuildAll(wanted, undefined, (result) => {
    lastSwitch = performance.now() - started;
    const used = process.cpuUsage(cpuBefore);
    cpu = (used.user + used.system) / 1000;
    events = result.applied;
  });
  const total = performance.now() - started;
  await site.close();
  console.log(
    JSON.stringify({
      projections: wanted.length,
      events,
      lastSwitchMs: Math.round(lastSwitch),
      totalMs: Math.round(total),
      cpuMs: Math.round(cpu),
    }),
  );
  // The CLI's Redis client keeps the process alive (bench/rebuild.ts).
  process.exit(0);
}

interface Run {
  projections: number;
  events: number;
  lastSwitchMs: number;
  totalMs: number;
  /** CPU the rebuilding process used until the last switch. */
  cpuMs: number;
  /** CPU Redis's main thread used during the run (the whole run: deleting the old generations included). */
  redisCpuMs?: number;
}

/** CPU seconds Redis's main thread has used (INFO cpu). */
async function redisCpuMs(redis: import('ioredis').Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  const main = field('used_cpu_sys_main_thread') + field('used_cpu_user_main_thread');
  return (Number.isFinite(main) ? main : field('used_cpu_sys') + field('used_cpu_user')) * 1000;
}

function runChild(which: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', SELF, '--child', which], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.stderr.on('data', (chunk) => (err += chunk));
    proc.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`rebuild ${which} exited ${code}: ${out}${err}`));
      else resolve(JSON.parse(line) as Run);
    });
  });
}

async function seed(dataDir: string, posts: number): Promise<number> {
  const [{ openSqliteEventStore }, { startTestSite }, { seedPostText }] = await Promise.all([
    import('../src/adapters/sqlite/eventStore'),
    import('../test/support/testSite'),
    import('./posts'),
  ]);
  const store = openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') });
  const t = await startTestSite({ store });
  try {
    const admin = await t.createUser('admin', 'administrator');
    for (const login of ['editor1', 'editor2', 'author1'])
      await t.createUser(login, login.startsWith('editor') ? 'editor' : 'author');
    const ok = async (method: string, url: string, body: Record<string, unknown>) => {
      const reply = await t.request(method, url, { as: admin, body });
      if (reply.status >= 300)
        throw new Error(`${method} ${url}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
      return reply.body as { id: number };
    };
    const categories: number[] = [];
    const tags: number[] = [];
    for (let i = 0; i < 20; i++)
      categories.push((await ok('POST', '/core/v2/categories', { name: `Category ${i}` })).id);
    for (let i = 0; i < 50; i++) tags.push((await ok('POST', '/core/v2/tags', { name: `Tag ${i}` })).id);
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      for (let i = next++; i < posts; i = next++) {
        const { title, content } = seedPostText(i);
        const post = await ok('POST', '/core/v2/posts', {
          title,
          content,
          status: 'publish',
          categories: [categories[i % categories.length]],
          tags: [tags[i % tags.length], tags[(i * 7) % tags.length]],
        });
        if (i % 3 === 0) await ok('POST', `/core/v2/posts/${post.id}`, { title: `${title} (revised)` });
        if (i % 5 === 0)
          await ok('POST', '/core/v2/comments', { post: post.id, content: `A comment on post ${i + 1}` });
        if ((i + 1) % 1000 === 0)
          process.stderr.write(
            `\r[bench] seeded ${i + 1} of ${posts} posts (${Math.round((i + 1) / ((performance.now() - started) / 1000))}/s)   `,
          );
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    process.stderr.write('\n');
    return await store.headPosition();
  } finally {
    await t.close();
    await store.close();
  }
}

async function parent(): Promise<void> {
  const posts = Number(options.posts);
  const rounds = Number(options.rounds);
  const dataDir = options.data ?? fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-rebuild-passes-'));
  fs.mkdirSync(dataDir, { recursive: true });
  let events: number;
  if (fs.existsSync(path.join(dataDir, 'events.sqlite'))) {
    const { openSqliteEventStore } = await import('../src/adapters/sqlite/eventStore');
    const store = openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') });
    events = await store.headPosition();
    await store.close();
    console.log(`log: ${dataDir}/events.sqlite, ${events} events (kept from an earlier run)`);
  } else {
    events = await seed(dataDir, posts);
    console.log(`log: ${dataDir}/events.sqlite, ${events} events (${posts} posts seeded)`);
  }
  const url = new URL(options['redis-url']!);
  url.pathname = `/${options['redis-db']}`;
  const prefix = `bench-rebuild-passes:${randomUUID()}:`;
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, REDIS_URL: url.toString(), REDIS_PREFIX: prefix };
  delete env.EVENTSTORE_URL;
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(url.toString(), { maxRetriesPerRequest: 2 });
  try {
    const first = await runChild('all', env);
    console.log(
      `read model built: ${first.projections} projections, ${(first.lastSwitchMs / 1000).toFixed(1)} s to the last switch`,
    );
    const content: Run[] = [];
    const all: Run[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const [which, runs] of [
        ['content', content],
        ['all', all],
      ] as const) {
        const before = await redisCpuMs(redis);
        const run = await runChild(which, env);
        run.redisCpuMs = Math.round((await redisCpuMs(redis)) - before);
        runs.push(run);
        console.log(
          `round ${round}: ${which === 'all' ? `all ${run.projections} projections` : 'content alone'}: ${(run.lastSwitchMs / 1000).toFixed(2)} s to the last switch, ${(run.totalMs / 1000).toFixed(2)} s in all; CPU ${(run.cpuMs / 1000).toFixed(2)} s, Redis ${(run.redisCpuMs / 1000).toFixed(2)} s`,
        );
      }
    }
    const pick = (runs: Run[], field: 'lastSwitchMs' | 'totalMs' | 'cpuMs' | 'redisCpuMs', how: 'median' | 'best') => {
      const sorted = runs.map((run) => run[field] ?? 0).sort((a, b) => a - b);
      return how === 'best' ? sorted[0]! : sorted[Math.floor(sorted.length / 2)]!;
    };
    const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log(
      `\n${events} events; best and median of ${rounds} alternated runs each (the machine's load moves wall times a lot; CPU times much less):`,
    );
    for (const how of ['best', 'median'] as const) {
      const line = (runs: Run[]) =>
        `${seconds(pick(runs, 'lastSwitchMs', how))} to the last switch (${Math.round(events / (pick(runs, 'lastSwitchMs', how) / 1000))} events/s), ${seconds(pick(runs, 'totalMs', how))} in all, CPU ${seconds(pick(runs, 'cpuMs', how))}, Redis CPU ${seconds(pick(runs, 'redisCpuMs', how))}`;
      console.log(`  ${how}: content alone: ${line(content)}`);
      console.log(`  ${how}: all ${all[0]!.projections} projections: ${line(all)}`);
      const ratio = (field: 'lastSwitchMs' | 'totalMs' | 'cpuMs') =>
        (pick(all, field, how) / pick(content, field, how)).toFixed(2);
      console.log(
        `  ${how}: ratio all / content: ${ratio('lastSwitchMs')} to the last switch, ${ratio('totalMs')} in all, ${ratio('cpuMs')} in CPU (target ≤ 1.5)`,
      );
    }
  } finally {
    let cursor = '0';
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = nextCursor;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
    redis.disconnect();
    if (options.data === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
