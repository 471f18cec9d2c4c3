/**
 * Custom projections: every module directly inside the projection folders (the repository's `projections/`
 * and PROJECTIONS_DIR) whose default export is a projection joins the built-in ones. Modules that export
 * something else (helpers, the built-in list) are left alone; a module that tries to be a projection and
 * gets it wrong stops the start, so a typo never silently loses a read model.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Projection } from './projection';

const MODULE_DIR = path.dirname(fileURLToPath(import.meta.url));
/** Whether this module runs compiled (bin/build.js, under dist/<build>/src/projection/), not from its source. */
const COMPILED = import.meta.url.endsWith('.js');

/** The built-in projections' folder, wherever the process was started: the repository's `projections/`, or its build. */
export const BUILT_IN_PROJECTIONS_DIR = path.resolve(MODULE_DIR, '../../projections');

/** The repository's own `projections/` sources (a build is dist/<build>/ in the repository). */
const BUILT_IN_PROJECTION_SOURCES = COMPILED
  ? path.resolve(MODULE_DIR, '../../../../projections')
  : BUILT_IN_PROJECTIONS_DIR;

/**
 * The file to import for a projection module. Compiled, a source under the repository's `projections/` (such as
 * PROJECTIONS_DIR's default, or its examples) is imported from the build: the built-in ones are then the very same
 * objects, and no TypeScript loader is needed.
 */
function moduleToImport(file: string): string {
  if (!COMPILED) return file;
  const relative = path.relative(BUILT_IN_PROJECTION_SOURCES, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return file;
  const compiled = path.join(BUILT_IN_PROJECTIONS_DIR, relative.replace(/\.ts$/, '.js'));
  return fs.existsSync(compiled) ? compiled : file;
}

const MODULE_FILE = /\.(ts|mts|js|mjs)$/;
const NOT_A_MODULE = /(\.d\.ts|\.test\.[mc]?[jt]s)$/;
const NAME = /^[a-z0-9][a-z0-9_-]*$/;

export class ProjectionModuleError extends Error {}

/** The module files of one folder (not its subfolders), in name order; none when the folder is absent. */
export function projectionFiles(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile() && MODULE_FILE.test(entry.name) && !NOT_A_MODULE.test(entry.name))
    .map((entry) => path.join(dir, entry.name))
    .sort();
}

const TYPESCRIPT_FILE = /\.m?ts$/;
let typeScriptLoader: Promise<void> | null = null;

/**
 * Compiled, the process has no TypeScript loader (it costs a thread with its own V8 heap), so it registers tsx the
 * first time a projection module is TypeScript. From source, tsx already runs the process.
 */
function loadTypeScript(): Promise<void> {
  if (!COMPILED) return Promise.resolve();
  // Both of tsx's hooks: a .ts file outside a `"type": "module"` package is CommonJS to node.
  return (typeScriptLoader ??= Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => {
    esm.register();
    cjs.register();
  }));
}

/**
 * The default export of an imported module. A TypeScript module that node loaded as CommonJS (tsx registered after
 * start, outside a `"type": "module"` package) comes as its `exports`, which holds the real default export.
 */
function defaultExport(module: { default?: unknown }): unknown {
  const value = module.default as { __esModule?: unknown; default?: unknown } | undefined;
  return typeof value === 'object' && value !== null && value.__esModule === true && 'default' in value
    ? value.default
    : value;
}

/** Whether a default export means to be a projection (it then has to be a valid one). */
const claimsToBeProjection = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  ('evolve' in value || 'locate' in value || 'handles' in value);

/** The problems of a would-be projection, as sentences; empty when valid. */
export function projectionProblems(value: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const stringList = (v: unknown) =>
    Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s !== '');
  if (typeof value.name !== 'string' || !NAME.test(value.name))
    problems.push('`name` must be lower-case letters, digits, "-" or "_"');
  if (!Number.isInteger(value.version)) problems.push('`version` must be an integer');
  if (!stringList(value.collections)) problems.push('`collections` must list at least one collection name');
  if (!stringList(value.handles)) problems.push('`handles` must list at least one event type');
  for (const fn of ['locate', 'evolve'] as const)
    if (typeof value[fn] !== 'function') problems.push(`\`${fn}\` must be a function`);
  for (const fn of ['related', 'index'] as const)
    if (value[fn] !== undefined && typeof value[fn] !== 'function')
      problems.push(`\`${fn}\` must be a function when present`);
  return problems;
}

/**
 * Imports the projection modules of `dirs` and returns those that are not already in `builtIn` (the
 * built-in modules live in `projections/` too, and importing them again yields the very same objects).
 * Throws on an invalid projection, or on a name or collection another projection already has.
 */
export async function loadProjections(dirs: readonly string[], builtIn: readonly Projection[]): Promise<Projection[]> {
  const known = new Set(builtIn);
  const names = new Map<string, string>(builtIn.map((p) => [p.name, 'built in']));
  // A rebuild clears a projection's collections, so two projections must never share one.
  const owners = new Map<string, string>(
    builtIn.flatMap((p) => p.collections.map((c) => [c, `projection ${p.name}`] as const)),
  );
  const loaded: Projection[] = [];
  const seenFiles = new Set<string>();
  for (const dir of dirs) {
    for (const file of projectionFiles(path.resolve(dir)).map(moduleToImport)) {
      if (seenFiles.has(file)) continue;
      seenFiles.add(file);
      if (TYPESCRIPT_FILE.test(file)) await loadTypeScript();
      const candidate = defaultExport((await import(pathToFileURL(file).href)) as { default?: unknown });
      if (known.has(candidate as Projection) || !claimsToBeProjection(candidate)) continue;
      const problems = projectionProblems(candidate);
      if (problems.length > 0)
        throw new ProjectionModuleError(`${file}: not a valid projection: ${problems.join('; ')}`);
      const projection = candidate as unknown as Projection;
      const taken = names.get(projection.name);
      if (taken)
        throw new ProjectionModuleError(`${file}: a projection named "${projection.name}" already exists (${taken})`);
      const shared = projection.collections.find((c) => owners.has(c));
      if (shared !== undefined)
        throw new ProjectionModuleError(`${file}: collection "${shared}" already belongs to ${owners.get(shared)}`);
      names.set(projection.name, file);
      for (const c of projection.collections) owners.set(c, `projection ${projection.name}`);
      known.add(projection);
      loaded.push(projection);
    }
  }
  return loaded;
}
