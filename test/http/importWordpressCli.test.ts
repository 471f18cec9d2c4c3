/**
 * `palimpsest import wordpress`: the command imports a stand-in WordPress (test/support/wordpressStandIn.ts) into
 * the site DATA_DIR names, printing progress and a closing report; a server on the same log sees the items and their
 * revisions; a rerun says everything is already there; bad command lines exit 2, a refused import 1, each named.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestSite } from '../support/testSite';
import { STAND_IN_LOGIN, STAND_IN_PASSWORD, startStandIn } from '../support/wordpressStandIn';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { runCli as cli } from '../support/cli';

test('import wordpress into DATA_DIR: progress, report, a server on the same log sees the revisions, a rerun changes nothing', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-wp-'));
  const wp = await startStandIn();
  try {
    const args = ['import', 'wordpress', wp.url, '--user', STAND_IN_LOGIN, '--app-password', STAND_IN_PASSWORD];
    const run = await cli(dataDir, args);
    assert.is(run.code, 0, run.err);
    assert.match(run.out, /^imported http:\/\/127\.0\.0\.1:\d+:/);
    assert.match(run.out, /\n {2}post: 3 created, 0 already there, 0 skipped/);
    assert.match(run.out, /\n {2}revision: 7 created/);
    assert.match(
      run.out,
      /\nattachments not carried, their files missing:\n {2}attachment 11: http:\/\/127\.0\.0\.1:\d+\/wp-content\/uploads\/2026\/01\/gone\.png \(.*answered 404\)/,
    );
    assert.not.match(run.out, /changed ids/);
    assert.match(run.err, /import: reading http:\/\/127\.0\.0\.1:\d+ \("Old Site"\) as admin/);
    assert.not.match(run.err + run.out, new RegExp(STAND_IN_PASSWORD));

    const site = await startTestSite({ store: openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') }) });
    try {
      const as = await site.createUser('cli-reader', 'administrator');
      const revisions = await site.request('GET', '/wp-json/wp/v2/posts/20/revisions', { as });
      assert.equal(
        revisions.body
          .filter((revision: any) => !revision.slug.includes('autosave'))
          .map((revision: any) => [revision.id, revision.author]),
        [
          [23, 1],
          [22, 2],
          [21, 3],
        ],
      );
    } finally {
      await site.close();
    }

    const again = await cli(dataDir, args);
    assert.is(again.code, 0, again.err);
    assert.match(again.out, /\n {2}post: 0 created, 3 already there/);
    assert.match(again.out, /\n {2}revision: 0 created, 7 already there/);
  } finally {
    await wp.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('bad command lines exit 2, a refused import 1, each named', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-wp-'));
  const wp = await startStandIn();
  try {
    const none = await cli(dataDir, ['import', 'wordpress']);
    assert.equal(
      [none.code, none.err],
      [
        2,
        'palimpsest import wordpress: needs the URL of the WordPress site\nusage: palimpsest import wordpress URL --user LOGIN --app-password PASSWORD [--dry-run]',
      ],
    );
    assert.is((await cli(dataDir, ['import', 'wordpress', wp.url, '--app-password', 'x'])).code, 2);
    assert.is((await cli(dataDir, ['import', 'wordpress', wp.url, '--user', 'admin'])).code, 2);
    assert.is(
      (await cli(dataDir, ['import', 'wordpress', 'example.org', '--user', 'a', '--app-password', 'x'])).code,
      2,
    );
    assert.is(
      (await cli(dataDir, ['import', 'wordpress', wp.url, '--user', 'a', '--app-password', 'x', '--frobnicate'])).code,
      2,
    );
    const refused = await cli(dataDir, [
      'import',
      'wordpress',
      wp.url,
      '--user',
      STAND_IN_LOGIN,
      '--app-password',
      'wrong',
    ]);
    assert.is(refused.code, 1);
    assert.match(refused.err, /the signed-in user: .* answered 401 \(rest_not_logged_in\)/);
    const dry = await cli(dataDir, [
      'import',
      'wordpress',
      wp.url,
      '--user',
      STAND_IN_LOGIN,
      '--app-password',
      STAND_IN_PASSWORD,
      '--dry-run',
    ]);
    assert.is(dry.code, 0, dry.err);
    assert.match(dry.out, /^would import .*\n {2}user: 3 to create/);
  } finally {
    await wp.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
