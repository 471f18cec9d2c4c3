/**
 * Runs every `*.test.ts` file under test/ with uvu in one child process, echoes its output, and ends with the
 * one line CI reads: `N passed, N failed`. Exits non-zero when a test failed or the run broke.
 *
 *   tsx test/run.ts [pattern]     pattern: a regular expression over the file paths (default: every test)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pattern = process.argv[2] ?? '\\.test\\.ts$';
const uvuBin = path.join(root, 'node_modules', 'uvu', 'bin.js');

const child = spawn(process.execPath, ['--import', 'tsx', uvuBin, 'test', pattern], {
  cwd: root,
  env: { ...withoutForceColor(process.env), NO_COLOR: '1' },
  stdio: ['ignore', 'pipe', 'inherit'],
});

let output = '';
child.stdout.on('data', (chunk: Buffer) => {
  const text = chunk.toString();
  output += text;
  process.stdout.write(text);
});

child.on('close', (code) => {
  // uvu's summary: "Total: N", "Passed: N", "Skipped: N". Strip colour codes first, in case a terminal forced them.
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  const count = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? NaN);
  const total = count('Total');
  const passed = count('Passed');
  const skipped = count('Skipped') || 0;
  if (Number.isNaN(total) || Number.isNaN(passed)) {
    console.log('0 passed, 1 failed');
    console.error(`test run ended (exit ${code}) without uvu's summary`);
    process.exit(1);
  }
  // uvu's Total counts the tests that ran; skipped ones (`.skip`) are outside it.
  const failed = total - passed;
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(failed > 0 || code !== 0 ? 1 : 0);
});

/** uvu's colours are noise in CI logs; FORCE_COLOR would override NO_COLOR. */
function withoutForceColor(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { FORCE_COLOR: _ignored, ...rest } = env;
  return rest;
}
