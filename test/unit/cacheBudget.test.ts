/**
 * The cache budget (src/caches/budget.ts): one total split into each read-side cache's share, entry bounds derived
 * from the shares, caches switched off by name, bad settings refused at start-up, and caches keeping to the bounds
 * the budget gives them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CACHE_LAYOUT, CACHE_NAMES, CacheBudget, defaultCacheMiB, parseCachesOff } from '../../src/caches/budget';
import type { ReadModelEngine } from '../../src/caches/budget';
import { ConfigError, loadConfig } from '../../src/config';
import { CommandHandler } from '../../src/core/commandHandler';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { createRemoteEmbeds } from '../../src/resources/oembed/remote';
import { boundTimezoneOffsets, formatLocal, timezoneOffsetsHeld } from '../../src/text/dates';
import { boundRenderedText, renderContent, renderedTextHeld } from '../../src/text/render';

const MIB = 1024 * 1024;
const ENGINES: ReadModelEngine[] = ['memory', 'redis'];

const sumOfShares = (budget: CacheBudget) => CACHE_NAMES.reduce((sum, name) => sum + budget.share(name), 0);

test('the shares add up to the total, at the default and at any other total', () => {
  for (const engine of ENGINES) {
    for (const totalMiB of [undefined, 1, 100, 1000.5]) {
      const budget = new CacheBudget({ engine, totalMiB });
      const total = (totalMiB ?? defaultCacheMiB(engine)) * MIB;
      assert.is(budget.totalBytes, Math.floor(total));
      const sum = sumOfShares(budget);
      // Each share is rounded down to whole bytes per instance.
      assert.ok(sum <= budget.totalBytes, `${engine} at ${totalMiB}: ${sum} over ${budget.totalBytes}`);
      assert.ok(sum > budget.totalBytes - 64, `${engine} at ${totalMiB}: ${sum} well under ${budget.totalBytes}`);
    }
  }
});

test('a cache counting entries gets as many as its share holds at its average size', () => {
  const budget = new CacheBudget({ engine: 'redis', totalMiB: 800 });
  const half = CacheBudget.defaults('redis');
  for (const name of CACHE_NAMES) {
    const { averageEntryBytes, instances = 1 } = CACHE_LAYOUT[name];
    const perInstance = Math.floor(budget.share(name) / instances);
    assert.is(budget.bytes(name), perInstance, name);
    if (averageEntryBytes === undefined) assert.is(budget.entries(name), Infinity, name);
    else {
      assert.is(budget.entries(name), Math.floor(perInstance / averageEntryBytes), name);
      // Twice the default total, twice the entries (give or take rounding).
      assert.ok(Math.abs(budget.entries(name) - 2 * half.entries(name)) <= 2, name);
    }
  }
});

test('an engine without a cache gives it nothing; the in-memory engine keeps fewer parsed documents', () => {
  assert.is(CacheBudget.defaults('memory').entries('documents'), 0);
  assert.is(CacheBudget.defaults('redis').entries('textMatches'), 0);
  assert.ok(
    CacheBudget.defaults('memory').entries('parsedDocuments') <
      CacheBudget.defaults('redis').entries('parsedDocuments'),
  );
});

test('a cache switched off keeps nothing, and the others keep their shares', () => {
  const budget = new CacheBudget({ engine: 'memory', off: parseCachesOff('responses, presentations') });
  assert.equal(budget.bound('responses'), { entries: 0, bytes: 0 });
  assert.equal(budget.bound('presentations'), { entries: 0, bytes: 0 });
  assert.equal(budget.bound('parsedDocuments'), CacheBudget.defaults('memory').bound('parsedDocuments'));
  const none = new CacheBudget({ engine: 'redis', off: parseCachesOff('all') });
  for (const name of CACHE_NAMES) assert.is(none.entries(name), 0, name);
});

test('a zero, negative or unreadable total is refused', () => {
  for (const totalMiB of [0, -5, Number.NaN, Infinity])
    assert.throws(() => new CacheBudget({ engine: 'memory', totalMiB }), /positive number of MiB/);
});

test('CACHE_MEMORY_MB and CACHES_OFF are read at start-up; bad values stop it with a message naming the setting', () => {
  assert.equal(loadConfig({}, '/tmp').caches, { totalMiB: null, off: [] });
  assert.equal(loadConfig({ CACHE_MEMORY_MB: '512', CACHES_OFF: 'responses' }, '/tmp').caches, {
    totalMiB: 512,
    off: ['responses'],
  });
  const refused = (env: Record<string, string>, message: RegExp) =>
    assert.throws(
      () => loadConfig(env, '/tmp'),
      (error: unknown) => error instanceof ConfigError && message.test((error as Error).message),
    );
  const mustBe = (value: string) =>
    new RegExp(`^CACHE_MEMORY_MB must be a whole number of MiB from 8 to this machine's \\d+, got "${value}"$`);
  for (const value of ['0', 'lots', '-1', '0.1', '7', '1e3', '0x40', ' 64', '268435456'])
    refused({ CACHE_MEMORY_MB: value }, mustBe(value));
  assert.is(loadConfig({ CACHE_MEMORY_MB: '8' }, '/tmp').caches.totalMiB, 8);
  refused({ CACHES_OFF: 'responses,pages' }, /^CACHES_OFF: no cache is named pages/);
  // The response cache's bounds of earlier versions: refused rather than silently ignored.
  refused({ RESPONSE_CACHE_ENTRIES: '0' }, /^RESPONSE_CACHE_ENTRIES is no longer read: .*CACHES_OFF=responses/);
  refused({ RESPONSE_CACHE_BYTES: '1000' }, /^RESPONSE_CACHE_BYTES is no longer read/);
});

/** A budget whose caches that count entries keep about `entries` each. */
const small = (entries: number) =>
  new CacheBudget({
    engine: 'memory',
    bounds: Object.fromEntries(CACHE_NAMES.map((name) => [name, { entries }])),
  });

