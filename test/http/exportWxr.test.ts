/**
 * WXR export: a site exported and imported into a fresh site answers over REST as the first one does (posts, pages,
 * terms, authors, menus and their items, comments, attachments with their files); the export is well-formed XML with
 * WXR 1.2's elements; text that XML cannot hold as it is (`]]>`, markup, control characters) comes back as it was or
 * is left out and counted; the writer waits for a slow reader and fails on a broken one; the command refuses an
 * --out it cannot write.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { SaxesParser } from 'saxes';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { importWxr } from '../../src/import/wxr/import';
import { exportWxr } from '../../src/export/wxr';
import { runCli as cli } from '../support/cli';
import type { MediaDoc } from '../../projections/media';
import { commentedPost, createComment } from '../../src/resources/comments/operations';
import { createMenuItem } from '../../src/resources/menus/operations';
import { updateAttachment } from '../../src/resources/media/operations';
import { updateItem } from '../../src/resources/content/operations';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { testRedisReadModel } from '../support/redis';

const FIXTURES = path.join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'wxr');
const EXPORT = path.join(FIXTURES, 'reference-export.xml');
const UPLOADS = path.join(FIXTURES, 'uploads');
const TIMEZONE = 'Europe/Berlin';
const NOW = Date.parse('2026-12-01T00:00:00Z');

/** The fixture's child page and its parent. */
const REFERENCE_PAGES: { id: number; parent: number }[] = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, 'reference-rest.json'), 'utf8'),
).pages;
const REFERENCE_CHILD_PAGE = REFERENCE_PAGES.find((page) => page.parent > 0)!.id;
const REFERENCE_CHILD_PAGE_PARENT = REFERENCE_PAGES.find((page) => page.parent > 0)!.parent;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wxr-export-test-'));
test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Collects what is written, as a file would. */
class Collect extends Writable {
  chunks: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.chunks.push(chunk);
    done();
  }
  text() {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

async function exportToFile(site: TestSite, name: string) {
  const out = new Collect();
  const report = await exportWxr(site.site, out);
  const file = path.join(scratch, name);
  fs.writeFileSync(file, out.text());
  return { file, text: out.text(), report };
}

/** The site's attachment files laid out as a WordPress uploads folder (`2026/11/name.png`). */
async function uploadsOf(site: TestSite, name: string): Promise<string> {
  const folder = path.join(scratch, name);
  const { items } = await site.site.readModel.query('attachment', {
    filters: [],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  for (const media of items as MediaDoc[]) {
    const body = await site.site.blobs.get(media.media_details.file);
    assert.ok(body, `file of attachment ${media.id}`);
    fs.mkdirSync(path.dirname(path.join(folder, media.media_details.file)), { recursive: true });
    fs.writeFileSync(path.join(folder, media.media_details.file), body!);
  }
  return folder;
}

const newSite = () => startTestSite({ timezone: TIMEZONE, now: NOW });

/** What the site answers over REST for everything a WXR carries, with its own address and modification times left out. */
async function state(site: TestSite, as: TestUser) {
  const list = async (route: string) =>
    (
      await site.request('GET', `/wp-json/wp/v2/${route}${route.includes('?') ? '&' : '?'}per_page=100&context=edit`, {
        as,
      })
    ).body as Record<string, unknown>[];
  const normal = (value: unknown) =>
    JSON.parse(
      JSON.stringify(value, (key, inner) =>
        key === '_links' || key === 'modified' || key === 'modified_gmt' ? undefined : inner,
      ).replaceAll(site.url, 'SITE'),
    );
  const users = (await list('users?orderby=id')).filter((user) => user.username !== 'round-trip-admin');
  return normal({
    posts: await list('posts?status=publish,draft,private,pending,future&orderby=id&order=asc'),
    pages: await list('pages?status=publish,draft,private,pending,future&orderby=id&order=asc'),
    categories: await list('categories?orderby=id'),
    tags: await list('tags?orderby=id'),
    users,
    menus: await list('menus?orderby=id'),
    menuItems: await list('menu-items?orderby=id&order=asc'),
    comments: await list('comments?status=all&orderby=id&order=asc'),
    spam: await list('comments?status=spam&orderby=id&order=asc'),
    media: await list('media?orderby=id&order=asc'),
  });
}

test('import, export, import into a fresh site: the same site', async () => {
  const first = await newSite();
  const second = await newSite();
  try {
    await importWxr(first.site, EXPORT, { uploads: UPLOADS });
    // Beyond the fixture: a spam comment, a nested menu item with classes, relations, a target and markup.
    const post = await commentedPost(first.site, 1128);
    const spam = await createComment(
      first.site,
      post!,
      {
        parent: 0,
        content: 'Buy ]]> now',
        author_name: 'Spammer',
        author_email: 'spam@example.test',
        author_url: 'https://spam.example/?a=1&b=2',
        author_ip: '192.0.2.7',
        date: '2026-11-30T10:00:00',
        date_gmt: '2026-11-30T09:00:00',
        status: 'spam',
      },
      null,
      'test',
    );
    await first.site.settle(spam.position);
    const nested = {
      type: 'custom',
      title: 'Nested & <odd>',
      url: 'https://example.org/?a=1&b=2',
      parent: 4,
      menu: 6,
      classes: 'one two',
      xfn: 'friend met',
      target: '_blank',
      menu_order: 5,
      attr_title: 'Hover',
      description: 'About it',
    } as const;
    await first.site.settle(
      (await createMenuItem(first.site, nested, { id: 0, roles: ['administrator'] }, 'test')).position,
    );
    // A page template and footnotes, which the fixture has none of.
    const system = { id: 0, roles: ['administrator' as const] };
    await first.site.settle(
      (await updateItem(first.site, 'page', 2, { template: 'page-no-title' }, system, 'test')).position,
    );
    await first.site.settle(
      (
        await updateItem(
          first.site,
          'post',
          1128,
          { meta: { footnotes: '[{"id":"n1","content":"A <em>note</em> ]]>"}]' } },
          system,
          'test',
        )
      ).position,
    );
    // The attachment attached to the post that comes after it in the file.
    await first.site.settle(
      (await updateAttachment(first.site, 1127, { post: 1128 }, { id: 0, roles: ['administrator'] }, 'test')).position,
    );
    const exported = await exportToFile(first, 'first.xml');
    assert.is(exported.report.counts.menu_item, 4);
    assert.ok(exported.report.counts.comment >= 4);
    const report = await importWxr(second.site, exported.file, { uploads: await uploadsOf(first, 'first-uploads') });
    assert.equal(report.changedIds, []);
    assert.equal(report.skipped, []);
    assert.equal(report.missingFiles, []);
    const [a, b] = [
      await state(first, await first.createUser('round-trip-admin', 'administrator')),
      await state(second, await second.createUser('round-trip-admin', 'administrator')),
    ];
    for (const kind of Object.keys(a)) assert.ok(a[kind].length > 0, `the fixture has ${kind}`);
    for (const kind of Object.keys(a)) assert.equal(b[kind], a[kind], kind);
    // The attachment's file came along, byte for byte.
    assert.is(b.media[0].post, 1128);
    assert.is(b.pages.find((page: { id: number }) => page.id === 2).template, 'page-no-title');
    assert.match(b.posts.find((post: { id: number }) => post.id === 1128).meta.footnotes, /A <em>note<\/em> \]\]>/);
    const served = await fetch(b.media[0].source_url.replace('SITE', second.url));
    assert.equal(Buffer.from(await served.arrayBuffer()), fs.readFileSync(path.join(UPLOADS, '2026/11/wxr-pixel.png')));
    // And again: the export of the second site is the first's but for when it was made and when items were last
    // modified (an import does not carry that: what it writes was modified when written).
    const again = await exportToFile(second, 'second.xml');
    const undated = (text: string) =>
      text
        .replace(/<pubDate>[^<]*<\/pubDate>/, '')
        .replace(/<wp:post_modified(_gmt)?>.*\n/g, '')
        .replaceAll(first.url, 'SITE')
        .replaceAll(second.url, 'SITE');
    assert.is(undated(again.text), undated(exported.text));
    // A second import of the export changes nothing.
    const rerun = await importWxr(second.site, exported.file, { uploads: path.join(scratch, 'first-uploads') });
    for (const [kind, count] of Object.entries(rerun.counts)) assert.is(count.created, 0, kind);
  } finally {
    await first.close();
    await second.close();
  }
});

test('the same export from a Redis read model, read two documents at a time; pages after their parents whatever their ids', async () => {
  const store = createMemoryEventStore();
  const first = await startTestSite({ timezone: TIMEZONE, now: NOW, store });
  const redis = testRedisReadModel();
  let onRedis: TestSite | null = null;
  const fresh = await newSite();
  try {
    await importWxr(first.site, EXPORT, { uploads: UPLOADS });
    // A page moved under a page made after it, with its own child: the child and the page wait for their parents.
    const as = await first.createUser('mover', 'administrator');
    const [grand, parent] = [REFERENCE_CHILD_PAGE_PARENT, REFERENCE_CHILD_PAGE];
    const later = await first.request('POST', '/wp-json/wp/v2/pages', {
      as,
      body: { title: 'Made later', status: 'publish' },
    });
    assert.is(later.status, 201);
    assert.is(
      (await first.request('POST', `/wp-json/wp/v2/pages/${grand}`, { as, body: { parent: later.body.id } })).status,
      200,
    );
    const memory = await exportToFile(first, 'memory.xml');
    onRedis = await startTestSite({ timezone: TIMEZONE, now: NOW, store, readModel: redis.readModel });
    const paged = new Collect();
    await exportWxr(onRedis.site, paged, { pageSize: 2 });
    const undated = (text: string, site: TestSite) =>
      text.replace(/<pubDate>[^<]*<\/pubDate>/, '').replaceAll(site.url, 'SITE');
    assert.is(undated(paged.text(), onRedis), undated(memory.text, first));
    const pages = [
      ...memory.text.matchAll(
        /<wp:post_id>(\d+)<\/wp:post_id>(?:(?!<\/item>)[\s\S])*?<wp:post_type><!\[CDATA\[page\]\]>/g,
      ),
    ].map((match) => Number(match[1]));
    assert.ok(
      pages.indexOf(later.body.id) < pages.indexOf(grand) && pages.indexOf(grand) < pages.indexOf(parent),
      `pages in order ${pages.join(', ')}`,
    );
    const report = await importWxr(fresh.site, memory.file, { uploads: await uploadsOf(first, 'paged-uploads') });
    assert.equal(report.changedIds, []);
    const reader = await fresh.createUser('reader', 'administrator');
    assert.is(
      (await fresh.request('GET', `/wp-json/wp/v2/pages/${grand}?context=edit`, { as: reader })).body.parent,
      later.body.id,
    );
    assert.is(
      (await fresh.request('GET', `/wp-json/wp/v2/pages/${parent}?context=edit`, { as: reader })).body.parent,
      grand,
    );
  } finally {
    await onRedis?.close();
    await redis.cleanup();
    await first.close();
    await fresh.close();
  }
});

/** The elements and attributes of a document, read with a namespace-aware parser that stops at the first error. */
function parseXml(text: string) {
  const parser = new SaxesParser({ xmlns: true });
  const paths: string[] = [];
  const stack: string[] = [];
  const texts = new Map<string, string[]>();
  let current = '';
  let rss: Record<string, string> = {};
  parser.on('opentag', (tag) => {
    stack.push(tag.name);
    paths.push(stack.join('/'));
    current = '';
    if (tag.name === 'rss')
      rss = Object.fromEntries(Object.entries(tag.attributes).map(([name, attribute]) => [name, attribute.value]));
  });
  parser.on('text', (chunk) => void (current += chunk));
  parser.on('cdata', (chunk) => void (current += chunk));
  parser.on('closetag', () => {
    const where = stack.join('/');
    texts.set(where, [...(texts.get(where) ?? []), current]);
    current = '';
    stack.pop();
  });
  parser.write(text).close();
  return { paths, texts, rss };
}

test("the export is well-formed XML with WXR 1.2's elements", async () => {
  const site = await newSite();
  try {
    await importWxr(site.site, EXPORT, { uploads: UPLOADS });
    const { text } = await exportToFile(site, 'elements.xml');
    const { paths, texts, rss } = parseXml(text);
    assert.is(rss.version, '2.0');
    assert.is(rss['xmlns:wp'], 'http://wordpress.org/export/1.2/');
    assert.is(rss['xmlns:content'], 'http://purl.org/rss/1.0/modules/content/');
    assert.is(rss['xmlns:excerpt'], 'http://wordpress.org/export/1.2/excerpt/');
    assert.is(rss['xmlns:dc'], 'http://purl.org/dc/elements/1.1/');
    for (const element of [
      'title',
      'link',
      'description',
      'wp:wxr_version',
      'wp:base_site_url',
      'wp:base_blog_url',
      'wp:author',
      'wp:category',
      'wp:tag',
      'wp:term',
      'item',
    ]) {
      assert.ok(paths.includes(`rss/channel/${element}`), element);
    }
    assert.equal(texts.get('rss/channel/wp:wxr_version'), ['1.2']);
    assert.equal(texts.get('rss/channel/wp:base_site_url'), [site.url]);
    const items = texts.get('rss/channel/item')!.length;
    for (const field of [
      'title',
      'dc:creator',
      'content:encoded',
      'excerpt:encoded',
      'wp:post_id',
      'wp:post_date',
      'wp:post_date_gmt',
      'wp:post_name',
      'wp:status',
      'wp:post_parent',
      'wp:menu_order',
      'wp:post_type',
    ]) {
      assert.is(texts.get(`rss/channel/item/${field}`)?.length, items, field);
    }
    const types = texts.get('rss/channel/item/wp:post_type')!;
    assert.is(
      texts.get('rss/channel/item/wp:attachment_url')?.length,
      types.filter((type) => type === 'attachment').length,
    );
    assert.ok(texts.get('rss/channel/item/wp:attachment_url')![0]!.startsWith(`${site.url}/wp-content/uploads/`));
    // Every attachment comes before the posts, every post's parent before it, menu items last.
    assert.is(types.lastIndexOf('attachment') < types.indexOf('post'), true);
    assert.is(types.indexOf('nav_menu_item'), types.length - 3, 'menu items last');
    const keys = texts.get('rss/channel/item/wp:postmeta/wp:meta_key')!;
    for (const key of [
      '_thumbnail_id',
      '_wp_attached_file',
      '_wp_attachment_image_alt',
      '_wp_page_template',
      '_menu_item_type',
      '_menu_item_object_id',
      '_menu_item_classes',
    ])
      assert.ok(keys.includes(key), key);
    assert.ok(paths.includes('rss/channel/item/wp:comment/wp:comment_approved'));
  } finally {
    await site.close();
  }
});

test('hostile text: `]]>`, markup, quotes and control characters', async () => {
  const first = await newSite();
  const second = await newSite();
  try {
    const as = await first.createUser('writer', 'administrator');
    const title = 'A ]]> B & <b>"C"</b> \u0001 ✓ 🎉';
    const content = '<p>end of CDATA: ]]></p><![CDATA[ nested ]]>\u0008 and ]]]]>';
    const made = await first.request('POST', '/wp-json/wp/v2/posts', {
      as,
      body: { title, content, excerpt: ']]>', status: 'publish' },
    });
    assert.is(made.status, 201, JSON.stringify(made.body));
    const category = await first.request('POST', '/wp-json/wp/v2/categories', {
      as,
      body: { name: 'Q&A "quoted" <tag>', slug: 'q-a' },
    });
    assert.is(category.status, 201);
    await first.request('POST', `/wp-json/wp/v2/posts/${made.body.id}`, {
      as,
      body: { categories: [category.body.id] },
    });
    const exported = await exportToFile(first, 'hostile.xml');
    parseXml(exported.text);
    assert.is(exported.report.droppedCharacters, 2);
    await importWxr(second.site, exported.file);
    const admin = await second.createUser('reader', 'administrator');
    const back = await second.request('GET', `/wp-json/wp/v2/posts/${made.body.id}?context=edit`, { as: admin });
    assert.is(back.status, 200);
    assert.is(back.body.title.raw, made.body.title.raw.replace('\u0001', ''));
    assert.is(back.body.content.raw, made.body.content.raw.replace('\u0008', ''));
    assert.is(back.body.excerpt.raw, ']]>');
    const term = await second.request('GET', `/wp-json/wp/v2/categories/${category.body.id}`, { as: admin });
    assert.is(term.body.name, category.body.name);
    assert.equal(back.body.categories, [category.body.id]);
  } finally {
    await first.close();
    await second.close();
  }
});

test('the writer waits for a slow reader, and fails on a broken one', async () => {
  const site = await newSite();
  try {
    await importWxr(site.site, EXPORT, { uploads: UPLOADS });
    // A reader that takes each chunk later: never more than one item's worth is waiting in its buffer.
    let most = 0;
    let written = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        written += chunk.length;
        setImmediate(done);
      },
    });
    const watch = slow.write.bind(slow);
    slow.write = ((chunk: string) => {
      const ok = watch(chunk);
      most = Math.max(most, slow.writableLength);
      return ok;
    }) as typeof slow.write;
    await exportWxr(site.site, slow);
    const whole = fs.statSync(EXPORT).size;
    assert.ok(written > whole / 2, 'the export was written');
    assert.ok(most < 16 * 1024, `at most one item waiting (${most} bytes)`);
    // A reader that breaks part-way (a full disk, a closed pipe): the export fails with its error.
    let taken = 0;
    const broken = new Writable({
      write(chunk: Buffer, _encoding, done) {
        taken += chunk.length;
        done(taken > 8 * 1024 ? new Error('no space left on device') : null);
      },
    });
    await exportWxr(site.site, broken).then(
      () => assert.unreachable('the export should fail'),
      (error: Error) => assert.match(error.message, /no space left on device/),
    );
  } finally {
    await site.close();
  }
});

