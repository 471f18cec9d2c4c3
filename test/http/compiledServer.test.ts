/**
 * The server as `npm start` and `palimpsest serve` run it: compiled by bin/build.js and run on plain node, with a
 * TypeScript projection module in PROJECTIONS_DIR (tsx is then registered for it alone).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, freePort, kill9, startPalimpsest } from '../support/processes';
// @ts-expect-error: bin/build.js is plain JavaScript without type declarations
import { ensureBuilt } from '../../bin/build.js';

const test = suite('the compiled server');

const TYPED_PROJECTION = `
interface Seen { id: number; seen: boolean }
const collection: string = 'compiled-check';
export default {
  name: 'compiled-check', version: 1, collections: [collection], handles: ['PostCreated'],
  locate: (event: { data: { id: number } }) => ({ collection, id: event.data.id }),
  evolve: (_doc: Seen | null, event: { data: { id: number } }): Seen => ({ id: event.data.id, seen: true }),
};
`;

test("the build is JavaScript in the sources' layout, its built-in projections beside it", async () => {
  const built = (await ensureBuilt()) as string;
  assert.ok(built.startsWith(path.join(ROOT, 'dist') + path.sep));
  for (const file of ['src/main.js', 'src/cli/index.js', 'projections/index.js', 'projections/content.js'])
    assert.ok(fs.existsSync(path.join(built, file)), file);
  // Files the modules read from beside themselves at run time: the Redis read model's Lua scripts, as they are.
  const lua = path.join(ROOT, 'src/readModel/redis/lua');
  for (const file of fs.readdirSync(lua))
    assert.is(
      fs.readFileSync(path.join(built, 'src/readModel/redis/lua', file), 'utf8'),
      fs.readFileSync(path.join(lua, file), 'utf8'),
      file,
    );
  assert.is(await ensureBuilt(), built, 'the same sources give the same build');
  const loader = (await import(pathToFileURL(path.join(built, 'src/projection/loader.js')).href)) as {
    BUILT_IN_PROJECTIONS_DIR: string;
  };
  assert.is(loader.BUILT_IN_PROJECTIONS_DIR, path.join(built, 'projections'));
});

test('palimpsest serve runs the build, answers, and loads a TypeScript projection from PROJECTIONS_DIR', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-compiled-'));
  const projectionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-compiled-projections-'));
  fs.writeFileSync(path.join(projectionsDir, 'compiledCheck.ts'), TYPED_PROJECTION);
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PROJECTIONS_DIR: projectionsDir,
    REDIS_URL: '',
    EVENTSTORE_URL: '',
  };
  const server = await startPalimpsest(['serve'], env, 'palimpsest serving', 30_000);
  try {
    const posts = await fetch(`${server.base}/core/v2/posts`);
    assert.is(posts.status, 200);
    assert.equal(await posts.json(), []);
    const index = (await (await fetch(`${server.base}/`)).json()) as { routes: Record<string, unknown> };
    assert.ok('/projections/v1/compiled-check' in index.routes, 'the TypeScript projection is installed');
    assert.ok('/core/v2/posts' in index.routes);
    // The audit page's static files are found from the build too (they are read from the sources' folder).
    const auditPage = await fetch(`${server.base}/audit/audit.mjs`);
    assert.is(auditPage.status, 200);
    assert.match(await auditPage.text(), /^\/\*\*/);
  } finally {
    await kill9(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(projectionsDir, { recursive: true, force: true });
  }
});

test.run();
