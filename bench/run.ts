/**
 * `npm run bench [-- options]`: the benchmark of the performance targets. Everything runs locally on 127.0.0.1, each server and
 * the load generator in its own process:
 *
 *  1. palimpsest (`node --import tsx src/main.ts`) on a fresh temporary DATA_DIR with the in-memory read model;
 *     an administrator made with `palimpsest user create`; N published posts seeded through the real command
 *     path (concurrent authenticated `POST /core/v2/posts`), then restarted to time the start-up replay;
 *  2. autocannon (bench/load.ts) against the reads, the writes, and a bare koa server answering the same bytes
 *     as the first list page (the ceiling);
 *  3. the same on a copy of the seeded log with the Redis read model (`palimpsest projections rebuild`, then
 *     the server), in a Redis database of its own whose keys it deletes at the end;
 *  4. the reads against the reference WordPress on 127.0.0.1:8081, when it answers;
 *  5. one table on stdout with the verdict on each target; the same, with the run's settings, written to
 *     bench/results/<UTC date and minute>Z.md (made on demand, not committed), and put in place of the one
 *     "Latest result" section of docs/performance.md, between its markers.
 *
 * Options: --posts N (10000) --duration S (10) --warmup S (2) --connections C (10) --scales 1000,10000,100000
 * --seed-concurrency C (10) --redis-url URL (redis://127.0.0.1:6379) --redis-db N (15) --skip-redis
 * --skip-memory (the in-memory server only seeds) --figures single,create,... (only those HTTP figures)
 * --skip-wordpress --no-docs (the result file only; docs/performance.md untouched), --no-response-cache (servers run with CACHES_OFF=responses: the pipeline's own
 * figures; by default the shared response cache is on, as the product runs, and each GET figure says how many of
 * its requests it answered), and --profile list,single,create,startup,rebuild,... [--profile-read-model redis]:
 * instead of the table, run those figures on a server started with `node --cpu-prof` and print where its time
 * went.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import Redis from 'ioredis';
import {
  ROOT,
  closeHttpAgent,
  freePort,
  killAllNow,
  request,
  rssMb,
  runNode,
  sleep,
  startNode,
  stop,
  stopAll,
  waitForLine,
} from './procs';
import type { Reply, Started } from './procs';
import type { LoadResult, LoadSpec } from './load';
import {
  emptyFigures,
  renderRun,
  renderTable,
  renderTargets,
  evaluateTargets,
  updateLatestInDocs,
  writeResultFile,
} from './report';
import type { BackendFigures, Cell, LoadedCell, RunResults, ScenarioKey } from './report';
import { summarizeProfile } from './profile';
import { PARAGRAPH, SEARCH_WORD, seedPostText } from './posts';

const { values: options } = parseArgs({
  options: {
    posts: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    scales: { type: 'string' },
    'seed-concurrency': { type: 'string', default: '10' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
    'redis-db': { type: 'string', default: '15' },
    'skip-redis': { type: 'boolean', default: false },
    'skip-memory': { type: 'boolean', default: false },
    figures: { type: 'string' },
    'skip-wordpress': { type: 'boolean', default: false },
    'no-docs': { type: 'boolean', default: false },
    'no-response-cache': { type: 'boolean', default: false },
    profile: { type: 'string' },
    'profile-read-model': { type: 'string', default: 'memory' },
  },
});

const positive = (name: string, value: string | undefined): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${value}"`);
  return n;
};

const POSTS = positive('posts', options.posts);
const DURATION = positive('duration', options.duration);
const WARMUP = Number(options.warmup ?? 2);
const CONNECTIONS = positive('connections', options.connections);
const SEED_CONCURRENCY = positive('seed-concurrency', options['seed-concurrency']);
const SCALES = [
  ...new Set([...(options.scales ? options.scales.split(',').map((s) => positive('scales', s.trim())) : []), POSTS]),
].sort((a, b) => a - b);
const REDIS_DB = Number(options['redis-db']);
const REDIS_URL = `${options['redis-url']!.replace(/\/\d*$/, '')}/${REDIS_DB}`;
/** The Redis read model's key prefix (src/bootstrap.ts). */
const REDIS_PREFIX = 'palimpsest:';
const WORDPRESS_PORT = 8081;
const DOCS = path.join(ROOT, 'docs', 'performance.md');
/** Where each run writes its result, one file per run (ignored by git). */
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
const READY = /palimpsest serving \S+ on \S+ \(ready in (\d+) ms(?:, (\d+) ms of it replaying the whole log)?/;
/** Off: every server runs without the shared response cache (src/http/responseCache.ts). */
const RESPONSE_CACHE = !options['no-response-cache'];

const LOAD_AT_START = os
  .loadavg()
  .map((n) => n.toFixed(1))
  .join(' ');
/** Written by a clean stop in DATA_DIR, loaded at start-up (src/readModel/memory/snapshot.ts). */
const READ_MODEL_SNAPSHOT = 'read-model.snapshot';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-bench-'));
let redisClient: Redis | null = null;
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const int = (n: number) => Math.round(n).toLocaleString('en-US');

// --- servers -------------------------------------------------------------------------------------------------

interface Server {
  started: Started;
  port: number;
  /** `replayMs`: of the server's "ready in", the replay of the whole log when it made one (src/main.ts). */
  startup: { ms: number; readyMs: number; replayMs: number | null };
}

async function startServer(
  name: string,
  dataDir: string,
  readModel: 'memory' | 'redis',
  nodeArgs: string[] = [],
): Promise<Server> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    SITE_URL: `http://127.0.0.1:${port}`,
  };
  delete env.REDIS_URL;
  delete env.EVENTSTORE_URL;
  if (readModel === 'redis') env.REDIS_URL = REDIS_URL;
  // The default cache budget (src/caches/budget.ts), with the response cache alone switched off when asked.
  delete env.CACHE_MEMORY_MB;
  if (RESPONSE_CACHE) delete env.CACHES_OFF;
  else env.CACHES_OFF = 'responses';
  // As `npm start` runs it: the compiled sources on plain node (bin/build.js builds them when they changed).
  const started = startNode(name, 'bin/palimpsest.js', { args: ['serve'], env, nodeArgs });
  const { match, ms } = await waitForLine(started, READY, 600_000);
  return {
    started,
    port,
    startup: { ms, readyMs: Number(match[1]), replayMs: match[2] === undefined ? null : Number(match[2]) },
  };
}

