/**
 * A durable snapshot of the in-memory read model, so an embedded start-up loads it and catches up from the log
 * instead of replaying all of it. It is written on a clean shutdown (to a temporary file, then renamed over the
 * last one), from a stopped projector, so its documents and checkpoints agree.
 *
 * It records the highest checkpoint position and the id of the event there. At start-up it is used only if it
 * parses completely (an end line counts the rows) and that event is still at that position in the log (the
 * log was not replaced or restored from an older backup), and the read model then gets the epoch that says so; a
 * projection whose version changed since is left out, so the projector rebuilds it from the log. Anything wrong with
 * the file: it is ignored and the log replayed.
 * A snapshot older than the log (a crash skipped the write) is still a true state of the log's beginning: the
 * projector carries on from its checkpoints.
 *
 * Format (version 2): a header line of JSON, then binary frames, each `[u32 meta length][u32 doc length][u32 text
 * length]` (little-endian) followed by the meta (JSON) and the bytes. A frame's meta is a row
 * `[collection number, id, layout number, values, loose text or null]` followed by the row's stored document JSON and
 * text record exactly as the read model keeps them (./row.ts, Row), or it names the next
 * collection number (`{"collection": name}`) or layout number (`{"layout": definition}`) before their first row,
 * or ends the file (`{"end": rows, "crc32": n}`, the CRC-32 of every frame before it: the documents' bytes are not
 * parsed at load, so a damaged file is found by it). Loading copies the bytes into the read model's arenas.
 * Index entries are kept as they were computed (a projection that changes its `index` changes its version, so its
 * rows are left out and rebuilt). A file of another format or version is refused, and the log replayed.
 */
import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import type { Checkpoint } from '../../ports/readModel';
import type { EventStore } from '../../ports/eventStore';
import type { Projection } from '../../projection/projection';
import { epochAt, epochCommit } from '../../projection/epoch';
import type { LayoutDefinition, StoredRow } from './layouts';
import type { MemoryReadModel } from './readModel';

const FORMAT = 'palimpsest-read-model-snapshot';
const FORMAT_VERSION = 2;
/** Bytes gathered before each write to the file, and read from it at a time. */
const BLOCK = 16 * 2 ** 20;
const FRAME_HEADER = 12;

interface Header {
  format: typeof FORMAT;
  formatVersion: number;
  position: number;
  eventId: string;
  /** Projection name → its version and collections when the snapshot was written. */
  projections: Record<string, { version: number; collections: string[] }>;
  checkpoints: [string, Checkpoint][];
}

type RowMeta = [number, StoredRow['id'], number, StoredRow['values'], string[] | null];

/** Gathers frames in a block and writes it to the file when full. */
class FrameWriter {
  private block = Buffer.allocUnsafe(BLOCK);
  private used = 0;
  /** CRC-32 of the frames written so far. */
  crc = 0;

  constructor(private readonly fd: number) {}

  frame(meta: unknown, doc?: Uint8Array, text?: Uint8Array | null): void {
    const json = JSON.stringify(meta);
    const metaLength = Buffer.byteLength(json, 'utf8');
    const docLength = doc?.length ?? 0;
    const textLength = text?.length ?? 0;
    const size = FRAME_HEADER + metaLength + docLength + textLength;
    if (this.used + size > this.block.length) {
      this.flush();
      if (size > this.block.length) this.block = Buffer.allocUnsafe(size);
    }
    const b = this.block;
    let at = this.used;
    b.writeUInt32LE(metaLength, at);
    b.writeUInt32LE(docLength, at + 4);
    b.writeUInt32LE(textLength, at + 8);
    at += FRAME_HEADER;
    at += b.write(json, at, metaLength, 'utf8');
    if (doc) b.set(doc, at);
    at += docLength;
    if (text) b.set(text, at);
    at += textLength;
    this.crc = crc32(b.subarray(this.used, at), this.crc);
    this.used = at;
  }

  raw(bytes: Buffer): void {
    if (this.used + bytes.length > this.block.length) this.flush();
    if (bytes.length > this.block.length) {
      fs.writeSync(this.fd, bytes);
      return;
    }
    bytes.copy(this.block, this.used);
    this.used += bytes.length;
  }

  flush(): void {
    let at = 0;
    while (at < this.used) at += fs.writeSync(this.fd, this.block, at, this.used - at);
    this.used = 0;
  }
}

