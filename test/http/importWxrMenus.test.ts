/**
 * WXR import of menus: into a site whose ids are taken, the menu, its items, what they link to and their parents
 * get new ids and every reference follows; an item linking to what is not carried is skipped and said; classes
 * are read from WordPress's serialized list, anything else left out and said; an import stopped among the menu
 * items completes on a rerun without duplicates.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestSite } from '../support/testSite';
import type { TestSite } from '../support/testSite';
import { importWxr } from '../../src/import/wxr/import';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { nextTermId } from '../../src/resources/terms/operations';
import { createMenu } from '../../src/resources/menus/operations';
import { serializedClassList, serializeClassList } from '../../src/import/wxr/menus';

const EXPORT = path.join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'wxr', 'reference-export.xml');
const exportText = fs.readFileSync(EXPORT, 'utf8');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wxr-menus-test-'));
test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The fixture with one meta value of one item changed. */
function withMeta(text: string, itemId: number, key: string, value: string): string {
  const start = text.indexOf(`<wp:post_id>${itemId}</wp:post_id>`);
  const end = text.indexOf('</item>', start);
  const item = text.slice(start, end);
  const changed = item.replace(
    new RegExp(
      `(<wp:meta_key><!\\[CDATA\\[${key}\\]\\]></wp:meta_key>\\s*<wp:meta_value><!\\[CDATA\\[)[^\\]]*(\\]\\]>)`,
    ),
    `$1${value}$2`,
  );
  assert.is.not(changed, item, `item ${itemId} has ${key}`);
  return text.slice(0, start) + changed + text.slice(end);
}

const write = (name: string, text: string) => {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, text);
  return file;
};

async function menuItems(site: TestSite, menu: number) {
  const as = await site.createUser('menu-reader', 'administrator');
  const answer = await site.request(
    'GET',
    `/wp-json/wp/v2/menu-items?menus=${menu}&context=edit&orderby=menu_order&order=asc`,
    { as },
  );
  assert.is(answer.status, 200);
  return answer.body as Record<string, any>[];
}

test('ids taken: the menu, its items, what they link to and their parents follow the new ids', async () => {
  const site = await startTestSite({ timezone: 'Europe/Berlin' });
  try {
    // The site has handed out content ids 1-6 and term ids through 6: the fixture's pages, menu items, menu and
    // category 2 all need new ones.
    while ((await site.site.ids.content.nextId()) < 6);
    while ((await nextTermId(site.site)) < 6);
    const nested = withMeta(exportText, 6, '_menu_item_menu_item_parent', '5');
    const report = await importWxr(site.site, write('nested.xml', nested));
    const moved = (kind: string, from: number) =>
      report.changedIds.find((change) => change.kind === kind && change.from === from)?.to;
    const [menu, item4, item5, item6, page2, category2] = [
      moved('menu', 6),
      moved('menu_item', 4),
      moved('menu_item', 5),
      moved('menu_item', 6),
      moved('page', 2),
      moved('category', 2),
    ];
    for (const id of [menu, item4, item5, item6, page2, category2])
      assert.ok(id !== undefined && id > 0, 'a new id, listed');
    const items = await menuItems(site, menu!);
    assert.equal(
      items.map((item) => ({
        id: item.id,
        object: item.object,
        object_id: item.object_id,
        parent: item.parent,
        menus: item.menus,
      })),
      [
        { id: item4, object: 'custom', object_id: item4, parent: 0, menus: menu },
        { id: item5, object: 'page', object_id: page2, parent: 0, menus: menu },
        { id: item6, object: 'category', object_id: category2, parent: item5, menus: menu },
      ],
    );
  } finally {
    await site.close();
  }
});

