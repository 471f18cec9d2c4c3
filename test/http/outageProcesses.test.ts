/**
 * Outages of the dependencies with real processes: API nodes and projectors (`bin/palimpsest.js`) on a redis-server
 * of the test's own, paused with SIGSTOP (connections stay open and nothing answers) or not there at all, and on the
 * test EventStoreDB node behind a proxy that stops forwarding. Requests answer 503 with Retry-After within the
 * configured timeouts instead of hanging or answering 500, a committed write says so, outages are logged once, and
 * SIGTERM ends a process in every such state. Every wait is bounded; nothing is timed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { startOwnRedis } from '../support/redisServer';
import type { OwnRedis } from '../support/redisServer';
import { startStallingProxy } from '../support/stallingProxy';
import { startFakeEventStoreDb } from '../support/esdb/server';
import { ROOT, eventually, freePort, kill9, sharedRedisEnv, startPalimpsest } from '../support/processes';
import type { Running } from '../support/processes';

const test = suite('outages with real processes');

const SECRET = 'outage-test-secret';
/** Short timeouts, so that each outage is seen quickly. */
const TIMEOUTS = {
  REDIS_COMMAND_TIMEOUT_MS: '1000',
  REDIS_CONNECT_TIMEOUT_MS: '1000',
  EVENT_STORE_TIMEOUT_MS: '1000',
  PROJECTOR_LEASE_MS: '1500',
};

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-outage-'));