function cliEnv(dataDir: string, readModel: 'memory' | 'redis'): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.REDIS_URL;
  delete env.EVENTSTORE_URL;
  if (readModel === 'redis') env.REDIS_URL = REDIS_URL;
  return env;
}

async function createAdmin(dataDir: string): Promise<string> {
  const out = await runNode(
    'palimpsest user create',
    'bin/palimpsest.js',
    ['user', 'create', '--login', 'admin', '--role', 'administrator', '--json'],
    cliEnv(dataDir, 'memory'),
    60_000,
  );
  const { username, app_password } = JSON.parse(out.trim().split('\n').pop()!) as {
    username: string;
    app_password: string;
  };
  return `Basic ${Buffer.from(`${username}:${app_password}`).toString('base64')}`;
}

/** Waits until the server knows the administrator (the CLI's events reach it through the shared log). */
async function waitForAuth(port: number, auth: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const reply = await request(port, 'GET', '/core/v2/posts?context=edit&per_page=1', { auth });
    if (reply.status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`the administrator cannot authenticate: ${reply.status} ${reply.body.slice(0, 200)}`);
    await sleep(100);
  }
}

/** bench/replayFloor.ts on a stopped server's log, in its own process. */
async function replayFloor(dataDir: string): Promise<{ eventsPerSecond: number; firstMs: number; passesMs: number[] }> {
  const out = await runNode('replay floor', 'bench/replayFloor.ts', [dataDir], process.env, 600_000);
  return JSON.parse(out.trim().split('\n').pop()!) as { eventsPerSecond: number; firstMs: number; passesMs: number[] };
}

