#!/usr/bin/env node
/**
 * The build: the TypeScript of src/ and projections/ compiled to JavaScript by esbuild, one output file per source
 * file in the same layout, under dist/<hash of the sources>/. The `palimpsest` command (and so `npm start`) runs
 * it on plain node: a TypeScript loader (tsx) costs a thread with its own V8 heap, ~43 MB of resident memory
 * (docs/performance.md, "Resident memory at 100,000 posts (stop 11)"). `ensureBuilt()` builds only when no build
 * of the current sources exists (a few hundred milliseconds); `node bin/build.js` builds and prints the folder.
 * Files that modules read at run time from beside themselves (the Redis read model's Lua scripts,
 * src/readModel/redis/lua/*.lua) are copied into the build in the same layout, and are part of what names it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUILDS_DIR = path.join(ROOT, 'dist');
const SOURCE_DIRS = ['src', 'projections'];
const MODULE_FILE = /\.(ts|js)$/;
const NOT_BUILT = /(\.d\.ts|\.test\.[jt]s)$/;
/** Read by modules at run time from beside themselves: copied as they are. */
const COPIED_FILE = /\.lua$/;
/** Builds of other sources are removed once this old: a process started from one may still be importing from it. */
const OLD_BUILD_MS = 10 * 60_000;

/** The source files to compile (or, with another test, to copy), relative to the repository, in a stable order. */
function sourceFiles(test = (name) => MODULE_FILE.test(name) && !NOT_BUILT.test(name)) {
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.isFile() && test(entry.name)) files.push(relative);
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  return files.sort();
}

/** A build is named by what it is made of: the sources' (and copied files') paths and contents, this script and tsconfig.json. */
function buildName(files) {
  const hash = crypto.createHash('sha256');
  for (const file of [...files, 'bin/build.js', 'tsconfig.json']) {
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(ROOT, file)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The import specifier of a relative import as node needs it: the sources import `./config` or `../main` (resolved
 * like a bundler), the output has `./config.js`. A folder import becomes its `index.js`.
 */
function compiledSpecifier(fromDir, specifier) {
  const target = path.resolve(fromDir, specifier);
  const withoutTs = specifier.replace(/\.ts$/, '');
  if (specifier.endsWith('.ts') || fs.existsSync(`${target}.ts`)) return `${withoutTs}.js`;
  if (fs.existsSync(path.join(target, 'index.ts'))) return `${specifier.replace(/\/$/, '')}/index.js`;
  return specifier;
}

/** One output file per source: every import stays an import, relative ones pointed at the compiled file. */
const oneFilePerSource = {
  name: 'one-file-per-source',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const relative = args.path.startsWith('./') || args.path.startsWith('../');
      return { path: relative ? compiledSpecifier(args.resolveDir, args.path) : args.path, external: true };
    });
  },
};

async function compile(files, copied, outdir) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: files,
    outdir,
    outbase: ROOT,
    bundle: true,
    plugins: [oneFilePerSource],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'error',
  });
  for (const file of copied) {
    fs.mkdirSync(path.join(outdir, path.dirname(file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(outdir, file));
  }
}

/** Removes builds of other sources, and staging folders left by a build that died, once they are old. */
function removeOldBuilds(keep) {
  for (const entry of fs.readdirSync(BUILDS_DIR)) {
    if (entry === keep) continue;
    const dir = path.join(BUILDS_DIR, entry);
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs > OLD_BUILD_MS) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another process removed it first.
    }
  }
}

/** The folder of the build of the current sources (`<folder>/src/main.js`, ...), built first when missing. */
export async function ensureBuilt() {
  const files = sourceFiles();
  const copied = sourceFiles((name) => COPIED_FILE.test(name));
  const name = buildName([...files, ...copied]);
  const dir = path.join(BUILDS_DIR, name);
  if (fs.existsSync(dir)) return dir;
  // Built beside and renamed into place, so a process never sees half a build, and two processes starting at
  // once from the same sources both end up with the one that was renamed first.
  const staging = path.join(BUILDS_DIR, `${name}.${process.pid}.tmp`);
  fs.mkdirSync(BUILDS_DIR, { recursive: true });
  await compile(files, copied, staging);
  try {
    fs.renameSync(staging, dir);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    if (!fs.existsSync(dir)) throw error;
  }
  removeOldBuilds(name);
  return dir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(path.relative(process.cwd(), await ensureBuilt()) || '.');
}
