/**
 * The WordPress post editor built for a browser from the npm packages: test/clients/editor/page.js (edit-post's
 * `initializeEditor()` with api-fetch pointed at a site) bundled by esbuild into one script, and the packages' own
 * style sheets into one CSS file. The build takes tens of seconds, so it is kept in the system's temp folder under
 * a key made of the lock file and the page's source: a later run with the same packages reuses it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY = path.join(ROOT, 'test/clients/editor/page.js');

/** The packages whose styles the editor needs, as wp-admin enqueues them for post.php. */
const STYLES = [
  'components/build-style/style.css',
  'block-editor/build-style/style.css',
  'block-library/build-style/style.css',
  'block-library/build-style/editor.css',
  'block-library/build-style/theme.css',
  'editor/build-style/style.css',
  'edit-post/build-style/style.css',
  'interface/build-style/style.css',
  'patterns/build-style/style.css',
  'media-utils/build-style/style.css',
  'notices/build-style/style.css',
];

export interface EditorBundle {
  /** The folder holding `editor.js` and `editor.css`. */
  dir: string;
  js: string;
  css: string;
}

export async function buildEditorBundle(): Promise<EditorBundle> {
  const key = createHash('sha256')
    .update(fs.readFileSync(path.join(ROOT, 'package-lock.json')))
    .update(fs.readFileSync(ENTRY))
    .update(fs.readFileSync(fileURLToPath(import.meta.url)))
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(os.tmpdir(), `palimpsest-editor-${key}`);
  const bundle = { dir, js: path.join(dir, 'editor.js'), css: path.join(dir, 'editor.css') };
  if (fs.existsSync(bundle.js) && fs.existsSync(bundle.css)) return bundle;
  // Built beside the final folder and renamed into place, so a run that stops halfway leaves nothing reusable.
  const building = fs.mkdtempSync(path.join(os.tmpdir(), `palimpsest-editor-${key}-`));
  const script = await esbuild.build({
    entryPoints: { editor: ENTRY },
    bundle: true,
    format: 'iife',
    outdir: building,
    minify: true,
    target: 'chrome120',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
    metafile: true,
  });
  const twice = duplicatedPackages(Object.keys(script.metafile.inputs));
  if (twice.length > 0) {
    fs.rmSync(building, { recursive: true, force: true });
    // Two copies of a package with a data store register it twice and split the editor's state between them.
    throw new Error(`the editor bundle holds more than one copy of ${twice.join('; ')} (npm ls; npm dedupe)`);
  }
  const nodeModules = path.join(ROOT, 'node_modules/@wordpress');
  await esbuild.build({
    stdin: {
      contents: STYLES.map((file) => `@import ${JSON.stringify(path.join(nodeModules, file))};`).join('\n'),
      loader: 'css',
      resolveDir: ROOT,
    },
    bundle: true,
    outfile: path.join(building, 'editor.css'),
    loader: {
      '.woff2': 'dataurl',
      '.woff': 'dataurl',
      '.ttf': 'dataurl',
      '.svg': 'dataurl',
      '.png': 'dataurl',
      '.gif': 'dataurl',
    },
    logLevel: 'error',
  });
  try {
    fs.renameSync(building, dir);
  } catch (error) {
    // Another run renamed its own build into place first: use that one.
    if (!fs.existsSync(bundle.js)) throw error;
    fs.rmSync(building, { recursive: true, force: true });
  }
  return bundle;
}

/**
 * The @wordpress packages and React whose modules come from more than one folder, with those folders: each copy
 * would register its own data store or React context.
 */
function duplicatedPackages(inputs: string[]): string[] {
  const folders = new Map<string, Set<string>>();
  for (const input of inputs) {
    const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
    if (!match) continue;
    const [, folder, name] = match as unknown as [string, string, string];
    if (!folders.has(name)) folders.set(name, new Set());
    folders.get(name)!.add(folder);
  }
  return [...folders]
    .filter(
      ([name, where]) => (name.startsWith('@wordpress/') || name === 'react' || name === 'react-dom') && where.size > 1,
    )
    .map(([name, where]) => `${name} (${[...where].join(', ')})`);
}
