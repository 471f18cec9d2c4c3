/**
 * A durable snapshot of the in-memory read model, so an embedded start-up loads it and catches up from the log
 * instead of replaying all of it. It is written on a clean shutdown (to a temporary file, then renamed over the
 * last one), from a stopped projector, so its documents and checkpoints agree.
 *
 * It records the highest checkpoint position and the id of the event there. At start-up it is used only if it
 * parses completely (an end line counts the rows) and that event is still at that position in the log (the
 * log was not replaced or restored from an older backup); a projection whose version changed since is left out,
 * so the projector rebuilds it from the log. Anything wrong with the file: it is ignored and the log replayed.
 * A snapshot older than the log (a crash skipped the write) is still a true state of the log's beginning: the
 * projector carries on from its checkpoints.
 *
 * Format, one JSON value per line: a header, then one document per line `[collection, id, doc]`, then
 * `{"end": rows}`. Index entries are not kept: loading computes them with the projections' own `index`, as a
 * commit does.
 */
import fs from 'node:fs';
import type { Checkpoint } from '../../ports/readModel';
import type { EventStore } from '../../ports/eventStore';
import type { Projection } from '../../projection/projection';
import type { MemoryReadModel, SnapshotRow } from './readModel';

const FORMAT = 'palimpsest-read-model-snapshot';
const FORMAT_VERSION = 1;

interface Header {
  format: typeof FORMAT;
  formatVersion: number;
  position: number;
  eventId: string;
  /** Projection name → its version and collections when the snapshot was written. */
  projections: Record<string, { version: number; collections: string[] }>;
  checkpoints: [string, Checkpoint][];
}

type Line = [string, SnapshotRow['id'], SnapshotRow['doc']];

/** Writes the snapshot; false (and nothing written) when the read model holds no checkpoint yet. */
export async function writeSnapshot(file: string, readModel: MemoryReadModel, store: EventStore, projections: readonly Projection[]): Promise<boolean> {
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
    projections: Object.fromEntries(projections.map((p) => [p.name, { version: p.version, collections: [...p.collections] }])),
    checkpoints,
  };
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temporary, 'w', 0o600);
  try {
    let chunk: string[] = [JSON.stringify(header)];
    let size = 0;
    let count = 0;
    for (const row of rows) {
      const line: Line = [row.collection, row.id, row.doc];
      const json = JSON.stringify(line);
      chunk.push(json);
      size += json.length;
      count++;
      if (size > 8 * 2 ** 20) {
        fs.writeSync(fd, `${chunk.join('\n')}\n`);
        chunk = [];
        size = 0;
      }
    }
    chunk.push(JSON.stringify({ end: count }));
    fs.writeSync(fd, `${chunk.join('\n')}\n`);
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

/** Each line of the file, decoded, read in chunks (a whole snapshot can exceed the longest string V8 allows). */
function* lines(file: string): Generator<string> {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(16 * 2 ** 20);
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      let start = 0;
      for (let newline = data.indexOf(10, start); newline >= 0; newline = data.indexOf(10, start)) {
        yield data.toString('utf8', start, newline);
        start = newline + 1;
      }
      carry = Buffer.from(data.subarray(start));
    }
    if (carry.length > 0) yield carry.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Why a snapshot is refused; thrown from inside the row stream so the read model's load undoes itself. */
class Refused extends Error {}

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
  const reading = lines(file);
  try {
    let header: Header;
    try {
      const first = reading.next();
      if (first.done) return { loaded: false, reason: 'empty' };
      header = JSON.parse(first.value) as Header;
    } catch (error) {
      return { loaded: false, reason: `unreadable (${error instanceof Error ? error.message : String(error)})` };
    }
    if (header?.format !== FORMAT || header.formatVersion !== FORMAT_VERSION) return { loaded: false, reason: 'not a snapshot of this format' };
    const { position, checkpoints } = header;
    const sound = (cp: Checkpoint | undefined) =>
      Number.isSafeInteger(cp?.position) && cp!.position >= 0 && cp!.position <= position && Number.isSafeInteger(cp!.version);
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
      return { loaded: false, reason: `the log does not hold its event ${String(header.eventId)} at position ${position}` };
    }
    // Projections whose version changed (or that are new) start from nothing: the projector rebuilds them.
    const kept = new Set<string>();
    const rebuilt: string[] = [];
    const owners = new Map<string, Projection>();
    for (const projection of projections) {
      const then = header.projections[projection.name];
      if (then && then.version === projection.version && Array.isArray(then.collections) && then.collections.join('\u0000') === projection.collections.join('\u0000')) {
        kept.add(projection.name);
        for (const collection of projection.collections) owners.set(collection, projection);
      } else rebuilt.push(projection.name);
    }
    let count = 0;
    function* rows(): Generator<SnapshotRow> {
      let ended = false;
      for (const text of reading) {
        if (ended) throw new Refused('data after the end line');
        const value: unknown = JSON.parse(text);
        if (!Array.isArray(value)) {
          if ((value as { end?: unknown } | null)?.end !== count) throw new Refused('the row count does not match');
          ended = true;
          continue;
        }
        count++;
        const [collection, id, doc] = value as Line;
        if (owners.has(collection)) yield { collection, id, doc };
      }
      if (!ended) throw new Refused('truncated');
    }
    try {
      readModel.load(
        checkpoints.filter(([name]) => kept.has(name)),
        rows(),
        (doc, collection) => owners.get(collection)!.index?.(doc, collection),
      );
    } catch (error) {
      return { loaded: false, reason: error instanceof Refused ? error.message : `unreadable (${error instanceof Error ? error.message : String(error)})` };
    }
    return { loaded: true, position, rows: count, rebuilt };
  } finally {
    reading.return(undefined);
  }
}
