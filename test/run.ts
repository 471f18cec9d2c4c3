/**
 * Runs the `*.test.ts` files under test/ with uvu, in parallel worker processes, and ends with the one line CI
 * reads: `N passed, N failed`. Exits non-zero when a test failed or a run broke.
 *
 *   tsx test/run.ts [pattern]     pattern: a regular expression over the paths under test/ (default: every test)
 *
 * The files are cut into batches that the workers take from one queue, so a slow batch does not leave a worker
 * idle; each batch is one uvu process, and its output is printed whole when it ends. TEST_WORKERS sets how many
 * run at once (default: the number of CPUs, at most 4); TEST_WORKERS=1 runs one batch at a time.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testDir = path.join(root, 'test');
const uvuBin = path.join(root, 'node_modules', 'uvu', 'bin.js');
/** Which test files run: those whose path under test/ matches (all of them by default). */
const pattern = new RegExp(process.argv[2] ?? '', 'i');
const workers = workerCount(process.env.TEST_WORKERS);
/** Batches per worker: more batches balance better, each costs one process start (about a second). */
const BATCHES_PER_WORKER = 4;

interface Outcome {
  total: number;
  passed: number;
  skipped: number;
  broken: boolean;
}

const files = testFiles(testDir, '').filter((name) => pattern.test(name));
if (files.length === 0) {
  console.log('0 passed, 1 failed');
  console.error(`no test file matches ${pattern}`);
  process.exit(1);
}
const batches = cut(files, Math.min(files.length, workers * BATCHES_PER_WORKER));
const outcomes: Outcome[] = [];
const queue = [...batches];
await Promise.all(
  Array.from({ length: Math.min(workers, batches.length) }, async () => {
    for (let batch = queue.shift(); batch; batch = queue.shift()) outcomes.push(await runBatch(batch));
  }),
);

const sum = (key: 'total' | 'passed' | 'skipped') => outcomes.reduce((n, o) => n + o[key], 0);
const broken = outcomes.filter((o) => o.broken).length;
// uvu's Total counts the tests that ran; skipped ones (`.skip`) are outside it. A batch that ended without its
// summary counts as one failure, so a crash can never pass.
const failed = sum('total') - sum('passed') + broken;
const skipped = sum('skipped');
console.log(`${sum('passed')} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);

function runBatch(batch: string[]): Promise<Outcome> {
  const only = `^(?:${batch.map(escapeRegExp).join('|')})$`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', uvuBin, 'test', only], {
      cwd: root,
      env: { ...withoutForceColor(process.env), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('close', (code, signal) => {
      process.stdout.write(`\n── ${batch.length} file(s): ${batch[0]} … ${batch[batch.length - 1]}\n${output}`);
      // uvu's summary: "Total: N", "Passed: N", "Skipped: N". Colour codes are stripped in case a terminal forced them.
      const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
      const count = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? NaN);
      const total = count('Total');
      const passed = count('Passed');
      if (Number.isNaN(total) || Number.isNaN(passed)) {
        console.error(`batch ${batch.join(', ')} ended (exit ${code ?? signal}) without uvu's summary`);
        resolve({ total: 0, passed: 0, skipped: 0, broken: true });
        return;
      }
      resolve({ total, passed, skipped: count('Skipped') || 0, broken: code !== 0 && total === passed });
    });
  });
}

/** The paths under test/ (relative, with `/`), as uvu names them, leaving out node_modules. */
function testFiles(dir: string, prefix: string): string[] {
  const names: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const name = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) names.push(...testFiles(path.join(dir, entry.name), name));
    else if (entry.isFile() && name.endsWith('.test.ts')) names.push(name);
  }
  return names.sort();
}

/** `count` batches of neighbouring files (files of one folder tend to share set-up), as even in size as may be. */
function cut(names: string[], count: number): string[][] {
  const batches: string[][] = [];
  for (let i = 0; i < count; i++) {
    batches.push(names.slice(Math.floor((i * names.length) / count), Math.floor(((i + 1) * names.length) / count)));
  }
  return batches.filter((batch) => batch.length > 0);
}

function workerCount(setting: string | undefined): number {
  if (setting === undefined || setting === '') return Math.max(1, Math.min(4, availableParallelism()));
  const n = Number(setting);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`TEST_WORKERS must be a positive integer, not ${JSON.stringify(setting)}`);
    process.exit(2);
  }
  return n;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** uvu's colours are noise in CI logs; FORCE_COLOR would override NO_COLOR. */
function withoutForceColor(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { FORCE_COLOR: _ignored, ...rest } = env;
  return rest;
}
