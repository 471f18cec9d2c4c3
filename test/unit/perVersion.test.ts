/**
 * Values kept per read-model version (PerVersion in src/projection/readModelVersion.ts), shared by the document
 * cache and the site's memo of projections behind: emptied when the version moves on, nothing kept or served while a
 * change is applied, and nothing kept from a computation a change overlapped.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PerVersion, ReadModelVersion } from '../../src/projection/readModelVersion';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';

const test = suite('values kept per read-model version');

test('values stay while the version stands and go when it moves on', () => {
  const version = new ReadModelVersion();
  const memo = new PerVersion<number>(version);
  memo.kept()!.set('a', 1);
  assert.is(memo.kept()!.get('a'), 1);
  version.changed();
  assert.is(memo.kept()!.size, 0);
});

test('nothing is served or kept while a change is being applied', async () => {
  const version = new ReadModelVersion();
  const memo = new PerVersion<number>(version);
  memo.kept()!.set('a', 1);
  await version.during(async () => {
    assert.is(memo.kept(), null);
    assert.not.ok(memo.keepable(version.current()));
  });
  // The change moved the version on: what was kept before it is gone.
  assert.is(memo.kept()!.size, 0);
});

test('a value computed across a change is not keepable', () => {
  const version = new ReadModelVersion();
  const memo = new PerVersion<number>(version);
  const at = version.current();
  assert.ok(memo.keepable(at));
  version.changed();
  assert.not.ok(memo.keepable(at));
  assert.ok(memo.keepable(version.current()));
});

test('reads through a tracked read model, peek among them, do not move the version; a commit does', async () => {
  const version = new ReadModelVersion();
  const tracked = version.track(createMemoryReadModel());
  await tracked.commit({
    writes: [{ collection: 'notes', id: 1, doc: { id: 1, text: 'one' } }],
    checkpoint: { name: 'notes', position: 1, version: 1 },
  });
  const at = version.current();
  assert.equal(tracked.peek!('notes', 1), { id: 1, text: 'one' });
  assert.equal(await tracked.get('notes', 1), { id: 1, text: 'one' });
  assert.is(version.current(), at, 'a read is not a change');
  await tracked.commit({
    writes: [{ collection: 'notes', id: 1, doc: null }],
    checkpoint: { name: 'notes', position: 2, version: 1 },
  });
  assert.is.not(version.current(), at);
});

test.run();
