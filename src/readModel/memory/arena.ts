/**
 * Bytes kept off the V8 heap for the memory read model (documents' JSON, text columns): records appended to
 * large chunks (Buffers of CHUNK_BYTES), each known by a location number (chunk * SPAN + offset, a small integer
 * for the first 128 chunks) and its length. A Buffer per record would cost a JS object each and keep 8 KB pool
 * slabs alive; a chunk costs one object per CHUNK_BYTES.
 *
 * Records are never changed in place. Replacing or deleting one frees its bytes; a chunk (other than the one being
 * filled) whose live bytes fall under half its used bytes is compacted: its live records move to the end of the
 * arena, their owners are told their new location, and the chunk is released. Each chunk lists its records (start
 * and owner) in the order they were appended, so a scan can map a position back to its record and owner; a
 * record is live while its owner still points at it (`isLive`).
 */
export const CHUNK_BYTES = 8 * 2 ** 20;
const FIRST_CHUNK_BYTES = 64 * 2 ** 10;
const SPAN = 2 ** 24;

/**
 * What owns the records: each record's owner is a number the caller gives (the read model's row slot), kept in a
 * typed array (4 bytes a record, off the V8 heap) rather than a reference to an object.
 */
export interface ArenaOwners {
  /** Whether `owner` still keeps its record at `location`. */
  isLive(owner: number, location: number): boolean;
  /** A live record of `owner` moved (compaction). */
  moved(owner: number, from: number, to: number): void;
}

interface Chunk {
  bytes: Buffer;
  used: number;
  live: number;
  /**
   * Record starts, ascending, their lengths and their owners, in append order (dead ones included until
   * compaction); the first `count` entries of each are used. Typed arrays: 4 bytes a record instead of 8 (a
   * small integer or a reference in a JS array), a few MB at 100,000 posts.
   */
  count: number;
  starts: Uint32Array;
  lengths: Uint32Array;
  owners: Uint32Array;
}

/** Entries a chunk's starts and lengths are made with; they double as records are appended. */
const FIRST_RECORDS = 16;

export class Arena {
  private chunks: (Chunk | undefined)[] = [];
  private free: number[] = [];
  private current = -1;
  /** Chunks made so far (each new one is larger, up to CHUNK_BYTES). */
  private made = 0;

  constructor(private readonly owners: ArenaOwners) {}

  /** Bytes held in chunks (allocated, live or not). */
  get allocatedBytes(): number {
    let n = 0;
    for (const c of this.chunks) if (c) n += c.bytes.length;
    return n;
  }

  /**
   * Room for `length` bytes for `owner`: the chunk's Buffer and the offset to write them at, and the location.
   * The caller writes exactly `length` bytes there before anything else touches the arena.
   */
  reserve(length: number, owner: number): { bytes: Buffer; offset: number; location: number } {
    let index = this.current;
    let chunk = index >= 0 ? this.chunks[index] : undefined;
    if (chunk === undefined || chunk.used + Math.max(length, 1) > chunk.bytes.length) {
      // A record larger than a chunk gets a chunk of its own (its offset is 0, so its location stays exact).
      // Chunks grow from FIRST_CHUNK_BYTES (a small collection stays small) to CHUNK_BYTES; a record larger than
      // that gets a chunk of its own (its offset is 0, so its location stays exact).
      const size = Math.min(CHUNK_BYTES, FIRST_CHUNK_BYTES * 2 ** this.made);
      index = this.newChunk(Math.max(size, length));
      chunk = this.chunks[index]!;
      if (length <= size) {
        // The chunk that was being filled gets no more records: its starts and lengths lose their spare room.
        const filled = this.current >= 0 ? this.chunks[this.current] : undefined;
        if (filled !== undefined) trim(filled);
        this.current = index;
      }
    }
    const offset = chunk.used;
    // An empty record takes a byte: starts stay strictly ascending, so a location names one record (lengthOf).
    chunk.used += Math.max(length, 1);
    chunk.live += length;
    if (chunk.count === chunk.starts.length) {
      chunk.starts = grown(chunk.starts, chunk.count);
      chunk.lengths = grown(chunk.lengths, chunk.count);
      chunk.owners = grown(chunk.owners, chunk.count);
    }
    chunk.starts[chunk.count] = offset;
    chunk.lengths[chunk.count] = length;
    chunk.owners[chunk.count] = owner;
    chunk.count++;
    return { bytes: chunk.bytes, offset, location: index * SPAN + offset };
  }

  /** Appends a string as UTF-8 (its byte length given) and returns its location. */
  writeString(text: string, byteLength: number, owner: number): number {
    const { bytes, offset, location } = this.reserve(byteLength, owner);
    if (byteLength > 0) bytes.write(text, offset, byteLength, 'utf8');
    return location;
  }

  /** Appends a copy of `source` and returns its location. */
  writeBytes(source: Uint8Array, owner: number): number {
    const { bytes, offset, location } = this.reserve(source.length, owner);
    bytes.set(source, offset);
    return location;
  }

  /** The chunk's Buffer and the offset of a record. */
  at(location: number): { bytes: Buffer; offset: number } {
    const chunk = this.chunks[Math.floor(location / SPAN)]!;
    return { bytes: chunk.bytes, offset: location % SPAN };
  }

  bytesOf(location: number): Buffer {
    return this.chunks[Math.floor(location / SPAN)]!.bytes;
  }

  static offsetOf(location: number): number {
    return location % SPAN;
  }