test('export wxr: to stdout and to --out; an --out it cannot write is refused, naming why', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-wxr-export-'));
  try {
    assert.is((await cli(dataDir, ['import', 'wxr', EXPORT, '--uploads', UPLOADS])).code, 0);
    const toStdout = await cli(dataDir, ['export', 'wxr']);
    assert.is(toStdout.code, 0, toStdout.err);
    assert.match(toStdout.out, /^<\?xml version="1.0" encoding="UTF-8" \?>\n/);
    assert.match(toStdout.out, /<\/rss>\n$/);
    parseXml(toStdout.out);
    assert.match(toStdout.err, /exported to stdout \(author: 4, .*menu: 1, .*menu_item: 3, comment: \d+\)/);

    const file = path.join(dataDir, 'site.xml');
    const toFile = await cli(dataDir, ['export', 'wxr', '--out', file]);
    assert.is(toFile.code, 0, toFile.err);
    assert.is(toFile.out, '');
    assert.is(
      fs.readFileSync(file, 'utf8').replace(/<pubDate>[^<]*<\/pubDate>/, ''),
      toStdout.out.replace(/<pubDate>[^<]*<\/pubDate>/, ''),
    );
    assert.equal(
      fs.readdirSync(dataDir).filter((name) => name.includes('partial')),
      [],
      'no partial file left',
    );

    const usage = 'usage: palimpsest export wxr [--out FILE]';
    const noFolder = await cli(dataDir, ['export', 'wxr', '--out', path.join(dataDir, 'absent', 'site.xml')]);
    assert.equal(
      [noFolder.code, noFolder.err],
      [2, `palimpsest export wxr: --out: no folder "${path.join(dataDir, 'absent')}"\n${usage}`],
    );
    const folder = await cli(dataDir, ['export', 'wxr', '--out', dataDir]);
    assert.equal([folder.code, folder.err], [2, `palimpsest export wxr: --out: "${dataDir}" is a folder\n${usage}`]);
    const underFile = await cli(dataDir, ['export', 'wxr', '--out', path.join(file, 'x.xml')]);
    assert.equal(
      [underFile.code, underFile.err],
      [2, `palimpsest export wxr: --out: "${file}" is not a folder\n${usage}`],
    );
    // A folder nobody can create files in: exit status 1, naming it.
    const proc = await cli(dataDir, ['export', 'wxr', '--out', '/proc/site.xml']);
    assert.is(proc.code, 1);
    assert.match(proc.err, /--out: cannot write in \/proc: /);
    const empty = await cli(dataDir, ['export', 'wxr', '--out', '']);
    assert.is(empty.code, 2);
    assert.match(empty.err, /--out needs a file name/);
    const missing = await cli(dataDir, ['export', 'wxr', '--out']);
    assert.is(missing.code, 2);
    assert.match(missing.err, /--out/);
    const extra = await cli(dataDir, ['export', 'wxr', 'site.xml']);
    assert.equal([extra.code, extra.err], [2, `palimpsest export wxr: unexpected argument "site.xml"\n${usage}`]);
    assert.is((await cli(dataDir, ['export', 'wxr', '--frobnicate'])).code, 2);
    // The refused ones wrote nothing, and the file written before is as it was.
    assert.equal(
      fs.readdirSync(dataDir).filter((name) => name.endsWith('.xml') || name.includes('partial')),
      ['site.xml'],
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
