/**
 * `palimpsest option get|set`: a discussion option written by the CLI to the site's event store is what the site
 * then applies (here: `require_name_email` off lets a comment without an email through).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestSite } from '../support/testSite';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { runCli as cli } from '../support/cli';
import { parseOptionValue } from '../../src/cli/option';

test('option values: 1/0 and their words, or default', () => {
  assert.equal(['1', 'true', 'ON', ' yes ', '0', 'false', 'off', 'no', 'default'].map(parseOptionValue), [
    true,
    true,
    true,
    true,
    false,
    false,
    false,
    false,
    null,
  ]);
  assert.throws(() => parseOptionValue('maybe'), /option values/);
});

test('option set writes the site-settings stream; the site reads it; get and errors', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-option-'));
  const file = path.join(dataDir, 'events.sqlite');
  try {
    const get = await cli(dataDir, ['option', 'get', 'require_name_email']);
    assert.equal([get.code, get.out], [0, 'require_name_email 1\n']);
    // Every command says on stderr which site it acts on.
    assert.match(get.err, `DATA_DIR ${dataDir}`);
    const set = await cli(dataDir, ['option', 'set', 'require_name_email', 'off']);
    assert.equal([set.code, set.out], [0, 'require_name_email 0\n']);
    const unknown = await cli(dataDir, ['option', 'set', 'comment_registration', '1']);
    assert.equal(
      [unknown.code, unknown.err],
      [
        2,
        'palimpsest option set: unknown option "comment_registration"; the options are: require_name_email\nusage: palimpsest option set NAME VALUE',
      ],
    );
    assert.is((await cli(dataDir, ['option', 'set', 'require_name_email'])).code, 2);
    assert.is((await cli(dataDir, ['option', 'set', 'require_name_email', 'maybe'])).code, 2);

    const site = await startTestSite({ store: openSqliteEventStore({ file }) });
    try {
      const admin = await site.createUser('admin', 'administrator');
      const post = await site.request('POST', '/core/v2/posts', { as: admin, body: { title: 'P', status: 'publish' } });
      const comment = await site.request('POST', '/core/v2/comments', {
        as: admin,
        body: { post: post.body.id, content: 'No email', author_name: 'NoMail' },
      });
      assert.is(comment.status, 201, JSON.stringify(comment.body));
      // The stream records who changed it: the CLI, as the system.
      const audit = await site.request('GET', '/audit/v1/events?stream=site-settings', { as: admin });
      assert.equal(
        (audit.body as { type: string; user: number | null; data: unknown }[]).map((e) => [e.type, e.user, e.data]),
        [['SiteSettingsChanged', null, { changes: { require_name_email: false } }]],
      );
    } finally {
      await site.close();
    }
    assert.equal(
      (await cli(dataDir, ['option', 'set', 'require_name_email', 'default'])).out,
      'require_name_email 1\n',
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
