/**
 * The worker thread of a start-up replay (parallelReplay.ts): folds its projections from the beginning of the SQLite
 * log into a read model of its own, then hands that over as packed stored rows and exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteEventStore } from '../adapters/sqlite/eventStore';
import { createMemoryReadModel } from '../adapters/memory/readModel';
import builtInProjections from '../../projections/index';
import { BUILT_IN_PROJECTIONS_DIR, loadProjections } from './loader';
import { packRows } from './parallelReplay';
import type { ReplayWorkerInput, ReplayWorkerMessage } from './parallelReplay';
import type { Projection } from './projection';
import { Projector } from './runner';

const input = workerData as ReplayWorkerInput;
const post = (message: ReplayWorkerMessage, transfer?: ArrayBuffer[]) => parentPort!.postMessage(message, transfer);
let started = false;

async function run(): Promise<void> {
  // The site's projections, loaded as the site loads them (src/bootstrap.ts, siteProjections), then the named ones.
  const custom = await loadProjections([BUILT_IN_PROJECTIONS_DIR, input.projectionsDir], builtInProjections);
  const all: Projection[] = [...builtInProjections, ...custom];
  const projections = input.projections.map(({ name, version }) => {
    const found = all.find((p) => p.name === name);
    if (found === undefined) throw new Error(`no projection named ${name} here`);
    if (found.version !== version) throw new Error(`projection ${name} is version ${found.version} here, ${version} in the server`);
    return found;
  });
  const store = openSqliteEventStore({ file: input.file, readOnly: true });
  try {
    const readModel = createMemoryReadModel({ parsedDocsKept: 0 });
    const projector = new Projector({ store, readModel, projections, maxBatchSize: input.maxBatchSize });
    started = true;
    post({ kind: 'ready' });
    await projector.start();
    await projector.stop();
    const failure = projector.failures[0];
    if (failure) throw failure.error;
    const rows = packRows(readModel.dump());
    post({ kind: 'done', rows }, [rows.bytes]);
  } finally {
    await store.close();
  }
}

run().catch((error: unknown) => {
  post({ kind: 'failed', started, message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined });
});
