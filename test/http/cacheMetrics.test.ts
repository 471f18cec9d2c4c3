/**
 * Every read-side cache reports on /metrics what it holds against the bound the cache budget gives it
 * (src/metrics/cacheMeter.ts), and holds no more than that bound under traffic.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CacheBudget } from '../../src/caches/budget';
import type { CacheName } from '../../src/caches/budget';
import { openReadModel } from '../../src/bootstrap';
import { loadConfig } from '../../src/config';
import { startTestSite } from '../support/testSite';
import type { TestSite } from '../support/testSite';

/** The value of a gauge for one cache, or null when it is not on /metrics. */
function gauge(metrics: string, name: string, cache: CacheName): number | null {
  const line = new RegExp(`^${name}\\{cache="${cache}"\\} (\\S+)$`, 'm').exec(metrics);
  return line ? Number(line[1]) : null;
}

test('each cache shows its entries (and bytes where counted) and keeps within the bound the budget gives it', async () => {
  const budget = new CacheBudget({
    engine: 'memory',
    bounds: {
      responses: { entries: 3 },
      presentations: { bytes: 8 * 1024 },
      validatedArgs: { entries: 4 },
      commandStates: { entries: 2 },
    },
  });
  let site: TestSite | null = null;
  try {
    site = await startTestSite({ caches: budget });
    const admin = await site.createUser('boss', 'administrator');
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) {
      const created = await site.request('POST', '/core/v2/posts', {
        as: admin,
        body: { title: `Post ${i}`, content: `<p>${'text '.repeat(60)}${i}</p>`, status: 'publish' },
      });
      ids.push((created.body as { id: number }).id);
    }
    // Each item and list twice (a full cache admits on a second request), under distinct URLs.
    for (let round = 0; round < 2; round++) {
      for (const id of ids) await site.request('GET', `/core/v2/posts/${id}`);
      for (let perPage = 1; perPage <= 6; perPage++) await site.request('GET', `/core/v2/posts?per_page=${perPage}`);
    }
    await site.request('GET', `/core/v2/posts/${ids[0]}`, { as: admin });
    const metrics = (await site.request('GET', '/metrics')).text;

    for (const cache of ['responses', 'presentations', 'validatedArgs', 'commandStates', 'renderedText'] as const) {
      const entries = gauge(metrics, 'palimpsest_cache_entries', cache);
      assert.ok(entries !== null && entries > 0, `${cache} holds entries: ${entries}`);
    }
    for (const cache of ['passwordHashes', 'remoteEmbeds', 'timezoneOffsets'] as const)
      assert.ok(gauge(metrics, 'palimpsest_cache_entries', cache) !== null, `${cache} is on /metrics`);

    // Within their bounds, which /metrics gives too.
    assert.is(gauge(metrics, 'palimpsest_cache_max_entries', 'responses'), 3);
    assert.is(gauge(metrics, 'palimpsest_cache_entries', 'responses'), 3);
    assert.is(gauge(metrics, 'palimpsest_cache_max_entries', 'commandStates'), 2);
    assert.is(gauge(metrics, 'palimpsest_cache_entries', 'commandStates'), 2);
    assert.is(gauge(metrics, 'palimpsest_cache_max_bytes', 'responses'), budget.bytes('responses'));
    // One presentation cache per post type, each within its bound: here only posts were read.
    const presentedBytes = gauge(metrics, 'palimpsest_cache_bytes', 'presentations')!;
    assert.ok(presentedBytes > 0 && presentedBytes <= 8 * 1024, `${presentedBytes} bytes of presented items`);
    assert.is(gauge(metrics, 'palimpsest_cache_max_bytes', 'presentations'), 3 * 8 * 1024);
    // Validated args per endpoint: the item route read 8 distinct URLs, the list route 6, each kept to 4.
    const validated = gauge(metrics, 'palimpsest_cache_entries', 'validatedArgs')!;
    const validatedBound = gauge(metrics, 'palimpsest_cache_max_entries', 'validatedArgs')!;
    assert.ok(validated <= validatedBound && validatedBound % 4 === 0, `${validated} of ${validatedBound}`);
    assert.ok(validated <= 8, `${validated} validated args kept for two endpoints`);
  } finally {
    await site?.close();
  }
});

test('the read model the composition root opens takes its bounds from CACHE_MEMORY_MB and reports them', async () => {
  const config = loadConfig({ CACHE_MEMORY_MB: '8' }, '/tmp');
  const budget = new CacheBudget({ engine: 'memory', totalMiB: 8 });
  const { memory, cacheSizes } = await openReadModel(config);
  await memory!.commit({
    writes: Array.from({ length: 300 }, (_, i) => ({ collection: 'notes', id: i + 1, doc: { id: i + 1 } })),
    checkpoint: { name: 'notes', position: 1, version: 1 },
  });
  for (let round = 0; round < 2; round++) for (let id = 1; id <= 300; id++) await memory!.get('notes', id);
  // 8 MiB of 256: 512 KiB for parsed documents, 64 of 8 KiB each.
  assert.is(budget.entries('parsedDocuments'), 64);
  assert.is(cacheSizes.parsedDocuments!().entries, 64);
  assert.ok(cacheSizes.textMatches !== undefined);
});

test('a cache switched off is not kept: CACHES_OFF=responses answers every request afresh', async () => {
  const site = await startTestSite({ caches: new CacheBudget({ engine: 'memory', off: ['responses'] }) });
  try {
    await site.request('GET', '/core/v2/posts');
    await site.request('GET', '/core/v2/posts');
    const metrics = (await site.request('GET', '/metrics')).text;
    assert.is(gauge(metrics, 'palimpsest_cache_entries', 'responses'), null);
    assert.ok((gauge(metrics, 'palimpsest_cache_entries', 'validatedArgs') ?? 0) > 0);
  } finally {
    await site.close();
  }
});

test.run();
