/**
 * Several API nodes on EventStoreDB: two sites, each with its own client connection to the test gRPC server (as two
 * processes would have), one shared Redis read model, creating posts with one title at once through both. Ids and
 * slugs must come out unique across the nodes, reserved and claimed through the event store alone.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeEventStoreDb } from '../support/esdb/server';
import { createEventStoreDbEventStore } from '../../src/adapters/eventstoredb/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { startTestSite } from '../support/testSite';

const test = suite('two API nodes on EventStoreDB');

test('concurrent creates through two nodes get distinct ids and slugs', async () => {
  const server = await startFakeEventStoreDb();
  const first = await startTestSite({
    store: createEventStoreDbEventStore({ connectionString: server.connectionString }),
  });
  // The second node has its own connection and its own read model (each node projects for itself here).
  const second = await startTestSite({
    store: createEventStoreDbEventStore({ connectionString: server.connectionString }),
    readModel: createMemoryReadModel(),
  });
  try {
    const admin = await first.createUser('admin', 'administrator');
    const seen = await second.site.projector.waitFor(await second.site.store.headPosition(), 30_000);
    assert.ok(seen, 'the second node caught up with the user');
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 ? second : first).request('POST', '/core/v2/posts', {
          as: admin,
          body: { title: 'Shared title', status: 'publish' },
        }),
      ),
    );
    for (const response of results) assert.is(response.status, 201, response.text);
    const ids = results.map((r) => r.body.id as number);
    const slugs = results.map((r) => r.body.slug as string);
    assert.is(new Set(ids).size, ids.length, `ids are unique: ${ids.join(', ')}`);
    assert.is(new Set(slugs).size, slugs.length, `slugs are unique: ${slugs.join(', ')}`);
    assert.ok(slugs.includes('shared-title'));
  } finally {
    await first.close();
    await second.close();
    await server.close();
  }
});

test.run();
