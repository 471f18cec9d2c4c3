/** Name claims in the event store: what a write that claimed names while preparing gives back afterwards. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { NameClaims } from '../../src/core/claims';

const metadata = { userId: 1, requestId: 'test', at: '2026-11-24T00:00:00.000Z' };

test('releaseAllBut gives back every claimed name but the kept one, and leaves names others hold alone', async () => {
  const claims = new NameClaims(createMemoryEventStore());
  // The write's first try claimed "hello"; its retry, after another writer's change, claimed "other" and kept it.
  assert.is(await claims.claimFirstFree('s', ['hello'], 7, metadata), 'hello');
  const retried = await claims.claimFirstFree('s', ['other'], 7, metadata);
  assert.ok(await claims.claimExact('s', 'someone-elses', 8, metadata));
  await claims.releaseAllBut('s', ['hello', retried, 'someone-elses'], retried, 7, metadata);
  assert.is(await claims.ownerOf('s', 'hello'), null, 'the name not kept is released');
  assert.is(await claims.ownerOf('s', 'other'), 7, 'the kept name stays claimed');
  assert.is(await claims.ownerOf('s', 'someone-elses'), 8, 'a name another owner holds is not released');
  await claims.releaseAllBut('s', [retried], null, 7, metadata);
  assert.is(await claims.ownerOf('s', 'other'), null, 'a failed write (nothing kept) releases everything it claimed');
});

test.run();
