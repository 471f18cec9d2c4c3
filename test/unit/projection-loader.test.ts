/** Loading custom projection modules from `projections/` and PROJECTIONS_DIR. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILT_IN_PROJECTIONS_DIR, loadProjections, projectionFiles } from '../../src/projection/loader';
import { loadConfig } from '../../src/config';
import { siteProjections } from '../../src/bootstrap';
import builtIn from '../../projections/index';
import wordCount from '../../projections/examples/publishedWordCount';

const test = suite('projection loader');

const dirs: string[] = [];
function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-projections-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}
test.after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const module = (name: string, collection = name, extra = '') => `export default {
  name: '${name}', version: 1, collections: ['${collection}'], handles: ['PostCreated'],
  locate: (event) => ({ collection: '${collection}', id: event.data.id }),
  evolve: (doc, event) => ({ id: event.data.id, seen: true }),${extra}
};
`;

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  return assert.unreachable('should have failed') as never;
}

test('the repository folder holds only built-in projections: nothing extra is loaded from it', async () => {
  assert.ok(projectionFiles(BUILT_IN_PROJECTIONS_DIR).some((file) => file.endsWith('content.ts')));
  assert.equal(await loadProjections([BUILT_IN_PROJECTIONS_DIR], builtIn), []);
});

test('valid modules (JavaScript or TypeScript) load in name order; helpers and subfolders are left alone', async () => {
  const dir = folder({
    'b-visits.mjs': module('visits'),
    'a-typed.ts': `import type { RecordedEvent } from '${path.resolve('src/ports/eventStore').replace(/\\/g, '/')}';
export default {
  name: 'typed', version: 2, collections: ['typed'], handles: ['PostCreated'],
  locate: (event: RecordedEvent) => ({ collection: 'typed', id: (event.data as { id: number }).id }),
  evolve: () => null,
};
`,
    'helpers.mjs': 'export default function helper() { return 1; }\nexport const x = 1;',
    'notes.md': '# not a module',
    'types.d.ts': 'export type X = 1;',
    'nested/deeper.mjs': module('deeper'),
  });
  const loaded = await loadProjections([dir], builtIn);
  assert.equal(
    loaded.map((p) => p.name),
    ['typed', 'visits'],
  );
  assert.is(loaded[0]!.version, 2);
});

test('a module that means to be a projection but is not one stops the start, saying why', async () => {
  const dir = folder({
    'broken.mjs': "export default { name: 'Bad Name', version: '1', collections: [], handles: ['X'], evolve() {} };",
  });
  const message = await failure(loadProjections([dir], builtIn));
  assert.match(message, /broken\.mjs: not a valid projection/);
  assert.match(message, /`name`/);
  assert.match(message, /`version`/);
  assert.match(message, /`collections`/);
  assert.match(message, /`locate`/);
});

test('names and collections cannot be taken twice, nor from a built-in projection', async () => {
  assert.match(
    await failure(loadProjections([folder({ 'x.mjs': module('content', 'mine') })], builtIn)),
    /named "content" already exists/,
  );
  assert.match(
    await failure(loadProjections([folder({ 'x.mjs': module('mine', 'post') })], builtIn)),
    /collection "post" already belongs to projection content/,
  );
  assert.match(
    await failure(
      loadProjections(
        [folder({ 'x.mjs': module('twice', 'one') }), folder({ 'y.mjs': module('twice', 'two') })],
        builtIn,
      ),
    ),
    /named "twice" already exists/,
  );
});

test('the same folder given twice loads once; a missing folder is no error', async () => {
  const dir = folder({ 'v.mjs': module('once') });
  const loaded = await loadProjections([dir, dir, path.join(dir, 'absent')], builtIn);
  assert.equal(
    loaded.map((p) => p.name),
    ['once'],
  );
});

test('PROJECTIONS_DIR adds its projections after the built-in ones, as the same module objects', async () => {
  const config = loadConfig({ PROJECTIONS_DIR: 'projections/examples' }, process.cwd());
  const projections = await siteProjections(config);
  assert.equal(projections.slice(0, builtIn.length), [...builtIn]);
  assert.equal(projections.map((p) => p.name).slice(builtIn.length), ['published-word-count']);
  assert.ok(projections.includes(wordCount as never), 'the loaded example is the imported module');
  assert.equal((await siteProjections(loadConfig({}, process.cwd()))).length, builtIn.length);
});

test.run();
