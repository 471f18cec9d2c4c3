/**
 * /core/v2/block-patterns/patterns and /categories: none by default; the library BLOCK_PATTERNS_DIR gives, read from
 * its JSON files (a broken file stops the start, naming it); who may read them, as WordPress 6.1 allows.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { BlockPatternsError, loadBlockPatterns } from '../../src/resources/blockPatterns/load';
import { loadConfig } from '../../src/config';

const test = suite('block patterns');
let dir: string;

test.before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'patterns-'));
});
test.after(async () => fs.rm(dir, { recursive: true, force: true }));

async function withSite(
  options: Parameters<typeof startTestSite>[0],
  run: (t: TestSite, users: Record<string, TestUser>) => Promise<void>,
) {
  const t = await startTestSite(options);
  try {
    const users: Record<string, TestUser> = {};
    for (const role of ['subscriber', 'contributor', 'administrator'] as const)
      users[role] = await t.createUser(role, role);
    await run(t, users);
  } finally {
    await t.close();
  }
}

test('none by default; contributors up may read, subscribers and anonymous callers are refused', async () => {
  await withSite({}, async (t, users) => {
    for (const [route, what] of [
      ['patterns', 'block patterns'],
      ['categories', 'block pattern categories'],
    ]) {
      const path = `/core/v2/block-patterns/${route}`;
      assert.equal((await t.request('GET', path, { as: users.contributor })).body, []);
      assert.equal((await t.request('GET', path)).body, {
        code: 'rest_cannot_view',
        message: `Sorry, you are not allowed to view the registered ${what}.`,
        data: { status: 401 },
      });
      assert.equal((await t.request('GET', path, { as: users.subscriber })).body.data, { status: 403 });
      const options = await t.request('OPTIONS', path, { as: users.subscriber });
      assert.equal([options.status, options.headers.get('allow')], [200, null]);
    }
  });
});

test('the library of a directory: files in name order, a name given again replaced in its place', async () => {
  await fs.writeFile(
    path.join(dir, '10-text.json'),
    JSON.stringify({
      categories: [
        { name: 'text', label: 'Text' },
        { name: 'banners', label: 'Banners' },
      ],
      patterns: [
        {
          name: 'site/quote',
          title: 'Quote',
          content: '<!-- wp:quote /-->',
          categories: ['text'],
          keywords: ['cite'],
          viewport_width: 800,
        },
        {
          name: 'site/hero',
          title: 'Hero',
          content: '<!-- wp:cover /-->',
          inserter: false,
          block_types: ['core/cover'],
          post_types: ['page'],
          description: 'A big picture.',
        },
      ],
    }),
  );
  await fs.writeFile(
    path.join(dir, '20-more.json'),
    JSON.stringify({
      categories: [{ name: 'text', label: 'Words' }],
      patterns: [{ name: 'site/quote', title: 'Quote, again', content: '<!-- wp:pullquote /-->' }],
    }),
  );
  await fs.writeFile(path.join(dir, 'notes.txt'), 'not a pattern');
  const library = await loadBlockPatterns(dir);
  await withSite({ blockPatterns: library }, async (t, users) => {
    const categories = await t.request('GET', '/core/v2/block-patterns/categories', { as: users.contributor });
    assert.equal(categories.body, [
      { name: 'text', label: 'Words' },
      { name: 'banners', label: 'Banners' },
    ]);
    const patterns = await t.request('GET', '/core/v2/block-patterns/patterns?_locale=user', { as: users.contributor });
    assert.equal(patterns.body, [
      { name: 'site/quote', title: 'Quote, again', content: '<!-- wp:pullquote /-->' },
      {
        name: 'site/hero',
        title: 'Hero',
        description: 'A big picture.',
        block_types: ['core/cover'],
        post_types: ['page'],
        content: '<!-- wp:cover /-->',
        inserter: false,
      },
    ]);
    const fields = await t.request('GET', '/wp-json/wp/v2/block-patterns/patterns?_fields=name', {
      as: users.administrator,
    });
    assert.equal(fields.body, [{ name: 'site/quote' }, { name: 'site/hero' }]);
  });
});

test('a broken library stops the start with the file and the fault; the setting is read from the environment', async () => {
  const broken = await fs.mkdtemp(path.join(os.tmpdir(), 'patterns-broken-'));
  try {
    for (const [text, fault] of [
      ['{"patterns": [', /not JSON/],
      ['{"patterns": [{"name": "x", "title": "X"}]}', /must have required property 'content'/],
      ['{"patterns": [{"name": "x", "title": "X", "content": 5}]}', /\/patterns\/0\/content must be string/],
      ['{"pattern": []}', /must NOT have additional properties/],
      ['[]', /must be object/],
    ] as const) {
      await fs.writeFile(path.join(broken, 'library.json'), text);
      const error = await loadBlockPatterns(broken).catch((e: unknown) => e);
      assert.instance(error, BlockPatternsError, text);
      assert.match((error as Error).message, path.join(broken, 'library.json'));
      assert.match((error as Error).message, fault);
    }
    const missing = await loadBlockPatterns(path.join(broken, 'nope')).catch((e: unknown) => e);
    assert.instance(missing, BlockPatternsError);
  } finally {
    await fs.rm(broken, { recursive: true, force: true });
  }
  assert.is(loadConfig({}, '/srv').blockPatternsDir, null);
  assert.is(loadConfig({ BLOCK_PATTERNS_DIR: 'patterns' }, '/srv').blockPatternsDir, '/srv/patterns');
});

test.run();
