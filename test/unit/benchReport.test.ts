/** The bench's result files and its one "Latest result" section of docs/performance.md, replaced between markers. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  LATEST_END,
  LATEST_START,
  demoteHeadings,
  replaceLatest,
  resultFileName,
  writeResultFile,
} from '../../bench/report';

const test = suite('bench report');

const doc = (latest: string) =>
  `# Performance\n\nIntro.\n\n## Latest result\n\n${LATEST_START}\n\n${latest}\n\n${LATEST_END}\n\n## What bounds each figure\n\nText.\n`;
const RUN =
  '## 2026-11-29 07:00 UTC — 1,000 posts\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n### Targets\n\n- **met** — x\n';

test('replaces only what stands between the markers, one heading level down', () => {
  const before = doc('### 2026-11-28 16:19 UTC — old\n\nold table\n\n#### Targets\n\n- old');
  const after = replaceLatest(before, RUN);
  assert.is(
    after,
    doc(
      '### 2026-11-29 07:00 UTC — 1,000 posts\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n#### Targets\n\n- **met** — x',
    ),
  );
  assert.not.match(after, 'old');
});

test('a second run replaces the first: the section does not grow', () => {
  const once = replaceLatest(doc('old'), RUN);
  assert.is(replaceLatest(once, RUN), once);
});

test('refuses a file without both markers, with repeated markers, or with them out of order', () => {
  assert.throws(() => replaceLatest('# Performance\n', RUN), /markers/);
  assert.throws(() => replaceLatest(`${LATEST_START}\n`, RUN), /markers/);
  assert.throws(() => replaceLatest(`${doc('a')}${LATEST_START}\n`, RUN), /more than once/);
  assert.throws(() => replaceLatest(`${LATEST_END}\n${LATEST_START}\n`, RUN), /before/);
});

test('demotes headings only at the start of a line', () => {
  assert.is(demoteHeadings('## a\ntext ## b\n### c'), '### a\ntext ## b\n#### c');
});

test('each run writes its own file, named by UTC date and minute, in a directory made on demand', () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-results-')), 'results');
  try {
    const date = new Date('2026-11-28T16:19:42Z');
    assert.is(resultFileName(date), '2026-11-28T16-19Z.md');
    const file = writeResultFile(dir, date, RUN);
    assert.is(file, path.join(dir, '2026-11-28T16-19Z.md'));
    assert.is(fs.readFileSync(file, 'utf8'), RUN);
  } finally {
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  }
});

test.run();
