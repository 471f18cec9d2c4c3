/**
 * A start-up replay on two cores. When the in-memory read model starts with several projections that have to be
 * folded from the beginning of the log (no snapshot, or projections it left out), a worker thread folds all but the
 * first of them, reading the SQLite log through a read-only connection of its own, while this thread folds the
 * first (the built-in order puts `content`, the heaviest, first). Each projection is folded whole on one side,
 * by the same Projector as always, so its documents and checkpoint are what an in-thread replay makes; the
 * worker hands its read model over as stored rows (one transferred buffer of bytes), which this read model
 * adopts as it loads a snapshot. The projector then starts as usual and catches every projection up from its
 * checkpoint.
 *
 * A worker that cannot start (its module or the projections cannot be loaded, or they differ from this thread's)
 * leaves its projections to the projector, which replays them in this thread. A worker that fails once started
 * (a projection's fold threw, the log could not be read) fails the start-up, as the same failure would in this
 * thread.
 */
import { Worker } from 'node:worker_threads';
import type { EventStore } from '../ports/eventStore';
import type { Checkpoint, DocId } from '../ports/readModel';
import type { LayoutDefinition, MemoryReadModel, StoredRow } from '../adapters/memory/readModel';
import type { Projection } from './projection';
import { Projector } from './runner';

/** What the worker is told (workerData). */
export interface ReplayWorkerInput {
  /** The SQLite log. */
  file: string;
  /** The projections it folds, by name, with the versions this thread has (the worker checks it has the same). */
  projections: { name: string; version: number }[];
  /** Where custom projections are loaded from (PROJECTIONS_DIR), as the site loads them. */
  projectionsDir: string;
  maxBatchSize?: number;
}

/** Messages from the worker. */
export type ReplayWorkerMessage =
  | { kind: 'ready' }
  | { kind: 'done'; rows: PackedRows }
  | { kind: 'failed'; started: boolean; message: string; stack?: string };

/** A read model's checkpoints and stored rows in one transferable buffer. */
export interface PackedRows {
  checkpoints: [string, Checkpoint][];
  collections: string[];
  layouts: LayoutDefinition[];
  /** Per row: collection number, id, layout number, values, document bytes, text bytes (-1: none), loose text. */
  rows: [number, DocId, number, StoredRow['values'], number, number, string[] | null][];
  /** Every row's document bytes then its text bytes, in row order. */
  bytes: ArrayBuffer;
}

/** Packs a read model's dump (its projections' checkpoints and rows) for postMessage, the buffer to transfer. */
export function packRows(dump: { checkpoints: [string, Checkpoint][]; rows: Iterable<StoredRow> }): PackedRows {
  const collections: string[] = [];
  const collectionNumbers = new Map<string, number>();
  const layouts: LayoutDefinition[] = [];
  const layoutNumbers = new Map<LayoutDefinition, number>();
  const rows: PackedRows['rows'] = [];
  const views: Uint8Array[] = [];
  let total = 0;
  for (const row of dump.rows) {
    let collection = collectionNumbers.get(row.collection);
    if (collection === undefined) {
      collectionNumbers.set(row.collection, (collection = collections.length));
      collections.push(row.collection);
    }
    let layout = layoutNumbers.get(row.layout);
    if (layout === undefined) {
      layoutNumbers.set(row.layout, (layout = layouts.length));
      layouts.push(row.layout);
    }
    rows.push([collection, row.id, layout, row.values, row.doc.length, row.text === null ? -1 : row.text.length, row.looseText]);
    views.push(row.doc);
    total += row.doc.length;
    if (row.text !== null) {
      views.push(row.text);
      total += row.text.length;
    }
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const view of views) {
    bytes.set(view, at);
    at += view.length;
  }
  return { checkpoints: dump.checkpoints, collections, layouts, rows, bytes: bytes.buffer };
}

/** The stored rows of a packed read model (views into its buffer). */
export function* unpackRows(packed: PackedRows): Iterable<StoredRow> {
  const bytes = new Uint8Array(packed.bytes);
  let at = 0;
  for (const [collection, id, layout, values, docLength, textLength, looseText] of packed.rows) {
    const doc = bytes.subarray(at, (at += docLength));
    const text = textLength < 0 ? null : bytes.subarray(at, (at += textLength));
    yield { collection: packed.collections[collection]!, id, layout: packed.layouts[layout]!, values, doc, text, looseText };
  }
}

