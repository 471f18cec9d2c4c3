/**
 * A process sharing its read model (Redis) polls the applied position in case a change notice was lost. Its first
 * reading is only where the position stands, not a change: an answer the response cache kept right after start is
 * still served after the first poll, as long as nothing changed. (Before, the first poll took the position for moved
 * and dropped everything kept in the first 250 ms.)
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSite } from '../../src/site';
import type { Coordination } from '../../src/site';
import { createApp } from '../../src/app';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { manualClock } from '../../src/ports/clock';
import { CHANGING } from '../../src/projection/readModelVersion';
import { until } from '../support/rebuildGate';
import { testAdapters } from '../support/testSite';

const test = suite('response cache right after start, with a shared read model');

test('an answer kept just after start is still served after the first poll of an unchanged applied position', async () => {
  // Another process's projector, as this one sees it: the applied position stands still.
  let reads = 0;
  let settled = 0;
  const coordination: Coordination = {
    lease: {
      ttlMs: 1_000,
      owner: 'test',
      acquire: async () => null,
      release: async () => {},
      holder: async () => null,
    },
    progress: {
      publish: async () => false,
      applied: async () => {
        reads += 1;
        await new Promise((resolve) => setTimeout(resolve, 1));
        settled += 1;
        return 42;
      },
      current: async () => 42,
      waitFor: async () => true,
      close: async () => {},
    },
    close: async () => {},
  };
  const site = createSite(
    {
      siteUrl: 'http://palimpsest.test',
      name: 'Test site',
      description: '',
      timezone: 'UTC',
      authSecret: 'test-secret',
      idBlockSize: 5,
      readYourWritesTimeoutMs: 5_000,
    },
    {
      store: createMemoryEventStore(),
      readModel: createMemoryReadModel(),
      clock: manualClock(Date.parse('2024-05-01T12:00:00Z')),
      coordination,
      ...testAdapters(),
    },
  );
  const server = http.createServer(createApp(site).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hits = async () =>
    Number(
      /^palimpsest_response_cache_hits_total (\d+)$/m.exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? NaN,
    );
  try {
    // Answers are kept as soon as the version stops reading as changing.
    await until(() => site.readModelVersion.current() !== CHANGING, 'the version is known');
    const first = await fetch(`${base}/core/v2/posts`);
    assert.is(first.status, 200);
    await first.text();
    const before = await hits();
    // Two readings of the position after the answer was kept: at least one poll after the first reading.
    const from = settled;
    await until(() => settled >= Math.max(2, from + 1) && settled === reads, 'a poll of the applied position');
    const again = await fetch(`${base}/core/v2/posts`);
    await again.text();
    assert.is((await hits()) - before, 1, 'the kept answer was served');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await site.close();
  }
});

test.run();