/** Resolves with how the process ended; fails (and kills it) if it has not ended within `boundMs`. */
async function exitOf(
  child: ChildProcess,
  boundMs = 30_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the process did not end within ${boundMs} ms`));
    }, boundMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

async function createAdmin(env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['bin/palimpsest.js', 'user', 'create', '--login', 'admin', '--role', 'administrator', '--json'],
    {
      cwd: ROOT,
      env: { ...env, PORT: '0' },
      timeout: 60_000,
    },
  );
  const { app_password } = JSON.parse(stdout.trim()) as { app_password: string };
  return `Basic ${Buffer.from(`admin:${app_password}`).toString('base64')}`;
}

/** Sends a request with a generous bound (a hanging answer fails the test instead of holding it). */
async function send(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

const postJson = (base: string, auth: string, body: unknown) =>
  send(`${base}/core/v2/posts`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The PostCreated events in the embedded log, read on a connection of the test's own. */
function postsCreated(dataDir: string): { position: number; id: number }[] {
  const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT position, data FROM events WHERE type = 'PostCreated' ORDER BY position").all() as {
      position: number;
      data: string;
    }[];
    return rows.map((row) => ({ position: row.position, id: (JSON.parse(row.data) as { id: number }).id }));
  } finally {
    db.close();
  }
}

const count = (text: string, pattern: RegExp) => (text.match(new RegExp(pattern, 'g')) ?? []).length;

function assertOutage(response: { status: number; headers: Headers; body: any; text: string }, what: string): void {
  assert.is(response.status, 503, `${what}: ${response.text}`);
  assert.is(response.headers.get('retry-after'), '5', what);
  assert.is(response.body?.code, 'rest_service_unavailable', what);
  assert.is(response.body?.data?.status, 503, what);
}

async function stopAll(running: Running[], redis: OwnRedis | null): Promise<void> {
  for (const process of running) await kill9(process);
  await redis?.stop();
}

test('Redis paused: an API node answers 503 with Retry-After, logs the outage once, recovers, and stops on SIGTERM', async () => {
  const redis = await startOwnRedis();
  const dataDir = tempDir();
  const env = { ...sharedRedisEnv(dataDir, 'outage:', redis.url, SECRET), ...TIMEOUTS };
  const running: Running[] = [];
  try {
    const projector = await startPalimpsest(
      ['projector'],
      { ...env, PORT: String(await freePort()) },
      'palimpsest projector running',
    );
    running.push(projector);
    const node = await startPalimpsest(
      ['serve', '--no-projector'],
      { ...env, PORT: String(await freePort()) },
      'palimpsest serving',
    );
    running.push(node);
    const auth = await createAdmin(env);
    assert.is((await postJson(node.base, auth, { title: 'Before', status: 'publish' })).status, 201);

    redis.pause();
    assertOutage(await send(`${node.base}/core/v2/posts`), 'a list');
    const refused = await postJson(node.base, auth, { title: 'During', status: 'publish' });
    assertOutage(refused, 'a write');
    // Signing in needs Redis: the write got nowhere, and says so by saying no outcome.
    assert.is(refused.body.data.outcome, undefined);
    assert.equal(postsCreated(dataDir).length, 1, 'nothing of the refused write is in the log');
    const ready = await send(`${node.base}/readyz`);
    assert.is(ready.status, 503, 'not ready while Redis does not answer');
    await eventually(
      'the node logging the outage',
      async () => (/redis: .* unreachable/.test(node.output()) ? true : undefined),
      30_000,
    );

    redis.resume();
    await eventually(
      'writes succeeding again',
      async () =>
        (await postJson(node.base, auth, { title: 'After', status: 'publish' })).status === 201 ? true : undefined,
      60_000,
      250,
    );
    await eventually(
      'the node logging that Redis is back',
      async () => (/redis: .* reachable again/.test(node.output()) ? true : undefined),
      30_000,
    );
    // The projector carried on: what was written since is listed, and both processes are ready again.
    await eventually(
      'the new post listed',
      async () => {
        const list = await send(`${node.base}/core/v2/posts?per_page=100`);
        return list.status === 200 &&
          list.body.some((post: { title: { rendered: string } }) => post.title.rendered === 'After')
          ? true
          : undefined;
      },
      60_000,
      250,
    );
    for (const process of [node, projector]) {
      await eventually(
        'ready again',
        async () => ((await send(`${process.base}/readyz`)).status === 200 ? true : undefined),
        60_000,
        250,
      );
    }
    for (const process of [node, projector]) {
      const output = process.output();
      assert.is(count(output, /redis: .* unreachable/), 1, `one line for the outage:\n${output}`);
      assert.is(count(output, /reachable again/), 1, output);
      assert.not.match(output, /Unhandled error event/);
    }

    // With Redis hanging again, the first SIGTERM still ends both processes, cleanly.
    redis.pause();
    node.child.kill('SIGTERM');
    projector.child.kill('SIGTERM');
    const [nodeExit, projectorExit] = await Promise.all([exitOf(node.child), exitOf(projector.child)]);
    assert.equal(nodeExit, { code: 0, signal: null }, node.output());
    assert.equal(projectorExit, { code: 0, signal: null }, projector.output());
  } finally {
    await stopAll(running, redis);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a write committed while Redis stops answering answers 503 with outcome committed; it is in the log and shows once Redis is back', async () => {
  const redis = await startOwnRedis();
  const dataDir = tempDir();
  const env = { ...sharedRedisEnv(dataDir, 'committed:', redis.url, SECRET), ...TIMEOUTS };
  const running: Running[] = [];
  try {
    const first = await startPalimpsest(
      ['projector'],
      { ...env, PORT: String(await freePort()) },
      'palimpsest projector running',
    );
    running.push(first);
    // A long read-your-writes bound: the write waits for a projector until Redis stops answering.
    const node = await startPalimpsest(
      ['serve', '--no-projector'],
      { ...env, READ_YOUR_WRITES_TIMEOUT_MS: '120000', PORT: String(await freePort()) },
      'palimpsest serving',
    );
    running.push(node);
    const auth = await createAdmin(env);
    // No projector from here on: the write is appended, then waits to be applied.
    first.child.kill('SIGTERM');
    assert.is((await exitOf(first.child)).code, 0);

    const answer = postJson(node.base, auth, { title: 'Committed', status: 'publish' });
    const [created] = await eventually(
      'the post in the log',
      async () => {
        const posts = postsCreated(dataDir);
        return posts.length > 0 ? posts : undefined;
      },
      60_000,
      20,
    );
    redis.pause();
    const response = await answer;
    assertOutage(response, 'the committed write');
    assert.is(response.body.data.outcome, 'committed', response.text);
    assert.ok(
      response.body.data.position >= created!.position,
      `its position ${response.body.data.position} is that of its last append, at or after ${created!.position}`,
    );
    assert.match(response.body.message, /saved/);

    redis.resume();
    const second = await startPalimpsest(
      ['projector'],
      { ...env, PORT: String(await freePort()) },
      'palimpsest projector running',
    );
    running.push(second);
    await eventually(
      'the post readable through the node',
      async () => ((await send(`${node.base}/core/v2/posts/${created!.id}`)).status === 200 ? true : undefined),
      60_000,
      250,
    );
    assert.equal(postsCreated(dataDir).length, 1, 'written once');
  } finally {
    await stopAll(running, redis);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('Redis not there at all: the node serves 503s, logs it once without unhandled errors, and stops on SIGTERM', async () => {
  const dataDir = tempDir();
  // A port with nothing listening.
  const nowhere = `redis://127.0.0.1:${await freePort()}`;
  const env = { ...sharedRedisEnv(dataDir, 'nowhere:', nowhere, SECRET), ...TIMEOUTS };
  let node: Running | null = null;
  try {
    node = await startPalimpsest(
      ['serve', '--no-projector'],
      { ...env, PORT: String(await freePort()) },
      'palimpsest serving',
    );
    assertOutage(await send(`${node.base}/core/v2/posts`), 'a list');
    assert.is((await send(`${node.base}/readyz`)).status, 503);
    assert.is((await send(`${node.base}/healthz`)).status, 200, 'alive all the same');
    // Reconnection attempts go on meanwhile; they are not logged again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const output = node.output();
    assert.is(count(output, /redis: .* unreachable/), 1, output);
    assert.not.match(output, /Unhandled error event/);
    node.child.kill('SIGTERM');
    assert.equal(await exitOf(node.child), { code: 0, signal: null }, node.output());
  } finally {
    if (node) await kill9(node);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a projector started with Redis paused ends on the first SIGTERM', async () => {
  const redis = await startOwnRedis();
  const dataDir = tempDir();
  const env = { ...sharedRedisEnv(dataDir, 'paused:', redis.url, SECRET), ...TIMEOUTS };
  let projector: Running | null = null;
  try {
    redis.pause();
    // Sent as soon as it says which site it acts on: during start-up, whatever it waits for.
    projector = await startPalimpsest(['projector'], { ...env, PORT: String(await freePort()) }, 'palimpsest: site');
    projector.child.kill('SIGTERM');
    const exit = await exitOf(projector.child);
    assert.is(exit.signal, null, projector.output());
    assert.ok(exit.code === 0 || exit.code === 1, `exited by itself (${exit.code}):\n${projector.output()}`);
  } finally {
    if (projector) await kill9(projector);
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a port in use ends serve with one clear line and a non-zero status', async () => {
  const dataDir = tempDir();
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  try {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        ['bin/palimpsest.js', 'serve'],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            DATA_DIR: dataDir,
            PORT: String(port),
            HOST: '127.0.0.1',
            REDIS_URL: '',
            EVENTSTORE_URL: '',
          },
          timeout: 60_000,
        },
        (error, _stdout, stderr) => {
          if (error?.killed) reject(new Error(`serve did not end:\n${stderr}`));
          else resolve({ code: error ? (error.code as number) : 0, stderr });
        },
      );
    });
    assert.is.not(code, 0);
    // One log line (JSON, level fatal) saying why.
    const lines = stderr.split('\n').filter((line) => /EADDRINUSE/.test(line));
    assert.equal(
      lines.map((line) => JSON.parse(line)).map(({ level, msg }) => ({ level, msg })),
      [
        {
          level: 60,
          msg: `palimpsest: cannot listen on 127.0.0.1:${port}: the port is already in use (EADDRINUSE); stop what listens there or set PORT to a free port`,
        },
      ],
      stderr,
    );
    assert.not.match(stderr, /^\s+at /m, 'no stack trace');
  } finally {
    await new Promise((resolve) => taken.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('EventStoreDB hanging: a write answers 503 with outcome unknown; subscription drops are logged and counted', async () => {
  const esdb = await startFakeEventStoreDb();
  const proxy = await startStallingProxy(esdb.port);
  const dataDir = tempDir();
  const env = {
    ...process.env,
    ...TIMEOUTS,
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    AUTH_SECRET: SECRET,
    REDIS_URL: '',
    EVENTSTORE_URL: `esdb://127.0.0.1:${proxy.port}?tls=false`,
  };
  let node: Running | null = null;
  try {
    node = await startPalimpsest(['serve'], { ...env, PORT: String(await freePort()) }, 'palimpsest serving');
    const auth = await createAdmin(env);
    // The server applies the user from its subscription.
    const written = await eventually(
      'the user signing in',
      async () => {
        const response = await postJson(node!.base, auth, { title: 'Before', status: 'publish' });
        return response.status === 201 ? response : undefined;
      },
      60_000,
      250,
    );
    assert.is(written.status, 201);

    proxy.stall();
    const response = await postJson(node.base, auth, { title: 'Unanswered', status: 'publish' });
    assertOutage(response, 'a write to a hanging store');
    assert.is(response.body.data.dependency, 'event store');
    // Whichever call of the write hung first: a read (nothing written, no outcome) or an append of its own (unknown).
    const outcome = response.body.data.outcome as string | undefined;
    assert.ok(outcome === undefined || outcome === 'unknown', response.text);
    proxy.resume();
    await eventually(
      'writes succeeding again',
      async () =>
        (await postJson(node!.base, auth, { title: 'After', status: 'publish' })).status === 201 ? true : undefined,
      60_000,
      250,
    );
    // What it said holds once the held-back calls went through: without an outcome, the post was not written.
    const titles = esdb.log.events
      .filter((event) => event.type === 'PostCreated')
      .map((event) => (JSON.parse(Buffer.from(event.data).toString('utf8')) as { post: { title: string } }).post.title);
    assert.ok(titles.includes('After'), titles.join(', '));
    if (outcome === undefined) assert.not.ok(titles.includes('Unanswered'), titles.join(', '));

    // The node restarts: the subscription drops, is logged, counted, and made again.
    await esdb.stop();
    await esdb.start();
    await eventually(
      'the drop logged',
      async () => (/subscription to the log dropped/.test(node!.output()) ? true : undefined),
      60_000,
    );
    const metrics = await send(`${node.base}/metrics`);
    const drops = Number(/^palimpsest_event_store_subscription_drops_total (\d+)$/m.exec(metrics.text)?.[1]);
    assert.ok(drops >= 1, metrics.text);
    await eventually(
      'writes succeeding after the restart',
      async () =>
        (await postJson(node!.base, auth, { title: 'Later', status: 'publish' })).status === 201 ? true : undefined,
      60_000,
      250,
    );
    node.child.kill('SIGTERM');
    assert.equal(await exitOf(node.child), { code: 0, signal: null }, node.output());
  } finally {
    if (node) await kill9(node);
    await proxy.close();
    await esdb.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
