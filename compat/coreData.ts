/**
 * `npx tsx compat/coreData.ts`: runs the @wordpress/core-data client test (test/clients/coreData.test.ts) against
 * palimpsest and against the reference WordPress, and compares what each core-data operation came to, operation by
 * operation (their outcomes name ids, the site and the run's marker symbolically, so they compare across sites).
 * Prints how many operations behave alike and every difference, with the reason for those that are deliberate.
 * A tool, not a test: it exits 0 whatever it finds (1 only when it cannot run).
 *
 *   tsx compat/coreData.ts [--credentials FILE]   (default /var/lib/wordpress-ref/credentials.json)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';

const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Operations whose outcomes differ on purpose, and why (docs/compatibility.md has the details). */
const DELIBERATE: Record<string, string> = {
  'types.list': 'types-not-served: wp_template_part and wp_navigation, whose routes are not served, are not listed.',
  'theme.current':
    'each site its own theme: twentytwentythree on the reference, the site defaults (`palimpsest`) here.',
  'base.get': "the index's site fields: page_for_posts, page_on_front and show_on_front, as WordPress 6.7 gives them.",
  patterns: 'block patterns and their categories: none unless the deployment gives some (BLOCK_PATTERNS_DIR).',
  embedPreview:
    'outgoing requests: the reference fetches its own pages through the oEmbed proxy and refuses its port (8081); palimpsest answers its own URLs from its data.',
  'media.upload.sizes': 'attachment-featured-media: attachments have a featured_media field.',
  'media.featured': 'attachment-featured-media: attachments have a featured_media field.',
  'user.create.duplicate':
    'insert errors: a duplicate login is a 400 with data.status, where WordPress answers 500 with data null.',
};

interface Outcome {
  operation: string;
  outcome: unknown;
}

function run(label: string, env: Record<string, string>, directory: string): Outcome[] {
  const file = path.join(directory, `${label}.json`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'test/clients/coreData.test.ts'], {
    cwd: checkout,
    env: { ...process.env, ...env, CORE_DATA_OUTCOMES: file, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const summary = /Total:\s+(\d+)\s+Passed:\s+(\d+)/.exec(result.stdout);
  process.stderr.write(`${label}: ${summary ? `${summary[2]} of ${summary[1]} tests passed` : 'no test summary'}\n`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Outcome[];
  } catch {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`the ${label} run recorded no outcomes`);
  }
}

/** Outcomes by operation, in the order each operation was recorded. */
function byOperation(outcomes: Outcome[]): Map<string, unknown[]> {
  const map = new Map<string, unknown[]>();
  for (const { operation, outcome } of outcomes) map.set(operation, [...(map.get(operation) ?? []), outcome]);
  return map;
}

function main(): void {
  const { values } = parseArgs({
    options: { credentials: { type: 'string', default: '/var/lib/wordpress-ref/credentials.json' } },
  });
  const directory = mkdtempSync(path.join(tmpdir(), 'core-data-compat-'));
  try {
    const palimpsest = byOperation(run('palimpsest', {}, directory));
    const reference = byOperation(run('reference', { CORE_DATA_REFERENCE: values.credentials! }, directory));
    let total = 0;
    let alike = 0;
    const deliberate: string[] = [];
    const unexplained: string[] = [];
    for (const operation of new Set([...reference.keys(), ...palimpsest.keys()])) {
      const ours = palimpsest.get(operation) ?? [];
      const theirs = reference.get(operation) ?? [];
      for (let i = 0; i < Math.max(ours.length, theirs.length); i++) {
        total++;
        if (i < ours.length && i < theirs.length && isDeepStrictEqual(ours[i], theirs[i])) {
          alike++;
          continue;
        }
        const line = `${operation}\n    reference:  ${JSON.stringify(theirs[i] ?? '(not run)')}\n    palimpsest: ${JSON.stringify(ours[i] ?? '(not run)')}`;
        if (DELIBERATE[operation]) deliberate.push(`${line}\n    why: ${DELIBERATE[operation]}`);
        else unexplained.push(line);
      }
    }
    console.log(
      `core-data operations: ${total}; alike on both: ${alike}; deliberately different: ${deliberate.length}; unexplained: ${unexplained.length}`,
    );
    if (unexplained.length > 0) console.log(`\nUNEXPLAINED\n  ${unexplained.join('\n  ')}`);
    if (deliberate.length > 0) console.log(`\nDeliberate\n  ${deliberate.join('\n  ')}`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