/** Writes the snapshot; false (and nothing written) when the read model holds no checkpoint yet. */
export async function writeSnapshot(
  file: string,
  readModel: MemoryReadModel,
  store: EventStore,
  projections: readonly Projection[],
): Promise<boolean> {
  const { checkpoints, rows } = readModel.dump();
  const position = Math.max(0, ...checkpoints.map(([, cp]) => cp.position));
  if (position === 0) return false;
  const [event] = await store.readAll({ fromPosition: position, maxCount: 1 });
  if (!event || event.position !== position) return false;
  const header: Header = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    position,
    eventId: event.id,
    projections: Object.fromEntries(
      projections.map((p) => [p.name, { version: p.version, collections: [...p.collections] }]),
    ),
    checkpoints,
  };
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temporary, 'w', 0o600);
  try {
    const out = new FrameWriter(fd);
    out.raw(Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'));
    const collectionNumbers = new Map<string, number>();
    const layoutNumbers = new Map<LayoutDefinition, number>();
    let count = 0;
    for (const row of rows) {
      let c = collectionNumbers.get(row.collection);
      if (c === undefined) {
        collectionNumbers.set(row.collection, (c = collectionNumbers.size));
        out.frame({ collection: row.collection });
      }
      let l = layoutNumbers.get(row.layout);
      if (l === undefined) {
        layoutNumbers.set(row.layout, (l = layoutNumbers.size));
        out.frame({ layout: row.layout });
      }
      const meta: RowMeta = [c, row.id, l, row.values, row.looseText];
      out.frame(meta, row.doc, row.text);
      count++;
    }
    out.frame({ end: count, crc32: out.crc });
    out.flush();
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  fs.renameSync(temporary, file);
  return true;
}

/** Why a snapshot is refused; thrown from inside the row stream so the read model's load undoes itself. */
class Refused extends Error {}

/** Reads the file in blocks, handing out byte ranges that stay valid until the next read. */
class BlockReader {
  private buffer = Buffer.allocUnsafe(BLOCK);
  private start = 0;
  private end = 0;
  private eof = false;
  /** CRC-32 of the frames read so far, and of those before the last one. */
  crc = 0;
  previousCrc = 0;

  constructor(private readonly fd: number) {}

  /** Lets the block go at once (it is as large as a chunk of documents). */
  release(): void {
    this.buffer = Buffer.alloc(0);
    this.start = this.end = 0;
  }

  /** Makes `n` bytes available from the current position; false at the end of the file before that. */
  private fill(n: number): boolean {
    while (this.end - this.start < n) {
      if (this.eof) return false;
      if (this.start > 0) {
        this.buffer.copy(this.buffer, 0, this.start, this.end);
        this.end -= this.start;
        this.start = 0;
      }
      if (n > this.buffer.length) {
        const larger = Buffer.allocUnsafe(Math.max(n, 2 * this.buffer.length));
        this.buffer.copy(larger, 0, 0, this.end);
        this.buffer = larger;
      }
      const read = fs.readSync(this.fd, this.buffer, this.end, this.buffer.length - this.end, null);
      if (read === 0) this.eof = true;
      this.end += read;
    }
    return true;
  }

  /** The first line (without its newline), or null when there is none within a block. */
  line(): string | null {
    this.fill(1);
    for (;;) {
      const newline = this.buffer.indexOf(10, this.start);
      if (newline >= 0 && newline < this.end) {
        const text = this.buffer.toString('utf8', this.start, newline);
        this.start = newline + 1;
        return text;
      }
      if (this.end - this.start >= BLOCK || !this.fill(this.end - this.start + 1)) return null;
    }
  }

  /**
   * The next frame, or null at the end of the file; throws Refused when the file ends inside one. `crc` is then
   * that of the frames before it (the end frame's own bytes are not in its sum).
   */
  frame(): { meta: unknown; doc: Buffer; text: Buffer } | null {
    if (!this.fill(1)) return null;
    if (!this.fill(FRAME_HEADER)) throw new Refused('truncated');
    const b = this.buffer;
    const metaLength = b.readUInt32LE(this.start);
    const docLength = b.readUInt32LE(this.start + 4);
    const textLength = b.readUInt32LE(this.start + 8);
    if (!this.fill(FRAME_HEADER + metaLength + docLength + textLength)) throw new Refused('truncated');
    let at = this.start + FRAME_HEADER;
    const meta: unknown = JSON.parse(this.buffer.toString('utf8', at, at + metaLength));
    at += metaLength;
    const doc = this.buffer.subarray(at, at + docLength);
    at += docLength;
    const text = this.buffer.subarray(at, at + textLength);
    const frame = this.buffer.subarray(this.start, at + textLength);
    this.start = at + textLength;
    const before = this.crc;
    this.crc = crc32(frame, before);
    this.previousCrc = before;
    return { meta, doc, text };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Loads the snapshot into the (empty) read model if it is whole and matches the log; returns what happened, for
 * the log. The header is checked first; rows then stream into the read model (no second copy of the site in
 * memory), and anything wrong further on empties the read model again.
 */
export async function loadSnapshot(
  file: string,
  readModel: MemoryReadModel,
  store: EventStore,
  projections: readonly Projection[],
): Promise<{ loaded: true; position: number; rows: number; rebuilt: string[] } | { loaded: false; reason: string }> {
  if (!fs.existsSync(file)) return { loaded: false, reason: 'no snapshot' };
  const fd = fs.openSync(file, 'r');
  const reading = new BlockReader(fd);
  try {
    let header: Header;
    try {
      const first = reading.line();
      if (first === null) return { loaded: false, reason: 'empty' };
      header = JSON.parse(first) as Header;
    } catch (error) {
      return { loaded: false, reason: `unreadable (${error instanceof Error ? error.message : String(error)})` };
    }
    if (header?.format !== FORMAT || header.formatVersion !== FORMAT_VERSION)
      return { loaded: false, reason: 'not a snapshot of this format' };
    const { position, checkpoints } = header;
    const sound = (cp: Checkpoint | undefined) =>
      Number.isSafeInteger(cp?.position) &&
      cp!.position >= 0 &&
      cp!.position <= position &&
      Number.isSafeInteger(cp!.version);
    if (
      !Number.isSafeInteger(position) ||
      typeof header.projections !== 'object' ||
      header.projections === null ||
      !Array.isArray(checkpoints) ||
      !checkpoints.every((entry) => Array.isArray(entry) && typeof entry[0] === 'string' && sound(entry[1]))
    ) {
      return { loaded: false, reason: 'its header is not sound' };
    }
    const [event] = await store.readAll({ fromPosition: position, maxCount: 1 });
    if (!event || event.position !== position || event.id !== header.eventId) {
      return {
        loaded: false,
        reason: `the log does not hold its event ${String(header.eventId)} at position ${position}`,
      };
    }
    // Projections whose version changed (or that are new) start from nothing: the projector rebuilds them.
    const kept = new Set<string>();
    const rebuilt: string[] = [];
    const owned = new Set<string>();
    for (const projection of projections) {
      const then = header.projections[projection.name];
      if (
        then &&
        then.version === projection.version &&
        Array.isArray(then.collections) &&
        then.collections.join('\u0000') === projection.collections.join('\u0000')
      ) {
        kept.add(projection.name);
        for (const collection of projection.collections) owned.add(collection);
      } else rebuilt.push(projection.name);
    }
    let count = 0;
    function* rows(): Generator<StoredRow> {
      const collections: string[] = [];
      const layouts: LayoutDefinition[] = [];
      for (let frame = reading.frame(); frame !== null; frame = reading.frame()) {
        const { meta } = frame;
        if (Array.isArray(meta)) {
          const [c, id, l, values, looseText] = meta as RowMeta;
          const collection = collections[c];
          const layout = layouts[l];
          if (collection === undefined || layout === undefined)
            throw new Refused('a row names an unknown collection or layout');
          count++;
          if (owned.has(collection))
            yield {
              collection,
              id,
              layout,
              values,
              doc: frame.doc,
              text: frame.text.length > 0 ? frame.text : null,
              looseText,
            };
        } else if (isRecord(meta) && typeof meta.collection === 'string') collections.push(meta.collection);
        else if (isRecord(meta) && isRecord(meta.layout)) layouts.push(meta.layout as unknown as LayoutDefinition);
        else if (isRecord(meta) && 'end' in meta) {
          if (meta.end !== count) throw new Refused('the row count does not match');
          if (meta.crc32 !== reading.previousCrc) throw new Refused('its checksum does not match');
          if (reading.frame() !== null) throw new Refused('data after the end');
          return;
        } else throw new Refused('a frame is not sound');
      }
      throw new Refused('truncated');
    }
    try {
      readModel.load(
        checkpoints.filter(([name]) => kept.has(name)),
        rows(),
      );
    } catch (error) {
      return {
        loaded: false,
        reason:
          error instanceof Refused
            ? error.message
            : `unreadable (${error instanceof Error ? error.message : String(error)})`,
      };
    }
    // Its event checked out: the read model is this log's, as an epoch says (src/projection/epoch.ts).
    await readModel.commit(epochCommit(await epochAt(store, position, Date.now())));
    return { loaded: true, position, rows: count, rebuilt };
  } finally {
    reading.release();
    fs.closeSync(fd);
  }
}