/** Event count of a stopped server's log. */
function countEvents(dataDir: string): number {
  const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

// --- seeding -------------------------------------------------------------------------------------------------

interface Features {
  categories: number[];
  tags: number[];
  filtered: string | null;
  search: string | null;
}

/** Which of the list parameters this build implements: the index must list them and the term routes exist. */
async function probeFeatures(port: number, auth: string): Promise<Features> {
  const index = await request(port, 'GET', '/core/v2');
  const routes =
    (
      JSON.parse(index.body) as {
        routes?: Record<string, { endpoints: { methods: string[]; args: Record<string, unknown> }[] }>;
      }
    ).routes ?? {};
  const listArgs = routes['/core/v2/posts']?.endpoints.find((e) => e.methods.includes('GET'))?.args ?? {};
  const features: Features = { categories: [], tags: [], filtered: null, search: null };
  features.search = 'search' in listArgs ? null : 'not implemented';
  const termRoutes = '/core/v2/categories' in routes && '/core/v2/tags' in routes;
  if (!['categories', 'tags', 'after'].every((arg) => arg in listArgs) || !termRoutes) {
    features.filtered = 'not implemented';
    return features;
  }
  for (const [base, count, into] of [
    ['categories', 10, features.categories],
    ['tags', 7, features.tags],
  ] as const) {
    for (let k = 1; k <= count; k++) {
      const reply = await request(port, 'POST', `/core/v2/${base}`, { body: { name: `Bench ${base} ${k}` }, auth });
      if (reply.status !== 201) {
        features.filtered = `creating ${base} answered ${reply.status}`;
        return features;
      }
      into.push((JSON.parse(reply.body) as { id: number }).id);
    }
  }
  return features;
}

const SEED_BASE = Date.UTC(2020, 0, 1);
/** Post i is dated ten minutes after post i-1 (all in the past, so all published). */
const seedDate = (i: number) => new Date(SEED_BASE + i * 600_000).toISOString().slice(0, 19);
function seedPost(i: number, features: Features): Record<string, unknown> {
  const post: Record<string, unknown> = {
    ...seedPostText(i),
    status: 'publish',
    date: seedDate(i),
  };
  if (features.categories.length > 0) {
    post.categories = [features.categories[i % features.categories.length]];
    post.tags = [features.tags[i % features.tags.length]];
  }
  return post;
}

/** Creates posts from..to-1 with `concurrency` requests in flight; returns their ids in order. */
async function seed(port: number, auth: string, from: number, to: number, features: Features): Promise<number[]> {
  const ids: number[] = new Array(to - from);
  let next = from;
  let failure: Error | null = null;
  const started = performance.now();
  let done = 0;
  const worker = async () => {
    while (next < to && failure === null) {
      const i = next++;
      const reply = await request(port, 'POST', '/core/v2/posts', { body: seedPost(i, features), auth });
      if (reply.status !== 201) {
        failure = new Error(`seeding post ${i + 1}: ${reply.status} ${reply.body.slice(0, 300)}`);
        return;
      }
      ids[i - from] = (JSON.parse(reply.body) as { id: number }).id;
      if (++done % 1000 === 0)
        process.stderr.write(
          `\r[bench] seeded ${int(from + done)} of ${int(to)} (${int(done / ((performance.now() - started) / 1000))}/s)   `,
        );
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  process.stderr.write('\n');
  if (failure) throw failure;
  return ids;
}

// --- load ----------------------------------------------------------------------------------------------------

async function load(
  spec: Omit<LoadSpec, 'connections' | 'durationSeconds' | 'warmupSeconds'>,
  durationSeconds = DURATION,
): Promise<LoadResult> {
  const full: LoadSpec = { ...spec, connections: CONNECTIONS, durationSeconds, warmupSeconds: WARMUP };
  // Through a file: ten thousand paths do not fit in an argument list.
  const specFile = path.join(tmp, 'load-spec.json');
  fs.writeFileSync(specFile, JSON.stringify(full));
  const out = await runNode(
    'autocannon',
    'bench/load.ts',
    [specFile],
    process.env,
    (durationSeconds + WARMUP) * 1000 + 120_000,
  );
  return JSON.parse(out.trim().split('\n').pop()!) as LoadResult;
}

interface Target {
  port: number;
  /** `/core/v2` or `/wp-json/wp/v2`. */
  base: string;
  ids: number[];
  auth: string | null;
  posts: number;
  features: Features;
  /** Value of `after` for the filtered list: half the posts are newer. */
  after: string;
}

const pageOf = (posts: number) => Math.max(1, Math.min(500, Math.floor(posts / 10)));

function labels(posts: number): Record<ScenarioKey, string> {
  return {
    list: 'GET /core/v2/posts',
    list100: '?per_page=100',
    page500: `?page=${pageOf(posts)}`,
    filtered: '?categories=…&tags=…&after=… (filtered list)',
    search: `?search=${SEARCH_WORD} (1% of posts)`,
    single: 'GET /core/v2/posts/{id} (random id)',
    embed: '?_embed',
    create: 'POST /core/v2/posts (authenticated, answers once projected)',
    patch: 'PATCH /core/v2/posts/{id} (title, random id)',
  };
}

/** The request of a figure, or why it has none on this target. */
async function requestFor(
  key: ScenarioKey,
  t: Target,
): Promise<Omit<LoadSpec, 'connections' | 'durationSeconds' | 'warmupSeconds'> | { na: string }> {
  const get = (p: string) => ({ port: t.port, method: 'GET' as const, paths: [`${t.base}${p}`] });
  switch (key) {
    case 'list':
      return get('/posts');
    case 'list100':
      return get('/posts?per_page=100');
    case 'page500': {
      // The same page on every target: a target with fewer posts has no such page.
      const page = pageOf(POSTS);
      if (t.posts < page * 10 - 9) return { na: `only ${t.posts} post${t.posts === 1 ? '' : 's'}` };
      return get(`/posts?page=${page}`);
    }
    case 'filtered': {
      if (t.features.filtered) return { na: t.features.filtered };
      const query = `/posts?categories=${t.features.categories[3 % t.features.categories.length]}&tags=${t.features.tags[5 % t.features.tags.length]}&after=${t.after}`;
      return get(query);
    }
    case 'search': {
      if (t.features.search) return { na: t.features.search };
      return get(`/posts?search=${SEARCH_WORD}`);
    }
    case 'single':
      return { port: t.port, method: 'GET', paths: t.ids.map((id) => `${t.base}/posts/${id}`) };
    case 'embed':
      return get('/posts?_embed');
    case 'create':
      if (!t.auth) return { na: 'not run against the shared reference' };
      return {
        port: t.port,
        method: 'POST',
        paths: [`${t.base}/posts`],
        headers: { authorization: t.auth },
        body: JSON.stringify({
          title: 'Bench create {n}',
          content: `<!-- wp:paragraph -->\n<p>${PARAGRAPH}</p>\n<!-- /wp:paragraph -->`,
          status: 'publish',
        }),
      };
    case 'patch':
      if (!t.auth) return { na: 'not run against the shared reference' };
      return {
        port: t.port,
        method: 'PATCH',
        paths: t.ids.map((id) => `${t.base}/posts/${id}`),
        headers: { authorization: t.auth },
        body: JSON.stringify({ title: 'Bench edit {n}' }),
      };
  }
}

/** Checks a filtered figure would measure real filtering: a build that ignores the parameter is n/a. */
async function expectTotal(t: Target, query: string, expected: number): Promise<string | null> {
  const reply = await request(t.port, 'GET', `${t.base}/posts${query}`);
  const total = Number(reply.headers['x-wp-total']);
  if (reply.status !== 200) return `answers ${reply.status}`;
  return total === expected ? null : `answers ${total} posts where ${expected} match; not filtering`;
}

async function measure(
  keys: ScenarioKey[],
  t: Target,
  into: Partial<Record<ScenarioKey, Cell>>,
  who: string,
): Promise<void> {
  for (const key of keys) {
    const spec = await requestFor(key, t);
    if ('na' in spec) {
      into[key] = spec;
      continue;
    }
    if (spec.method === 'GET') {
      const probe = await request(t.port, 'GET', spec.paths[0]!);
      if (probe.status !== 200) {
        into[key] = { na: probe.status === 400 ? 'not implemented' : `answers ${probe.status}` };
        continue;
      }
    }
    log(`${who}: ${key} (${spec.method} ${spec.paths.length === 1 ? spec.paths[0] : `${spec.paths.length} paths`})`);
    const cacheBefore = spec.method === 'GET' ? await cacheCounts(t.port) : null;
    const result: LoadedCell = await load(spec);
    const cacheAfter = cacheBefore ? await cacheCounts(t.port) : null;
    if (cacheBefore && cacheAfter) {
      const hits = cacheAfter.hits - cacheBefore.hits;
      const looked = hits + cacheAfter.misses - cacheBefore.misses;
      result.fromCache = looked > 0 ? hits / looked : 0;
    }
    into[key] = result;
    const cached =
      result.fromCache === undefined
        ? ''
        : `, ${(result.fromCache * 100).toFixed(0)}% from the response cache (warm-up included)`;
    log(
      `  ${int(result.requestsPerSecond)}/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms${cached}${result.non2xx + result.errors > 0 ? `, ${result.non2xx} non-2xx, ${result.errors} errors` : ''}`,
    );
  }
}

/** The response cache's hit and miss counters from /metrics; null when the server has none (cache off, or not palimpsest). */
async function cacheCounts(port: number): Promise<{ hits: number; misses: number } | null> {
  const reply = await request(port, 'GET', '/metrics').catch(() => null);
  if (reply?.status !== 200) return null;
  const count = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(reply.body)?.[1] ?? Number.NaN);
  const hits = count('palimpsest_response_cache_hits_total');
  const misses = count('palimpsest_response_cache_misses_total');
  return Number.isNaN(hits) || Number.isNaN(misses) ? null : { hits, misses };
}

/** A create, then at once the item and the first list page: both must show it. */
async function checkReadYourWrites(t: Target): Promise<string> {
  let failures = 0;
  for (let k = 0; k < 20; k++) {
    const reply = await request(t.port, 'POST', `${t.base}/posts`, {
      body: { title: `Read back ${k}`, status: 'publish' },
      auth: t.auth!,
    });
    const id = (JSON.parse(reply.body) as { id: number }).id;
    const [item, list] = await Promise.all([
      request(t.port, 'GET', `${t.base}/posts/${id}`),
      request(t.port, 'GET', `${t.base}/posts?per_page=1`),
    ]);
    if (reply.status !== 201 || item.status !== 200 || (JSON.parse(list.body) as { id: number }[])[0]?.id !== id)
      failures++;
  }
  return failures === 0 ? '20 of 20 read back' : `${failures} of 20 NOT read back`;
}

// --- phases --------------------------------------------------------------------------------------------------

/** --figures: the HTTP figures to take (all by default); the ceiling is always taken. */
const FIGURES = options.figures ? new Set(options.figures.split(',').map((f) => f.trim())) : null;
const chosen = (keys: ScenarioKey[]) => (FIGURES ? keys.filter((key) => FIGURES.has(key)) : keys);
const READS: ScenarioKey[] = chosen(['list', 'list100', 'page500', 'filtered', 'search', 'single', 'embed']);
const WRITES: ScenarioKey[] = chosen(['create', 'patch']);
const SCALED = chosen(['list', 'single']);
/** --skip-memory: the in-memory server seeds the log (and gives the ceiling its body) but takes no figure. */
const SKIP_MEMORY = options['skip-memory'] === true;

interface Seeded {
  auth: string;
  features: Features;
  ids: number[];
  /** Copies of the log (and auth secret) at each scale. */
  snapshots: Map<number, string>;
  seconds: number;
  ceilingBody: string;
}

function targetAt(port: number, seeded: Pick<Seeded, 'auth' | 'features' | 'ids'>, posts: number): Target {
  return {
    port,
    base: '/core/v2',
    ids: seeded.ids.slice(0, posts),
    auth: seeded.auth,
    posts,
    features: seeded.features,
    after: seedDate(Math.floor(posts / 2)),
  };
}

/** Checks search and filters really filter at this scale; turns their figures into n/a when they do not. */
async function guardFilters(t: Target): Promise<Features> {
  const features = { ...t.features };
  const indices = Array.from({ length: t.posts }, (_, i) => i);
  if (!features.search)
    features.search = await expectTotal(t, `?search=${SEARCH_WORD}`, indices.filter((i) => i % 100 === 0).length);
  if (!features.filtered) {
    const c = 3 % features.categories.length;
    const g = 5 % features.tags.length;
    const half = Math.floor(t.posts / 2);
    const expected = indices.filter(
      (i) => i % features.categories.length === c && i % features.tags.length === g && i > half,
    ).length;
    features.filtered = await expectTotal(
      t,
      `?categories=${features.categories[c]}&tags=${features.tags[g]}&after=${t.after}`,
      expected,
    );
  }
  return features;
}

async function memoryPhase(figures: BackendFigures): Promise<Seeded> {
  const dataDir = path.join(tmp, 'memory');
  let server = await startServer('palimpsest (memory)', dataDir, 'memory');
  const auth = await createAdmin(dataDir);
  await waitForAuth(server.port, auth);
  const features = await probeFeatures(server.port, auth);
  const seeded: Seeded = { auth, features, ids: [], snapshots: new Map(), seconds: 0, ceilingBody: '' };
  for (const scale of SCALES) {
    log(`in-memory read model: seeding to ${int(scale)} posts`);
    const seedStart = performance.now();
    seeded.ids.push(...(await seed(server.port, auth, seeded.ids.length, scale, features)));
    seeded.seconds += (performance.now() - seedStart) / 1000;
    figures.rssAfterSeeding.set(scale, rssMb(server.started.proc.pid));

    if (SKIP_MEMORY && scale === POSTS) seeded.ceilingBody = (await request(server.port, 'GET', '/core/v2/posts')).body;
    await stop(server.started);
    const snapshot = path.join(tmp, `log-${scale}`);
    fs.cpSync(dataDir, snapshot, { recursive: true });
    seeded.snapshots.set(scale, snapshot);
    if (SKIP_MEMORY) {
      // Only the log is wanted: the next scale grows it from where this one stopped.
      if (scale !== SCALES[SCALES.length - 1]) {
        server = await startServer('palimpsest (memory)', dataDir, 'memory');
        await waitForAuth(server.port, auth);
      }
      continue;
    }
    const events = countEvents(dataDir);
    const floor = await replayFloor(dataDir);
    log(
      `  replay floor: ${int(floor.eventsPerSecond)} events/s (best of ${floor.passesMs.length} passes, the first in ${int(floor.firstMs)} ms)`,
    );
    // The rebuild figure is a start-up without the read-model snapshot the clean stop wrote: the whole log replayed.
    fs.rmSync(path.join(dataDir, READ_MODEL_SNAPSHOT), { force: true });
    server = await startServer('palimpsest (memory)', dataDir, 'memory');
    // The replay's own time, as the Redis figure is the rebuild's own; a build that does not report it, the whole start.
    const { readyMs, replayMs } = server.startup;
    const rebuildMs = replayMs ?? readyMs;
    figures.rebuild.set(scale, {
      events,
      eventsPerSecond: events / (Math.max(rebuildMs, 1) / 1000),
      how:
        replayMs === null
          ? `start-up replay of ${int(events)} events; ready in ${int(readyMs)} ms`
          : `start-up replay of ${int(events)} events in ${int(replayMs)} ms; ready in ${int(readyMs)} ms`,
      bound: {
        eventsPerSecond: floor.eventsPerSecond,
        what: `floor: reading the log and a JSON round trip of each event, nothing else, best of ${floor.passesMs.length} passes (bench/replayFloor.ts; its first, cold pass ${int(events / (floor.firstMs / 1000))}/s)`,
      },
    });
    log(
      `  restarted in ${int(server.startup.ms)} ms (server: ${readyMs} ms, replay ${replayMs ?? '?'} ms) replaying ${int(events)} events`,
    );
    // The start-up figure is the usual one: after a clean stop, from the snapshot it wrote, caught up from the log.
    await stop(server.started);
    const withSnapshot = fs.existsSync(path.join(dataDir, READ_MODEL_SNAPSHOT));
    server = await startServer('palimpsest (memory)', dataDir, 'memory');
    figures.startup.set(scale, { ...server.startup, events, snapshot: withSnapshot });
    log(
      `  restarted in ${int(server.startup.ms)} ms (server: ${server.startup.readyMs} ms) ${withSnapshot ? 'from its read-model snapshot' : 'replaying the log'}`,
    );
    await waitForAuth(server.port, auth);

    const t = targetAt(server.port, seeded, scale);
    t.features = await guardFilters(t);
    if (scale === POSTS) {
      seeded.ceilingBody = (await request(server.port, 'GET', '/core/v2/posts')).body;
      await measure(READS, t, figures.http, `memory, ${int(scale)} posts`);
      figures.scaled.set(scale, { list: figures.http.list!, single: figures.http.single! });
    } else {
      const cells: Partial<Record<ScenarioKey, Cell>> = {};
      await measure(SCALED, t, cells, `memory, ${int(scale)} posts`);
      figures.scaled.set(scale, { list: cells.list!, single: cells.single! });
    }
    figures.rssAfterReads.set(scale, rssMb(server.started.proc.pid));
    if (scale === POSTS) {
      await measure(WRITES, t, figures.http, `memory, ${int(scale)} posts`);
      figures.readYourWrites = await checkReadYourWrites(t);
      // Later scales grow the log as seeded, without the posts the write figures added.
      await stop(server.started);
      fs.rmSync(dataDir, { recursive: true });
      fs.cpSync(snapshot, dataDir, { recursive: true });
      server = await startServer('palimpsest (memory)', dataDir, 'memory');
      await waitForAuth(server.port, auth);
    }
  }
  if (!SKIP_MEMORY) await stop(server.started);
  return seeded;
}

async function ceilingPhase(body: string): Promise<Cell> {
  const file = path.join(tmp, 'ceiling-body.json');
  fs.writeFileSync(file, body);
  const port = await freePort();
  const started = startNode('ceiling', 'bench/ceiling.ts', {
    env: { ...process.env, PORT: String(port), BODY_FILE: file },
  });
  try {
    await waitForLine(started, /ceiling serving/, 60_000);
    const cells: Partial<Record<ScenarioKey, Cell>> = {};
    log('ceiling: bare koa');
    await measure(
      ['list'],
      {
        port,
        base: '/core/v2',
        ids: [],
        auth: null,
        posts: POSTS,
        features: { categories: [], tags: [], filtered: 'n/a', search: 'n/a' },
        after: '',
      },
      cells,
      'ceiling',
    );
    return cells.list!;
  } finally {
    await stop(started);
  }
}

async function redisAvailable(): Promise<string | null> {
  try {
    redisClient = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    await redisClient.connect();
    const [, keys] = await redisClient.scan('0', 'MATCH', `${REDIS_PREFIX}*`, 'COUNT', 1000);
    if (keys.length > 0)
      return `Redis database ${REDIS_DB} already holds ${REDIS_PREFIX}* keys; pick another with --redis-db`;
    return null;
  } catch (error) {
    redisClient?.disconnect();
    redisClient = null;
    return `no Redis at ${REDIS_URL} (${error instanceof Error ? error.message : error})`;
  }
}

async function clearRedis(): Promise<void> {
  if (!redisClient) return;
  // Keys hold binary sort encodings: scan and delete them as bytes, not as (lossy) strings.
  let cursor = '0';
  do {
    const [next, keys] = await redisClient.scanBuffer(cursor, 'MATCH', `${REDIS_PREFIX}*`, 'COUNT', 1000);
    if (keys.length > 0) await redisClient.unlink(...keys);
    cursor = String(next);
  } while (cursor !== '0');
}

async function redisPhase(figures: BackendFigures, seeded: Seeded): Promise<void> {
  for (const scale of SCALES) {
    const dataDir = seeded.snapshots.get(scale)!;
    await clearRedis();
    log(`Redis read model, ${int(scale)} posts: palimpsest projections rebuild`);
    const started = performance.now();
    const out = await runNode(
      'palimpsest projections rebuild',
      'bench/rebuild.ts',
      [],
      cliEnv(dataDir, 'redis'),
      1_800_000,
    );
    const wall = (performance.now() - started) / 1000;
    const lines = [...out.matchAll(/^(\S+): (\d+) events replayed at (\d+) events\/s$/gm)];
    const content = lines.find((m) => m[1] === 'content') ?? lines[0];
    if (!content) throw new Error(`unexpected rebuild output: ${out}`);
    const events = Number(content[2]);
    // Redis's own CPU for the one-pass rebuild until content, the first projection, was switched in (bench/rebuild.ts).
    const redisCpu = new RegExp(`^redis-cpu ${content[1]} ([\\d.]+)$`, 'm').exec(out);
    const redisSeconds = content === lines[0] && redisCpu ? Number(redisCpu[1]) : null;
    figures.rebuild.set(scale, {
      events,
      eventsPerSecond: Number(content[3]),
      how: `projections rebuild: ${lines.map((m) => `${m[1]} ${int(Number(m[3]))}/s`).join(', ')}; ${wall.toFixed(1)} s in all`,
      bound:
        redisSeconds !== null && redisSeconds > 0
          ? {
              eventsPerSecond: events / redisSeconds,
              what: `Redis's own CPU for the rebuild until ${content[1]}'s switch, ${redisSeconds.toFixed(2)} s (${((redisSeconds / events) * 1e6).toFixed(1)} µs per event): no client could rebuild faster`,
            }
          : undefined,
    });
    const events0 = countEvents(dataDir);
    const server = await startServer('palimpsest (redis)', dataDir, 'redis');
    figures.startup.set(scale, { ...server.startup, events: events0 });
    try {
      await waitForAuth(server.port, seeded.auth);
      const t = targetAt(server.port, seeded, scale);
      t.features = await guardFilters(t);
      if (scale === POSTS) {
        await measure(READS, t, figures.http, `redis, ${int(scale)} posts`);
        figures.scaled.set(scale, { list: figures.http.list!, single: figures.http.single! });
        figures.rssAfterReads.set(scale, rssMb(server.started.proc.pid));
        await measure(WRITES, t, figures.http, `redis, ${int(scale)} posts`);
        figures.readYourWrites = await checkReadYourWrites(t);
      } else {
        const cells: Partial<Record<ScenarioKey, Cell>> = {};
        await measure(SCALED, t, cells, `redis, ${int(scale)} posts`);
        figures.scaled.set(scale, { list: cells.list!, single: cells.single! });
        figures.rssAfterReads.set(scale, rssMb(server.started.proc.pid));
      }
    } finally {
      await stop(server.started);
    }
  }
  await clearRedis();
}

async function wordpressPhase(): Promise<RunResults['wordpress']> {
  let list: Reply;
  try {
    list = await request(WORDPRESS_PORT, 'GET', '/wp-json/wp/v2/posts?per_page=100', { timeoutMs: 5000 });
  } catch {
    return { na: 'nothing answers on 127.0.0.1:8081' };
  }
  if (list.status !== 200) return { na: `127.0.0.1:8081 answers ${list.status}` };
  const posts = Number(list.headers['x-wp-total']);
  const ids = (JSON.parse(list.body) as { id: number }[]).map((p) => p.id);
  const http: Partial<Record<ScenarioKey, Cell>> = {};
  const features: Features = { categories: [1], tags: [1], filtered: null, search: null };
  await measure(
    [...READS, ...WRITES],
    { port: WORDPRESS_PORT, base: '/wp-json/wp/v2', ids, auth: null, posts, features, after: seedDate(0) },
    http,
    'WordPress',
  );
  return { http, posts };
}

function machine(): string {
  const cpus = os.cpus();
  const memory = `${(os.totalmem() / 2 ** 30).toFixed(1)} GB`;
  // The load average tells whether other work shared the machine during the run.
  const load = os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${memory} memory, ${os.type()} ${os.release()}, node ${process.version}; load average ${LOAD_AT_START} at the start, ${load} at the end`;
}

/** The server's thread-0 profile in `dir` (one profile per thread: tsx's module loader runs in a worker). */
function mainThreadProfile(dir: string): string {
  const file = fs.readdirSync(dir).find((f) => /\.0\.\d+\.cpuprofile$/.test(f));
  if (!file) throw new Error(`no profile written in ${dir}`);
  return path.join(dir, file);
}

/**
 * Seeds N posts, then profiles each named figure on a fresh server under `node --cpu-prof`. Besides the load
 * figures, `startup` profiles the start-up replay of the log, and `rebuild` `palimpsest projections rebuild`
 * (into Redis with --profile-read-model redis).
 */
async function profileMode(): Promise<void> {
  const keys = options.profile!.split(',').map((k) => k.trim());
  const readModel = options['profile-read-model'] === 'redis' ? 'redis' : 'memory';
  const dir = path.join(os.tmpdir(), `palimpsest-profiles-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  fs.mkdirSync(dir, { recursive: true });
  const dataDir = path.join(tmp, 'memory');
  const first = await startServer('palimpsest (memory)', dataDir, 'memory');
  const auth = await createAdmin(dataDir);
  await waitForAuth(first.port, auth);
  const features = await probeFeatures(first.port, auth);
  const ids = await seed(first.port, auth, 0, POSTS, features);
  await stop(first.started);
  if (readModel === 'redis') {
    const problem = await redisAvailable();
    if (problem) throw new Error(problem);
    await runNode('palimpsest projections rebuild', 'bench/rebuild.ts', [], cliEnv(dataDir, 'redis'), 1_800_000);
  }
  for (const key of keys) {
    const profileDir = path.join(dir, key);
    const profiling = ['--cpu-prof', '--cpu-prof-dir', profileDir];
    if (key === 'rebuild') {
      const started = performance.now();
      await runNode(
        'palimpsest projections rebuild',
        'bench/rebuild.ts',
        [],
        cliEnv(dataDir, readModel),
        1_800_000,
        profiling,
      );
      console.log(
        `\n### rebuild (${readModel}): ${int(performance.now() - started)} ms\n${summarizeProfile(mainThreadProfile(profileDir), Number.POSITIVE_INFINITY)}`,
      );
      continue;
    }
    // `startup` profiles the replay of the whole log, not the load of the snapshot the last clean stop wrote.
    if (key === 'startup') fs.rmSync(path.join(dataDir, READ_MODEL_SNAPSHOT), { force: true });
    const server = await startServer(`palimpsest (${readModel}, profiled)`, dataDir, readModel, profiling);
    if (key === 'startup') {
      await stop(server.started);
      console.log(
        `\n### startup (${readModel}): ready in ${server.startup.readyMs} ms\n${summarizeProfile(mainThreadProfile(profileDir), Number.POSITIVE_INFINITY)}`,
      );
      continue;
    }
    const cells: Partial<Record<ScenarioKey, Cell>> = {};
    try {
      await waitForAuth(server.port, auth);
      const t = targetAt(server.port, { auth, features, ids }, POSTS);
      t.features = await guardFilters(t);
      await measure([key as ScenarioKey], t, cells, `profile ${readModel}`);
    } finally {
      await stop(server.started);
    }
    console.log(
      `\n### ${key} (${readModel}): ${cellTextPlain(cells[key as ScenarioKey])}\n${summarizeProfile(mainThreadProfile(profileDir), DURATION)}`,
    );
  }
  if (readModel === 'redis') await clearRedis();
  console.log(`\nprofiles kept in ${dir} (open them in Chrome DevTools or speedscope)`);
}

const cellTextPlain = (cell: Cell | undefined) =>
  !cell
    ? '–'
    : 'na' in cell
      ? `n/a (${cell.na})`
      : `${int(cell.requestsPerSecond)}/s, p50 ${cell.p50.toFixed(2)} ms, p99 ${cell.p99.toFixed(2)} ms`;

async function main(): Promise<void> {
  if (options.profile) return profileMode();
  const date = new Date();
  log(
    `${int(POSTS)} posts, scales ${SCALES.map(int).join(', ')}; ${DURATION} s per figure after ${WARMUP} s warm-up, ${CONNECTIONS} connections; work dir ${tmp}`,
  );
  const memory = emptyFigures();
  const seeded = await memoryPhase(memory);
  const ceiling = await ceilingPhase(seeded.ceilingBody);

  let redis: BackendFigures | { na: string };
  const redisProblem = options['skip-redis'] ? 'skipped' : await redisAvailable();
  if (redisProblem) redis = { na: redisProblem };
  else {
    redis = emptyFigures();
    await redisPhase(redis, seeded);
  }
  const wordpress = options['skip-wordpress'] ? { na: 'skipped' } : await wordpressPhase();

  const results: RunResults = {
    date,
    machine: `${machine()}${redisClient ? `, Redis ${(await redisClient.info('server')).match(/redis_version:(\S+)/)?.[1] ?? '?'}` : ''}`,
    posts: POSTS,
    scales: SCALES,
    durationSeconds: DURATION,
    warmupSeconds: WARMUP,
    connections: CONNECTIONS,
    seeding: { posts: SCALES[SCALES.length - 1]!, seconds: seeded.seconds, concurrency: SEED_CONCURRENCY },
    ceiling,
    ceilingBytes: Buffer.byteLength(seeded.ceilingBody),
    responseCache: RESPONSE_CACHE,
    labels: labels(POSTS),
    memory,
    redis,
    wordpress,
  };
  console.log(`\n${renderTable(results)}\n\n${renderTargets(evaluateTargets(results))}`);
  const section = renderRun(results);
  log(`written to ${path.relative(ROOT, writeResultFile(RESULTS_DIR, results.date, section))}`);
  if (!options['no-docs']) {
    updateLatestInDocs(DOCS, section);
    log(`"Latest result" of ${path.relative(ROOT, DOCS)} replaced`);
  }
}

let cleaning: Promise<void> | null = null;
const cleanup = () =>
  (cleaning ??= (async () => {
    await stopAll();
    try {
      await clearRedis();
    } catch {
      // Redis gone: nothing of ours is left in it that a flush could reach anyway.
    }
    redisClient?.disconnect();
    closeHttpAgent();
    fs.rmSync(tmp, { recursive: true, force: true });
  })());

process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping everything`);
    void cleanup().finally(() => process.exit(130));
  });
}

main()
  .then(cleanup)
  .catch(async (error) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    await cleanup();
    process.exitCode = 1;
  });