test('the command handler keeps at most its bound of folded states', async () => {
  const budget = small(3);
  const commands = new CommandHandler(createMemoryEventStore(), { cacheSize: budget.entries('commandStates') });
  const decider = {
    initialState: () => 0,
    evolve: (count: number) => count + 1,
    decide: () => [{ type: 'Counted', data: {} }],
  };
  for (let i = 0; i < 10; i++)
    await commands.handle(`counter-${i}`, decider, {}, { userId: null, requestId: 'r', at: '2026-01-01T00:00:00Z' });
  assert.is(commands.held().entries, 3);
});

test('the in-memory read model keeps at most its bound of parsed documents', async () => {
  const budget = small(4);
  const readModel = createMemoryReadModel({ parsedDocsKept: budget.entries('parsedDocuments') });
  await readModel.commit({
    writes: Array.from({ length: 20 }, (_, i) => ({
      collection: 'notes',
      id: i + 1,
      doc: { id: i + 1, text: `n${i}` },
    })),
    checkpoint: { name: 'notes', position: 1, version: 1 },
  });
  // Each read twice: the second read is admitted once the cache is full.
  for (let round = 0; round < 2; round++) for (let id = 1; id <= 20; id++) await readModel.get('notes', id);
  assert.is(readModel.parsedDocumentsHeld().entries, 4);
});

test("oEmbed's remote answers keep to their bound", async () => {
  const embeds = createRemoteEmbeds({
    fetcher: { request: async () => ({ status: 404, body: '', url: '', headers: {} }) } as never,
    clock: { now: () => 0 },
    maxEntries: small(2).entries('remoteEmbeds'),
  });
  for (let i = 0; i < 5; i++) await embeds.lookup({ url: `https://example.test/${i}`, discover: true });
  assert.is(embeds.held().entries, 2);
});

test('the process-wide time-zone offsets and rendered texts keep to the bounds they are given', () => {
  const defaults = CacheBudget.defaults('memory');
  try {
    boundTimezoneOffsets(5);
    // A year of 6-hour slices in one zone: emptied whenever it reaches its bound.
    for (let day = 0; day < 365; day++) formatLocal(Date.UTC(2025, 0, 1) + day * 86_400_000, 'Europe/Berlin');
    const offsets = timezoneOffsetsHeld();
    assert.ok(offsets.entries > 0 && offsets.entries <= 5 * (offsets.instances ?? 1), `${offsets.entries} kept`);

    boundRenderedText(4);
    for (let i = 0; i < 50; i++) renderContent(`<p>paragraph ${i}</p>`);
    const rendered = renderedTextHeld();
    assert.ok(rendered.entries > 0 && rendered.entries <= 4 * (rendered.instances ?? 1), `${rendered.entries} kept`);

    boundRenderedText(0);
    renderContent('<p>not kept</p>');
    assert.is(renderedTextHeld().entries, 0);
  } finally {
    boundTimezoneOffsets(defaults.entries('timezoneOffsets'));
    boundRenderedText(defaults.entries('renderedText'));
  }
});

test.run();
