/**
 * The floor of an in-memory rebuild on this machine: what reading a seeded log costs when nothing is done with it but
 * the least any JSON read model must do. Each event a projection handles is read from the SQLite log (the same
 * typed query shape the embedded store's subscription uses, in the projector's batches), its data and metadata are
 * parsed, and its data is serialised again and written as UTF-8 into a buffer: no fold, no index, no bookkeeping,
 * one reused buffer instead of fresh memory. The rate counts every event of the log, as the rebuild figure does.
 *
 *   npx tsx bench/replayFloor.ts DATA_DIR [--passes 3]
 *
 * Prints one JSON line: `{ events, passesMs, firstMs, bestMs, eventsPerSecond }` (eventsPerSecond over the best pass,
 * the floor; the first pass runs cold, as a start-up replay does). bench/run.ts runs it on each scale's log, in its
 * own process, while no server runs.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import builtIn from '../projections/index';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { passes: { type: 'string', default: '3' } },
});
const dataDir = positionals[0];
if (!dataDir) throw new Error('usage: bench/replayFloor.ts DATA_DIR [--passes N]');
const passes = Number(values.passes);

/** The embedded server's projector batch, in positions (MEMORY_PROJECTOR_BATCH in src/bootstrap.ts). */
const BATCH = 250;
const types = JSON.stringify([...new Set(builtIn.flatMap((projection) => projection.handles))]);

const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true });
const rows = db
  .prepare<{ after: number; end: number; types: string }, [number, string, number, string, string, string, string]>(
    'SELECT position, stream_id, revision, id, type, data, metadata FROM events WHERE position > @after AND position <= @end AND type IN (SELECT value FROM json_each(@types)) ORDER BY position',
  )
  .raw();
const head = db.prepare<[], number>('SELECT COALESCE(MAX(position), 0) FROM events').pluck().get()!;
const out = Buffer.allocUnsafe(1 << 20);

let sink = 0;
function pass(): number {
  const started = performance.now();
  for (let after = 0; after < head; after += BATCH) {
    for (const row of rows.all({ after, end: after + BATCH, types })) {
      const data: unknown = JSON.parse(row[5]);
      const metadata = JSON.parse(row[6]) as { at?: string };
      const json = JSON.stringify(data);
      // An event larger than the buffer is only counted, never written out of bounds.
      sink += json.length < out.length / 3 ? out.write(json, 0) : json.length;
      sink += metadata.at?.length ?? 0;
    }
  }
  return performance.now() - started;
}

const passesMs: number[] = [];
for (let i = 0; i < passes; i++) passesMs.push(pass());
db.close();
const bestMs = Math.min(...passesMs);
console.log(
  JSON.stringify({
    events: head,
    passesMs: passesMs.map(Math.round),
    firstMs: Math.round(passesMs[0]!),
    bestMs: Math.round(bestMs),
    eventsPerSecond: Math.round(head / (bestMs / 1000)),
    sink: sink > 0,
  }),
);
