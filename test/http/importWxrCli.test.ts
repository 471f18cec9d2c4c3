/**
 * `palimpsest import wxr`: the command imports into the site DATA_DIR names, and a server on the same event log
 * sees the imported items through it; a rerun says everything is already there; bad command lines and bad files
 * get their exit status and a message naming the problem.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestSite } from '../support/testSite';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { runCli as cli } from '../support/cli';

const FIXTURES = path.join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'wxr');
const EXPORT = path.join(FIXTURES, 'reference-export.xml');
const UPLOADS = path.join(FIXTURES, 'uploads');

test('import wxr into DATA_DIR: report, progress, a server on the same log sees it, a rerun changes nothing', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-wxr-'));
  try {
    const run = await cli(dataDir, ['import', 'wxr', EXPORT, '--uploads', UPLOADS]);
    assert.is(run.code, 0, run.err);
    assert.match(run.out, /^imported reference-export\.xml:/);
    assert.match(run.out, /\n {2}post: \d+ created, 0 already there/);
    assert.match(run.out, /\n {2}attachment: 1 created/);
    assert.match(run.out, /\n {2}menu: 1 created, 0 already there/);
    assert.match(run.out, /\n {2}menu_item: 3 created, 0 already there/);
    assert.not.match(run.out, /changed ids/);
    assert.match(run.err, /import: reading reference-export\.xml/);

    const site = await startTestSite({ store: openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') }) });
    try {
      const post = await site.request('GET', '/wp-json/wp/v2/posts/1128');
      assert.is(post.status, 200);
      assert.is(post.body.title.rendered, 'Wxr Sticky: Grüße aus Köln 🎉');
      assert.is(post.body.featured_media, 1127);
    } finally {
      await site.close();
    }

    const again = await cli(dataDir, ['import', 'wxr', EXPORT, '--uploads', UPLOADS]);
    assert.is(again.code, 0, again.err);
    assert.match(again.out, /\n {2}post: 0 created, \d+ already there/);
    assert.match(again.out, /\n {2}comment: 0 created, \d+ already there/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('bad command lines exit 2, bad files 1, each named', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-wxr-'));
  try {
    const none = await cli(dataDir, ['import', 'wxr']);
    assert.equal(
      [none.code, none.err],
      [
        2,
        'palimpsest import wxr: needs the FILE to import\nusage: palimpsest import wxr FILE [--uploads DIR] [--dry-run]',
      ],
    );
    assert.is((await cli(dataDir, ['import', 'wxr', path.join(dataDir, 'absent.xml')])).code, 2);
    assert.is((await cli(dataDir, ['import', 'wxr', EXPORT, '--uploads', path.join(dataDir, 'absent')])).code, 2);
    assert.is((await cli(dataDir, ['import', 'wxr', EXPORT, '--frobnicate'])).code, 2);
    const notXml = path.join(dataDir, 'not.xml');
    fs.writeFileSync(notXml, 'hello');
    const bad = await cli(dataDir, ['import', 'wxr', notXml]);
    assert.is(bad.code, 1);
    assert.match(bad.err, /not well-formed XML at line 1/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