  readString(location: number, length: number): string {
    const offset = location % SPAN;
    return this.chunks[Math.floor(location / SPAN)]!.bytes.toString('utf8', offset, offset + length);
  }

  /** A view of a record's bytes (valid until the arena next changes). */
  view(location: number, length: number): Buffer {
    const offset = location % SPAN;
    return this.chunks[Math.floor(location / SPAN)]!.bytes.subarray(offset, offset + length);
  }

  /**
   * The byte length of the record at `location`, from the chunk's list of records (a binary search of its starts):
   * owners keep only locations.
   */
  lengthOf(location: number): number {
    const chunk = this.chunks[Math.floor(location / SPAN)]!;
    return chunk.lengths[recordAt(chunk.starts, chunk.count, location % SPAN)]!;
  }

  /** Frees a record; compacts its chunk when less than half of it is live. */
  release(location: number): void {
    const index = Math.floor(location / SPAN);
    const chunk = this.chunks[index];
    if (chunk === undefined) return;
    chunk.live -= chunk.lengths[recordAt(chunk.starts, chunk.count, location % SPAN)]!;
    if (index === this.current) {
      if (chunk.live === 0) this.reset(chunk);
      return;
    }
    if (chunk.live === 0) this.drop(index);
    else if (chunk.live * 2 < chunk.used) this.compact(index);
  }

  /** Forgets every record. */
  clear(): void {
    this.chunks = [];
    this.free = [];
    this.current = -1;
    this.made = 0;
  }

  /**
   * Each live record's chunk bytes, start and owner, chunk by chunk in append order. `visit` must not change the
   * arena.
   */
  *records(): Generator<{ bytes: Buffer; start: number; length: number; owner: number; location: number }> {
    for (let index = 0; index < this.chunks.length; index++) {
      const chunk = this.chunks[index];
      if (chunk === undefined) continue;
      const { starts, lengths, owners } = chunk;
      for (let i = 0; i < chunk.count; i++) {
        const location = index * SPAN + starts[i]!;
        if (this.owners.isLive(owners[i]!, location))
          yield { bytes: chunk.bytes, start: starts[i]!, length: lengths[i]!, owner: owners[i]!, location };
      }
    }
  }

  /**
   * Each chunk holding live records, for a scan: its bytes, how many are used, and its records in append order
   * (ascending starts), with a test of whether record `i` is live.
   */
  *chunksForScan(): Generator<{
    bytes: Buffer;
    used: number;
    starts: Uint32Array;
    lengths: Uint32Array;
    owners: Uint32Array;
    isLive(i: number): boolean;
  }> {
    for (let index = 0; index < this.chunks.length; index++) {
      const chunk = this.chunks[index];
      if (chunk === undefined || chunk.live === 0) continue;
      const owners = chunk.owners.subarray(0, chunk.count);
      const starts = chunk.starts.subarray(0, chunk.count);
      const live = this.owners;
      yield {
        bytes: chunk.bytes,
        used: chunk.used,
        starts,
        lengths: chunk.lengths.subarray(0, chunk.count),
        owners,
        isLive: (i) => live.isLive(owners[i]!, index * SPAN + starts[i]!),
      };
    }
  }

  private newChunk(size: number): number {
    const chunk: Chunk = {
      bytes: Buffer.allocUnsafeSlow(size),
      used: 0,
      live: 0,
      count: 0,
      starts: new Uint32Array(FIRST_RECORDS),
      lengths: new Uint32Array(FIRST_RECORDS),
      owners: new Uint32Array(FIRST_RECORDS),
    };
    this.made = Math.min(this.made + 1, 16);
    const index = this.free.pop() ?? this.chunks.length;
    this.chunks[index] = chunk;
    return index;
  }

  private reset(chunk: Chunk): void {
    chunk.used = 0;
    chunk.live = 0;
    chunk.count = 0;
    chunk.starts = new Uint32Array(FIRST_RECORDS);
    chunk.lengths = new Uint32Array(FIRST_RECORDS);
    chunk.owners = new Uint32Array(FIRST_RECORDS);
  }

  private drop(index: number): void {
    this.chunks[index] = undefined;
    this.free.push(index);
  }

  /** Moves a chunk's live records to the end of the arena and releases it. */
  private compact(index: number): void {
    const chunk = this.chunks[index]!;
    this.chunks[index] = undefined;
    const { starts, lengths, owners } = chunk;
    for (let i = 0; i < chunk.count; i++) {
      const from = index * SPAN + starts[i]!;
      const owner = owners[i]!;
      if (!this.owners.isLive(owner, from)) continue;
      const to = this.reserve(lengths[i]!, owner);
      chunk.bytes.copy(to.bytes, to.offset, starts[i]!, starts[i]! + lengths[i]!);
      this.owners.moved(owner, from, to.location);
    }
    this.free.push(index);
  }
}

/** The index of the record starting at `offset` among a chunk's first `count` (ascending) starts. */
function recordAt(starts: Uint32Array, count: number, offset: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A copy of `entries` with room for twice as many. */
function grown(entries: Uint32Array, count: number): Uint32Array {
  const copy = new Uint32Array(Math.max(FIRST_RECORDS, count * 2));
  copy.set(entries.subarray(0, count));
  return copy;
}

/** Drops a chunk's spare room for records. */
function trim(chunk: Chunk): void {
  if (chunk.count === chunk.starts.length) return;
  chunk.starts = chunk.starts.slice(0, chunk.count);
  chunk.lengths = chunk.lengths.slice(0, chunk.count);
  chunk.owners = chunk.owners.slice(0, chunk.count);
}
