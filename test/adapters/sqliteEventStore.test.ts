import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqliteEventStore, SCAN_BEHIND, SCAN_CACHE_PAGES } from '../../src/adapters/sqlite/eventStore';
import type { SqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import type { EventMetadata, EventStore, RecordedEvent } from '../../src/ports/eventStore';
import { eventStoreContract } from '../contracts/eventStore.contract';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const appenderScript = fileURLToPath(new URL('../support/sqliteAppender.ts', import.meta.url));

const newTempDir = () => mkdtempSync(path.join(os.tmpdir(), 'palimpsest-events-'));

eventStoreContract('sqlite', async () => {
  const dir = newTempDir();
  const store = openSqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  return {
    store,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const metadata: EventMetadata = { userId: 1, requestId: 'req-1', at: '2024-05-01T12:00:00.000Z' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.unreachable(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Runs test/support/sqliteAppender.ts in its own process and collects what it reports as acknowledged. */
function startAppender(file: string, streamId: string, count: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', appenderScript, file, streamId, String(count)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acknowledged: Array<{ revision: number; position: number }> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const [, revision, position] = line.split(' ');
    acknowledged.push({ revision: Number(revision), position: Number(position) });
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, acknowledged, exited };
}

const summary = (events: RecordedEvent[]) =>
  events.map(({ streamId, revision, position }) => ({ streamId, revision, position }));

interface Context {
  dir: string;
  file: string;
  stores: EventStore[];
  open(): SqliteEventStore;
}

const test = suite<Context>('SQLite event store: the file and other processes', {} as Context);

test.before.each((context) => {
  context.dir = newTempDir();
  context.file = path.join(context.dir, 'events.sqlite');
  context.stores = [];
  context.open = () => {
    const store = openSqliteEventStore({ file: context.file });
    context.stores.push(store);
    return store;
  };
});
test.after.each(async ({ dir, stores }) => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the file is in WAL mode', ({ open, file }) => {
  open();
  const db = new Database(file, { readonly: true });
  try {
    assert.is(db.pragma('journal_mode', { simple: true }), 'wal');
  } finally {
    db.close();
  }
});

test('reopening the file keeps every event, and appends continue where they left off', async ({ open }) => {
  const first = open();
  for (let i = 0; i < 30; i++) {
    await first.appendToStream(`post-${i % 4}`, [{ type: 'Edited', data: { i }, metadata }], {
      expectedRevision: 'any',
    });
  }
  const before = await first.readAll();
  await first.close();

  const reopened = open();
  assert.equal(await reopened.readAll(), before);
  assert.is(await reopened.headPosition(), before[29]!.position);
  const result = await reopened.appendToStream('post-0', [{ type: 'Edited', data: {}, metadata }], {
    expectedRevision: 7,
  });
  assert.equal(result, { nextExpectedRevision: 8, position: before[29]!.position + 1 });
});

test('a live subscription receives events appended by another process', async ({ open, file }) => {
  const store = open();
  const delivered: RecordedEvent[] = [];
  let caughtUp = false;
  const subscription = store.subscribeToAll({
    onEvents: (events) => {
      delivered.push(...events);
    },
    onCaughtUp: () => {
      caughtUp = true;
    },
  });
  try {
    await eventually(() => caughtUp, 'onCaughtUp');
    const appender = startAppender(file, 'cli-import', 40);
    assert.equal(await appender.exited, { code: 0, signal: null });
    await eventually(() => delivered.length === 40, '40 events from the other process');
    assert.equal(
      delivered.map((e) => [e.streamId, e.revision, (e.data as { n: number }).n]),
      Array.from({ length: 40 }, (_, n) => ['cli-import', n, n]),
    );
    assert.equal(
      delivered.map((e) => e.position),
      appender.acknowledged.map((a) => a.position),
    );
  } finally {
    await subscription.close();
  }
});

test('several processes append to one stream at once: contiguous revisions, one gapless log', async ({
  open,
  file,
}) => {
  const store = open();
  const delivered: RecordedEvent[] = [];
  const subscription = store.subscribeToAll({
    onEvents: (events) => {
      delivered.push(...events);
    },
  });
  try {
    const appenders = [0, 1, 2].map(() => startAppender(file, 'shared', 150));
    // This process writes too, meanwhile, through its own connection. (The deadline only guards a crashed child.)
    const deadline = Date.now() + 30_000;
    while (appenders.some((appender) => appender.acknowledged.length < 150) && Date.now() < deadline) {
      await store.appendToStream('shared', [{ type: 'Local', data: {}, metadata }], { expectedRevision: 'any' });
      await sleep(2);
    }
    for (const appender of appenders) assert.equal(await appender.exited, { code: 0, signal: null });
    const stream = await store.readStream('shared');
    assert.equal(
      stream.map((e) => e.revision),
      stream.map((_, i) => i),
    );
    assert.is(stream.filter((e) => e.type === 'Appended').length, 450);
    await eventually(() => delivered.length === stream.length, 'every event through the subscription');
    assert.equal(summary(delivered), summary(await store.readAll()));
  } finally {
    await subscription.close();
  }
});

test('a subscription naming its types reads across gaps in the positions: every event once, batches within their size', async ({
  open,
  file,
}) => {
  const store = open();
  for (let i = 0; i < 40; i++)
    await store.appendToStream(`s-${i}`, [{ type: i % 3 === 0 ? 'Wanted' : 'Other', data: { i }, metadata }], {
      expectedRevision: 'no_stream',
    });
  // Positions are row ids: gaps shorter and longer than a batch, as a log repaired by hand could have.
  const db = new Database(file);
  db.prepare('DELETE FROM events WHERE position IN (3, 9, 10) OR position BETWEEN 14 AND 25').run();
  db.close();
  const all = await store.readAll();
  const seen: RecordedEvent[][] = [];
  let caughtUp = false;
  const subscription = store.subscribeToAll({
    maxBatchSize: 4,
    types: ['Wanted'],
    onEvents: (events) => void seen.push(events),
    onCaughtUp: () => void (caughtUp = true),
  });
  try {
    await eventually(() => caughtUp, 'caught up');
    const delivered = seen.flat();
    assert.equal(
      summary(delivered.filter((e) => e.type === 'Wanted')),
      summary(all.filter((e) => e.type === 'Wanted')),
      'every event of the type, in order',
    );
    assert.is(new Set(delivered.map((e) => e.position)).size, delivered.length, 'no repeats');
    assert.ok(
      delivered.every((e, i) => i === 0 || e.position > delivered[i - 1]!.position),
      'in log order',
    );
    for (const batch of seen) assert.ok(batch.length > 0 && batch.length <= 4, `a batch of ${batch.length}`);
    assert.is(
      delivered[delivered.length - 1]!.position,
      all[all.length - 1]!.position,
      'the last batch ends at the head',
    );
  } finally {
    await subscription.close();
  }
});

test('a process killed with SIGKILL loses none of the appends it acknowledged', async ({ open, file }) => {
  const appender = startAppender(file, 'crash', 1_000_000);
  await eventually(() => appender.acknowledged.length >= 300, '300 acknowledged appends');
  appender.child.kill('SIGKILL');
  assert.equal(await appender.exited, { code: null, signal: 'SIGKILL' });

  const store = open();
  const stream = await store.readStream('crash');
  const acknowledged = appender.acknowledged;
  assert.ok(stream.length >= acknowledged.length, `${stream.length} stored, ${acknowledged.length} acknowledged`);
  assert.equal(
    stream.slice(0, acknowledged.length).map((e) => ({ revision: e.revision, position: e.position })),
    acknowledged,
  );
  assert.equal(
    stream.map((e) => (e.data as { n: number }).n),
    stream.map((_, n) => n),
    'no torn or reordered appends',
  );
  const next = await store.appendToStream('crash', [{ type: 'AfterCrash', data: {}, metadata }], {
    expectedRevision: stream.length - 1,
  });
  assert.is(next.nextExpectedRevision, stream.length);
});

test('a subscription scanning the log keeps the page cache small until it has caught up, then the usual size is back', async ({
  open,
}) => {
  const store = open();
  const usual = store.pageCacheSize();
  assert.ok(usual !== SCAN_CACHE_PAGES);
  const count = SCAN_BEHIND + 200;
  for (let i = 0; i < count; i += 100) {
    await store.appendToStream(
      `s-${i}`,
      Array.from({ length: 100 }, (_, n) => ({ type: n % 2 ? 'Odd' : 'Even', data: { n: i + n }, metadata })),
      { expectedRevision: 'no_stream' },
    );
  }
  // Each batch is seen with the cache its read left: the read reaching the head restores the usual size, so the last
  // batch and the caught-up subscription (still open) see that.
  const scan = (after: number, types?: string[]) =>
    new Promise<{ caches: number[]; delivered: number[]; caughtUp: number }>((resolve, reject) => {
      const caches: number[] = [];
      const delivered: number[] = [];
      const subscription = store.subscribeToAll({
        after,
        types,
        maxBatchSize: 150,
        onEvents: (events) => {
          caches.push(store.pageCacheSize());
          delivered.push(...events.map((e) => e.position));
        },
        onCaughtUp: () => {
          const caughtUp = store.pageCacheSize();
          void subscription.close().then(() => resolve({ caches, delivered, caughtUp }), reject);
        },
        onError: reject,
      });
    });

  const scanned = (caches: number[]) => [...caches.slice(0, -1).map(() => SCAN_CACHE_PAGES), usual];
  // From the start: every batch but the last read with the small cache, and the usual size back once caught up.
  const whole = await scan(0);
  assert.equal(
    whole.delivered,
    Array.from({ length: count }, (_, n) => n + 1),
  );
  assert.is(whole.caches.length, Math.ceil(count / 150));
  assert.equal(whole.caches, scanned(whole.caches));
  assert.is(whole.caughtUp, usual);
  // The same with types (a batch's last position is read whatever its type).
  const typed = await scan(0, ['Odd']);
  assert.equal(
    typed.delivered,
    Array.from({ length: count / 2 }, (_, n) => 2 * n + 2),
  );
  assert.equal(typed.caches, scanned(typed.caches));
  assert.is(typed.caughtUp, usual);
  // Fewer than SCAN_BEHIND positions behind: not a scan.
  const near = await scan(count - SCAN_BEHIND + 1);
  assert.equal(
    near.caches,
    near.caches.map(() => usual),
  );
  assert.is(store.pageCacheSize(), usual);

  // Two scans at once: the usual size is back only once both have ended; one closed before it caught up has ended.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const first = store.subscribeToAll({
    after: 0,
    maxBatchSize: 10,
    onEvents: async () => {
      held = true;
      await gate;
    },
  });
  try {
    await eventually(() => held, "the first scan's first batch");
    const second = await scan(0);
    assert.equal(
      second.caches,
      second.caches.map(() => SCAN_CACHE_PAGES),
    );
    assert.is(second.caughtUp, SCAN_CACHE_PAGES);
    assert.is(store.pageCacheSize(), SCAN_CACHE_PAGES);
  } finally {
    const closing = first.close();
    release();
    await closing;
  }
  assert.is(store.pageCacheSize(), usual);
});

test.run();