test('an item linking to what is not carried is skipped and said; classes read, or left out and said', async () => {
  const site = await startTestSite({ timezone: 'Europe/Berlin' });
  try {
    let text = withMeta(exportText, 5, '_menu_item_object_id', '99999');
    text = withMeta(text, 4, '_menu_item_classes', 'a:3:{i:0;s:3:"one";i:1;s:0:"";i:2;s:5:"two_2";}');
    text = withMeta(text, 6, '_menu_item_classes', 'O:8:"stdClass":1:{s:1:"a";s:1:"b";}');
    const report = await importWxr(site.site, write('skips.xml', text));
    assert.is(report.counts.menu_item.created, 2);
    assert.is(report.counts.menu_item.skipped, 1);
    assert.ok(
      report.skipped.some(
        (entry) =>
          entry.kind === 'nav_menu_item' &&
          entry.id === 5 &&
          /links to item 99999, which is not carried/.test(entry.reason),
      ),
    );
    assert.ok(
      report.skipped.some(
        (entry) =>
          entry.kind === 'nav_menu_item' &&
          entry.id === 6 &&
          /classes are not a list WordPress writes/.test(entry.reason),
      ),
    );
    const items = await menuItems(site, 6);
    assert.equal(
      items.map((item) => [item.id, item.classes]),
      [
        [4, ['one', 'two_2']],
        [6, ['']],
      ],
    );
  } finally {
    await site.close();
  }
});

test("a menu of the file's name already on the site, under another slug, is the file's menu", async () => {
  const site = await startTestSite({ timezone: 'Europe/Berlin' });
  try {
    const made = await createMenu(site.site, { name: 'Reference Menu' }, null, 'test');
    await site.site.settle(made.position);
    const renamed = exportText
      .replaceAll('[CDATA[reference-menu]]', '[CDATA[old-slug]]')
      .replaceAll('nicename="reference-menu"', 'nicename="old-slug"');
    assert.is.not(renamed, exportText);
    const report = await importWxr(site.site, write('same-name.xml', renamed));
    assert.equal([report.counts.menu.created, report.counts.menu.existing, report.counts.menu_item.created], [0, 1, 3]);
    assert.ok(
      report.skipped.some(
        (entry) =>
          entry.kind === 'menu' && entry.reason === `the site's menu ${made.id} has that name: its items join it`,
      ),
    );
    assert.is((await menuItems(site, made.id)).length, 3);
    // A rerun finds it again and adds nothing.
    const again = await importWxr(site.site, write('same-name.xml', renamed));
    assert.equal(
      [again.counts.menu.existing, again.counts.menu_item.created, again.counts.menu_item.existing],
      [1, 0, 3],
    );
  } finally {
    await site.close();
  }
});

test('an import stopped among the menu items completes on a rerun, without duplicates', async () => {
  const store = createMemoryEventStore();
  const site = await startTestSite({ timezone: 'Europe/Berlin', store });
  try {
    const append = store.appendToStream.bind(store);
    let created = 0;
    store.appendToStream = async (stream, events, options) => {
      if (events.some((event) => event.type === 'MenuItemCreated') && ++created > 1)
        throw new Error('the process died');
      return append(stream, events, options);
    };
    await importWxr(site.site, EXPORT).then(
      () => assert.unreachable('the import should stop'),
      (error: Error) => assert.match(error.message, /menu item 5 .*the process died/),
    );
    store.appendToStream = append;
    const report = await importWxr(site.site, EXPORT);
    assert.equal(
      [report.counts.menu.existing, report.counts.menu_item.existing, report.counts.menu_item.created],
      [1, 1, 2],
    );
    assert.equal(report.changedIds, []);
    assert.equal(
      (await menuItems(site, 6)).map((item) => item.id),
      [4, 5, 6],
    );
  } finally {
    await site.close();
  }
});

test('classes as WordPress serializes them, and back', () => {
  assert.equal(serializedClassList('a:1:{i:0;s:0:"";}'), ['']);
  assert.equal(serializedClassList(''), []);
  assert.equal(serializedClassList(serializeClassList(['a-b', 'C_9'])), ['a-b', 'C_9']);
  assert.is(serializeClassList(['']), 'a:1:{i:0;s:0:"";}');
  // A length that does not match, another type, a quote inside: not a list WordPress writes.
  assert.is(serializedClassList('a:1:{i:0;s:5:"ab";}'), null);
  assert.is(serializedClassList('a:1:{i:0;O:8:"stdClass":0:{}}'), null);
  assert.is(serializedClassList('a:1:{i:0;s:3:"a"b";}'), null);
});

test.run();
