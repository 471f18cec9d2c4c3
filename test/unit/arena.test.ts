/** The memory read model's arena: records keep their bytes through chunk growth, compaction and scans. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Arena, CHUNK_BYTES } from '../../src/readModel/memory/arena';

const test = suite('arena');

interface Owner {
  name: string;
  at: number;
  length: number;
}

/** An arena of the owners' names, each record owned by the owner's index in `owners`. */
function arenaOf(owners: Owner[]): Arena {
  const arena = new Arena({ isLive: (i, at) => owners[i]!.at === at, moved: (i, _from, to) => (owners[i]!.at = to) });
  owners.forEach((owner, i) => {
    owner.length = Buffer.byteLength(owner.name);
    owner.at = arena.writeString(owner.name, owner.length, i);
  });
  return arena;
}

/** Enough ~40 KB records to fill several chunks, each with many records. */
function records(count: number): Owner[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `record ${i} `.padEnd(40_000, String.fromCharCode(97 + (i % 26))),
    at: -1,
    length: 0,
  }));
}

test('every record reads back after chunks fill, and scans list exactly the live records', () => {
  const owners = records(Math.ceil((3 * CHUNK_BYTES) / 40_000));
  const arena = arenaOf(owners);
  for (const owner of owners) assert.is(arena.readString(owner.at, owner.length), owner.name);
  const listed = [...arena.records()].map((r) => owners[r.owner]!);
  assert.is(listed.length, owners.length);
  let scanned = 0;
  for (const chunk of arena.chunksForScan()) {
    assert.is(chunk.starts.length, chunk.lengths.length);
    for (let i = 0; i < chunk.starts.length; i++) {
      assert.ok(chunk.isLive(i));
      const owner = owners[chunk.owners[i]!]!;
      assert.is(chunk.bytes.toString('utf8', chunk.starts[i]!, chunk.starts[i]! + chunk.lengths[i]!), owner.name);
      scanned++;
    }
  }
  assert.is(scanned, owners.length);
});

test('records moved by compaction keep their bytes; freed ones are no longer listed', () => {
  const owners = records(Math.ceil((3 * CHUNK_BYTES) / 40_000));
  const arena = arenaOf(owners);
  const kept = owners.filter((_, i) => i % 3 === 0);
  for (const [i, owner] of owners.entries()) {
    if (i % 3 === 0) continue;
    const at = owner.at;
    owner.at = -1;
    arena.release(at);
  }
  for (const owner of kept) assert.is(arena.readString(owner.at, owner.length), owner.name);
  assert.equal(new Set([...arena.records()].map((r) => owners[r.owner]!)), new Set(kept));
  const scanned: Owner[] = [];
  for (const chunk of arena.chunksForScan())
    for (let i = 0; i < chunk.starts.length; i++) if (chunk.isLive(i)) scanned.push(owners[chunk.owners[i]!]!);
  assert.equal(new Set(scanned), new Set(kept));
});

test('each record knows its length, empty ones included, through chunk growth, releases and compaction', () => {
  // Lengths 0 to 60 KB mixed: several chunks, empty records next to others, some records released.
  const owners: Owner[] = [];
  for (let i = 0; i < 600; i++) {
    const length = i % 5 === 0 ? 0 : i % 7 === 0 ? 60_000 : (i * 37) % 300;
    owners.push({ name: 'x'.repeat(length), at: -1, length: 0 });
  }
  const arena = arenaOf(owners);
  for (const owner of owners) {
    assert.is(arena.lengthOf(owner.at), owner.length);
    assert.is(arena.readString(owner.at, arena.lengthOf(owner.at)), owner.name);
  }
  const kept = owners.filter((_, i) => i % 4 === 0 || i % 5 === 0);
  for (const [i, owner] of owners.entries()) {
    if (i % 4 === 0 || i % 5 === 0) continue;
    const at = owner.at;
    owner.at = -1;
    arena.release(at);
  }
  // Compacted chunks moved the kept records: their lengths came along.
  for (const owner of kept) assert.is(arena.lengthOf(owner.at), owner.length);
  assert.equal(new Set([...arena.records()].map((r) => owners[r.owner]!)), new Set(kept));
  // Released records' bytes are no longer counted: releasing every kept record leaves nothing listed.
  for (const owner of kept) {
    const at = owner.at;
    owner.at = -1;
    arena.release(at);
  }
  assert.is([...arena.records()].length, 0);
  // Each release took its record's own length off its chunk's live bytes: no chunk is left holding any.
  assert.is([...arena.chunksForScan()].length, 0);
});

test.run();