export interface ParallelReplayOptions {
  store: EventStore;
  /** The SQLite file the store reads (the worker opens it read-only); null: no worker (another event store). */
  sqliteFile: string | null;
  readModel: MemoryReadModel;
  /** Every projection the projector runs, in its order. */
  projections: readonly Projection[];
  projectionsDir: string;
  maxBatchSize?: number;
  /** A log shorter than this is replayed in this thread alone (a worker's start costs more than it saves). */
  minEvents: number;
  log?: (message: string, detail?: unknown) => void;
  /** The worker's module (tests); this module's sibling by default. */
  workerUrl?: URL;
}

/** How the replay went: which projections the worker folded, or why it did not. */
export type ParallelReplayOutcome = { inWorker: string[]; ms: { thisThread: number; waitingForWorker: number; adopting: number } } | { skipped: string };

/**
 * Folds the projections that start from the beginning of the log, two threads at once; the rest is left to the
 * projector's start. Rejects when a fold fails on either side.
 */
export async function replayInParallel(options: ParallelReplayOptions): Promise<ParallelReplayOutcome> {
  const { readModel, log } = options;
  if (options.sqliteFile === null) return { skipped: 'not a SQLite log' };
  const fromScratch: Projection[] = [];
  for (const projection of options.projections) if ((await readModel.checkpoint(projection.name)) === null) fromScratch.push(projection);
  if (fromScratch.length < 2) return { skipped: 'fewer than two projections to replay' };
  if ((await options.store.headPosition()) < options.minEvents) return { skipped: 'a short log' };
  const [here, ...there] = fromScratch as [Projection, ...Projection[]];

  const input: ReplayWorkerInput = {
    file: options.sqliteFile,
    projections: there.map((p) => ({ name: p.name, version: p.version })),
    projectionsDir: options.projectionsDir,
    maxBatchSize: options.maxBatchSize,
  };
  let worker: Worker;
  try {
    worker = startWorker(options.workerUrl ?? workerModule(), input);
  } catch (error) {
    log?.('start-up replay: no worker thread, replaying in this thread', error instanceof Error ? error.message : error);
    return { skipped: 'the worker could not start' };
  }
  const result = workerResult(worker);
  // Its fold runs alongside ours; its outcome is awaited below (a rejection is not left unhandled meanwhile).
  result.catch(() => undefined);

  const started = performance.now();
  const projector = new Projector({ store: options.store, readModel, projections: [here], maxBatchSize: options.maxBatchSize, log });
  try {
    await projector.start();
    await projector.stop();
    const failure = projector.failures[0];
    if (failure) throw failure.error;
  } catch (error) {
    await worker.terminate();
    throw error;
  }

  const folded = performance.now();
  const outcome = await result;
  const received = performance.now();
  if ('notStarted' in outcome) {
    log?.('start-up replay: the worker thread could not start, replaying in this thread', outcome.notStarted.message);
    return { skipped: 'the worker could not start' };
  }
  readModel.adopt(outcome.checkpoints, unpackRows(outcome));
  const ms = { thisThread: Math.round(folded - started), waitingForWorker: Math.round(received - folded), adopting: Math.round(performance.now() - received) };
  return { inWorker: there.map((p) => p.name), ms };
}

/** The worker module next to this one, compiled or not. */
function workerModule(): URL {
  return new URL(import.meta.url.endsWith('.ts') ? './replayWorker.ts' : './replayWorker.js', import.meta.url);
}

/**
 * Starts the worker. A TypeScript module (run from source) needs tsx registered in the thread first: the loader
 * the process was started with does not carry over to workers.
 */
function startWorker(module: URL, input: ReplayWorkerInput): Worker {
  if (!module.pathname.endsWith('.ts')) return new Worker(module, { workerData: input });
  const tsx = import.meta.resolve('tsx/esm/api');
  const script = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(script, { eval: true, workerData: input });
}

/**
 * The worker's rows, or why it failed before it started folding (it could not load what it needs); rejects
 * when it failed while folding.
 */
function workerResult(worker: Worker): Promise<PackedRows | { notStarted: Error }> {
  return new Promise((resolve, reject) => {
    let started = false;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      if (started) reject(error);
      else resolve({ notStarted: error });
    };
    worker.on('message', (message: ReplayWorkerMessage) => {
      if (message.kind === 'ready') started = true;
      else if (message.kind === 'done') {
        settled = true;
        resolve(message.rows);
      } else {
        const error = new Error(`start-up replay worker: ${message.message}`);
        if (message.stack) error.stack = message.stack;
        started = message.started;
        fail(error);
      }
    });
    worker.on('error', (error) => fail(error));
    worker.on('exit', (code) => fail(new Error(`start-up replay worker exited (code ${code}) without its result`)));
  });
}
