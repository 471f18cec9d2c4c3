/**
 * A stock WordPress client, unchanged, against palimpsest alone on loopback: `wpapi` (the node-wpapi package)
 * pointed at `SITE/wp-json` with its built-in `wp/v2` routes, and by discovery (HEAD of the site URL, its
 * `rel="https://api.w.org/"` link, then the index there). It lists with paging (reading `X-WP-Total` and the
 * `Link` header), follows the next page, reads one post, and creates, updates and deletes one with an application
 * password.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WPAPI from 'wpapi';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

interface Paged {
  _paging?: {
    total: number;
    totalPages: number;
    links: Record<string, string>;
    next?: { get(): Promise<Paged & Record<string, any>[]> };
  };
}

const client = suite('wpapi, unchanged');
let t: TestSite;
let admin: TestUser;
let ids: number[];

client.before(async () => {
  // The site advertises WordPress's root, as a site meant for stock clients would (API_DIALECT=wordpress).
  t = await startTestSite({ apiDialect: 'wordpress' });
  admin = await t.createUser('editor', 'administrator');
  ids = [];
  for (const title of ['One', 'Two', 'Three']) {
    const created = await t.request('POST', '/core/v2/posts', { as: admin, body: { title, status: 'publish' } });
    ids.push(created.body.id);
  }
});
client.after(() => t.close());

client('without discovery: its built-in wp/v2 routes under SITE/wp-json list, page, read and write', async () => {
  const wp = new WPAPI({ endpoint: `${t.url}/wp-json` });
  const page = (await wp.posts().perPage(2).get()) as Paged & { id: number; title: { rendered: string } }[];
  assert.is(page.length, 2);
  assert.is(page._paging!.total, 3);
  assert.is(page._paging!.totalPages, 2);
  assert.is(page._paging!.links.next, `${t.url}/wp-json/wp/v2/posts?per_page=2&page=2`);
  const next = await page._paging!.next!.get();
  assert.is(next.length, 1);
  const one = await wp.posts().id(ids[0]!).get();
  assert.is(one.title.rendered, 'One');
  assert.is(one._links.self[0].href, `${t.url}/wp-json/wp/v2/posts/${ids[0]}`);

  const signedIn = new WPAPI({ endpoint: `${t.url}/wp-json`, username: admin.login, password: admin.password });
  const created = await signedIn
    .posts()
    .auth()
    .create({ title: 'From wpapi', content: 'Written by a stock client', status: 'publish' });
  assert.is(created.title.raw, 'From wpapi');
  const updated = await signedIn.posts().auth().id(created.id).update({ title: 'Renamed by wpapi' });
  assert.is(updated.title.raw, 'Renamed by wpapi');
  const deleted = await signedIn.posts().auth().id(created.id).param('force', true).delete();
  assert.is(deleted.deleted, true);
});

client('with discovery: it finds /wp-json/ from the site URL and binds the wp/v2 routes from the index', async () => {
  const site = await WPAPI.discover(t.url);
  const posts = (await site.posts().perPage(1).get()) as Paged & Record<string, any>[];
  assert.is(posts.length, 1);
  assert.is(posts._paging!.total, 3);
  const tags = await site.tags().get();
  assert.ok(Array.isArray(tags));
});

client.run();

const core = suite('wpapi, discovering a site that advertises the interface root');

core('discovery of the default site finds the core index and reaches core/v2 by its namespace', async () => {
  const site = await startTestSite();
  try {
    const admin = await site.createUser('admin', 'administrator');
    await site.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Core', status: 'publish' } });
    const wp = await WPAPI.discover(site.url);
    const posts = await wp.namespace('core/v2').posts().get();
    assert.is(posts.length, 1);
    assert.is(posts[0].title.rendered, 'Core');
  } finally {
    await site.close();
  }
});

core.run();
