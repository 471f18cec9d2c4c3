/**
 * The shared response cache (src/http/responseCache.ts), black-box through the app: an answer served from it is
 * byte for byte the answer the pipeline wrote (status line, every header but Date, in order, and the body), every
 * write is seen by the next anonymous read, signed-in requests never touch it, HEAD takes the GET's answer without
 * its body, and it can be turned off. Whether an answer came from the cache is read from /metrics, as an operator
 * would.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import type { ReadModel } from '../../src/ports/readModel';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestSiteOptions, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';
import { createItem } from '../../src/resources/content/operations';
import { CacheBudget, parseCachesOff } from '../../src/caches/budget';

interface RawAnswer {
  statusLine: string;
  /** Every header line but Date (it names the second the answer was written), in order, as sent. */
  headers: string[];
  body: Buffer;
}

/** One request on its own connection, read as sent. */
function raw(site: TestSite, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${site.url}${path}`, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const lines: string[] = [];
        for (let i = 0; i < response.rawHeaders.length; i += 2) {
          if (response.rawHeaders[i]!.toLowerCase() !== 'date')
            lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
        }
        resolve({
          statusLine: `${response.statusCode} ${response.statusMessage}`,
          headers: lines,
          body: Buffer.concat(chunks),
        });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** The cache's counters on /metrics; null when it has none (turned off). */
async function cacheCounters(site: TestSite): Promise<{ hits: number; misses: number } | null> {
  const text = (await site.request('GET', '/metrics')).text;
  const read = (name: string) => {
    const found = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
    return found ? Number(found[1]) : null;
  };
  const hits = read('palimpsest_response_cache_hits_total');
  const misses = read('palimpsest_response_cache_misses_total');
  return hits === null || misses === null ? null : { hits, misses };
}

/** Runs `work` and tells how many requests the cache answered meanwhile. */
async function hitsDuring<T>(site: TestSite, work: () => Promise<T>): Promise<{ value: T; hits: number }> {
  const before = await cacheCounters(site);
  const value = await work();
  const after = await cacheCounters(site);
  return { value, hits: (after?.hits ?? 0) - (before?.hits ?? 0) };
}

const adapters: [string, () => { readModel: ReadModel; cleanup(): Promise<void> }][] = [
  ['memory', () => ({ readModel: createMemoryReadModel(), cleanup: async () => {} })],
  ['redis', testRedisReadModel],
];

for (const [adapterName, open] of adapters) {
  const test = suite(`response cache (${adapterName} read model)`);
  let t: TestSite;
  let admin: TestUser;
  let cleanup: () => Promise<void>;

  const start = async (options: TestSiteOptions = {}) => {
    const opened = open();
    cleanup = opened.cleanup;
    t = await startTestSite({ readModel: opened.readModel, ...options });
    admin = await t.createUser('boss', 'administrator');
  };
  test.after.each(async () => {
    await t.close();
    await cleanup();
  });

  const create = async (path: string, body: Record<string, unknown>) => {
    const response = await t.request('POST', path, { as: admin, body });
    assert.is(response.status, 201, response.text);
    return response.body as { id: number };
  };
  const titles = (answer: RawAnswer) =>
    (JSON.parse(answer.body.toString()) as { title: { rendered: string } }[]).map((p) => p.title.rendered);

  test('a cached answer is byte for byte the computed one: lists, items, terms, users, _embed, _fields, _envelope, _jsonp', async () => {
    await start();
    const category = await create('/core/v2/categories', { name: 'Fruit' });
    const tag = await create('/core/v2/tags', { name: 'Red' });
    const posts = [];
    for (let i = 0; i < 3; i++)
      posts.push(
        await create('/core/v2/posts', {
          title: `Post ${i}`,
          content: `<p>Text ${i}</p>`,
          status: 'publish',
          categories: [category.id],
          tags: [tag.id],
        }),
      );
    const paths = [
      '/core/v2/posts',
      '/core/v2/posts?per_page=1&page=2',
      `/core/v2/posts?categories=${category.id}&tags=${tag.id}`,
      '/core/v2/posts?search=text',
      `/core/v2/posts/${posts[0]!.id}`,
      '/core/v2/posts?_embed',
      '/core/v2/posts?_fields=id,title',
      `/core/v2/posts/${posts[1]!.id}?_envelope`,
      '/core/v2/posts?_jsonp=receive',
      '/core/v2/categories',
      `/core/v2/tags/${tag.id}`,
      '/core/v2/users',
      '/?rest_route=/core/v2/posts&per_page=2',
    ];
    for (const path of paths) {
      const computed = await hitsDuring(t, () => raw(t, 'GET', path));
      assert.is(computed.hits, 0, `${path}: the first answer is computed`);
      assert.is(computed.value.statusLine, '200 OK', path);
      const cached = await hitsDuring(t, () => raw(t, 'GET', path));
      assert.is(cached.hits, 1, `${path}: the second answer comes from the cache`);
      assert.equal(cached.value.headers, computed.value.headers, path);
      assert.is(cached.value.statusLine, computed.value.statusLine, path);
      assert.ok(cached.value.body.equals(computed.value.body), `${path}: same body bytes`);
    }
    const jsonp = await raw(t, 'GET', '/core/v2/posts?_jsonp=receive');
    assert.ok(jsonp.headers.includes('Content-Type: application/javascript; charset=UTF-8'));
    assert.match(jsonp.body.toString(), /^\/\*\*\/receive\(/);
    // Nothing says where an answer came from.
    assert.not.ok(
      jsonp.headers.some((line) => /cache|age:/i.test(line)),
      jsonp.headers.join('\n'),
    );
  });

  test('HEAD is answered from the GET entry: the GET headers, no body; as the pipeline answers it', async () => {
    await start();
    await create('/core/v2/posts', { title: 'Only one', status: 'publish' });
    const computedHead = await hitsDuring(t, () => raw(t, 'HEAD', '/core/v2/posts'));
    assert.is(computedHead.hits, 0);
    const get = await raw(t, 'GET', '/core/v2/posts');
    const cachedHead = await hitsDuring(t, () => raw(t, 'HEAD', '/core/v2/posts'));
    assert.is(cachedHead.hits, 1, 'HEAD after a GET comes from the cache');
    assert.equal(cachedHead.value.headers, computedHead.value.headers);
    assert.equal(cachedHead.value.headers, get.headers);
    assert.is(cachedHead.value.body.length, 0);
    assert.ok(cachedHead.value.headers.includes(`Content-Length: ${get.body.length}`));
  });

  test('every write is seen by the next anonymous read: create, update, trash, delete', async () => {
    await start();
    const first = await create('/core/v2/posts', { title: 'First', status: 'publish' });
    const read = async () => ({
      list: await raw(t, 'GET', '/core/v2/posts'),
      item: await raw(t, 'GET', `/core/v2/posts/${first.id}`),
    });
    await read();
    const primed = await hitsDuring(t, read);
    assert.is(primed.hits, 2, 'the list and the item are cached');
    assert.equal(titles(primed.value.list), ['First']);

    await create('/core/v2/posts', { title: 'Second', status: 'publish' });
    assert.equal(titles((await read()).list), ['Second', 'First'], 'created');

    const updated = await t.request('POST', `/core/v2/posts/${first.id}`, {
      as: admin,
      body: { title: 'First, renamed' },
    });
    assert.is(updated.status, 200, updated.text);
    const afterUpdate = await read();
    assert.equal(titles(afterUpdate.list), ['Second', 'First, renamed'], 'updated: list');
    assert.is(JSON.parse(afterUpdate.item.body.toString()).title.rendered, 'First, renamed', 'updated: item');
    await read();

    const trashed = await t.request('DELETE', `/core/v2/posts/${first.id}`, { as: admin });
    assert.is(trashed.status, 200, trashed.text);
    const afterTrash = await read();
    assert.equal(titles(afterTrash.list), ['Second'], 'trashed: list');
    assert.is.not(afterTrash.item.statusLine, '200 OK', 'trashed: item');

    const deleted = await t.request('DELETE', `/core/v2/posts/${first.id}?force=true`, { as: admin });
    assert.is(deleted.status, 200, deleted.text);
    assert.is((await read()).item.statusLine, '404 Not Found', 'deleted');
  });

  test('a term change shows in embedded and filtered lists at once', async () => {
    await start();
    const fruit = await create('/core/v2/categories', { name: 'Fruit' });
    const veg = await create('/core/v2/categories', { name: 'Vegetables' });
    const post = await create('/core/v2/posts', { title: 'Apple', status: 'publish', categories: [fruit.id] });
    const embeddedNames = async () => {
      const answer = JSON.parse((await raw(t, 'GET', '/core/v2/posts?_embed')).body.toString()) as {
        _embedded: { 'wp:term': { name: string }[][] };
      }[];
      return answer[0]!._embedded['wp:term'][0]!.map((term) => term.name);
    };
    const filtered = async (id: number) => titles(await raw(t, 'GET', `/core/v2/posts?categories=${id}`));
    assert.equal(await embeddedNames(), ['Fruit']);
    assert.equal(await filtered(fruit.id), ['Apple']);
    assert.equal(await filtered(veg.id), []);
    assert.is(
      (await hitsDuring(t, async () => [await embeddedNames(), await filtered(fruit.id), await filtered(veg.id)])).hits,
      3,
    );

    const renamed = await t.request('POST', `/core/v2/categories/${fruit.id}`, {
      as: admin,
      body: { name: 'Orchard fruit' },
    });
    assert.is(renamed.status, 200, renamed.text);
    assert.equal(await embeddedNames(), ['Orchard fruit'], 'the embedded term is renamed');

    const moved = await t.request('POST', `/core/v2/posts/${post.id}`, { as: admin, body: { categories: [veg.id] } });
    assert.is(moved.status, 200, moved.text);
    assert.equal(await filtered(fruit.id), [], 'left the first category');
    assert.equal(await filtered(veg.id), ['Apple'], 'joined the second');
  });

  test('signed-in requests are never answered from the cache, nor kept in it', async () => {
    await start();
    await create('/core/v2/posts', { title: 'Public', status: 'publish' });
    await create('/core/v2/posts', { title: 'Hidden', status: 'draft' });
    // Signed in first: nothing kept for the anonymous request that follows.
    const signedIn = await hitsDuring(t, () =>
      raw(t, 'GET', '/core/v2/posts?status=publish,draft', { authorization: admin.auth }),
    );
    assert.is(signedIn.hits, 0);
    assert.equal(titles(signedIn.value), ['Hidden', 'Public']);
    const anonymous = await hitsDuring(t, () => raw(t, 'GET', '/core/v2/posts?status=publish,draft'));
    assert.is(anonymous.hits, 0, 'the signed-in answer was not kept');
    assert.is(anonymous.value.statusLine, '400 Bad Request');

    // Anonymous first: the signed-in request of the same URL is still computed, as the caller's own.
    await raw(t, 'GET', '/core/v2/posts');
    await raw(t, 'GET', '/core/v2/posts');
    const again = await hitsDuring(t, () => raw(t, 'GET', '/core/v2/posts', { authorization: admin.auth }));
    assert.is(again.hits, 0);
    assert.ok(
      again.value.headers.includes('Cache-Control: no-cache, must-revalidate, max-age=0'),
      again.value.headers.join('\n'),
    );
    // Wrong credentials are not anonymous either: a 401, not the cached list.
    const wrong = await raw(t, 'GET', '/core/v2/posts', {
      authorization: `Basic ${Buffer.from('boss:wrong').toString('base64')}`,
    });
    assert.is(wrong.statusLine, '401 Unauthorized');
    // Nor is a method override.
    const override = await hitsDuring(t, () => raw(t, 'GET', '/core/v2/posts', { 'x-http-method-override': 'POST' }));
    assert.is(override.hits, 0);
    assert.is(override.value.statusLine, '401 Unauthorized');
  });

  test('errors, the index (its gmt_offset follows the clock) and oEmbed answers (a random frame secret) are not kept', async () => {
    await start();
    const post = await create('/core/v2/posts', { title: 'Post', status: 'publish' });
    const answers: [string, string][] = [
      ['/core/v2/posts/999', '404 Not Found'],
      ['/core/v2/posts?per_page=0', '400 Bad Request'],
      [`/core/v2/posts/${post.id}?as_of=2030-01-01T00:00:00`, '401 Unauthorized'],
      ['/', '200 OK'],
      [`/oembed/1.0/embed?url=${encodeURIComponent(`${t.url}/?p=${post.id}`)}`, '200 OK'],
    ];
    for (const [path, status] of answers) {
      assert.is((await raw(t, 'GET', path)).statusLine, status, path);
      const second = await hitsDuring(t, () => raw(t, 'GET', path));
      assert.is(second.hits, 0, path);
      assert.is(second.value.statusLine, status, path);
    }
  });

  test('a change this process did not settle (another writer of the log) is seen once its projector commits it', async () => {
    await start();
    await create('/core/v2/posts', { title: 'First', status: 'publish' });
    await raw(t, 'GET', '/core/v2/posts');
    assert.is((await hitsDuring(t, () => raw(t, 'GET', '/core/v2/posts'))).hits, 1);
    // Straight to the log, as the CLI or another process would write: no settle here.
    const outcome = await createItem(
      t.site,
      'post',
      { title: 'Second', status: 'publish' },
      { id: admin.id, roles: ['administrator'] },
      'test',
    );
    assert.ok(await t.site.projector.waitFor(outcome.position));
    assert.equal(titles(await raw(t, 'GET', '/core/v2/posts')), ['Second', 'First']);
  });

  test('a rebuild of the projections is a change: the next read is computed afresh', async () => {
    await start();
    await create('/core/v2/posts', { title: 'Post', status: 'publish' });
    const before = await raw(t, 'GET', '/core/v2/posts');
    assert.is((await hitsDuring(t, () => raw(t, 'GET', '/core/v2/posts'))).hits, 1);
    await t.site.projector.rebuild('content');
    const after = await hitsDuring(t, () => raw(t, 'GET', '/core/v2/posts'));
    assert.is(after.hits, 0);
    assert.ok(after.value.body.equals(before.body));
  });

  test.run();
}

const bounds = suite('response cache: bounds and configuration');
let site: TestSite;
bounds.after.each(async () => {
  await site.close();
});

bounds('CACHES_OFF=responses turns it off: every answer computed, no counters', async () => {
  site = await startTestSite({ caches: new CacheBudget({ engine: 'memory', off: parseCachesOff('responses') }) });
  const admin = await site.createUser('boss', 'administrator');
  await site.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Post', status: 'publish' } });
  const first = await raw(site, 'GET', '/core/v2/posts');
  const second = await raw(site, 'GET', '/core/v2/posts');
  assert.equal(second.headers, first.headers);
  assert.ok(second.body.equals(first.body));
  assert.is(await cacheCounters(site), null);
  assert.not.match((await site.request('GET', '/metrics')).text, /palimpsest_response_cache/);
});

bounds('bounded by count (least recently used out first) and by bytes', async () => {
  site = await startTestSite({ responseCache: { entries: 2 } });
  const admin = await site.createUser('boss', 'administrator');
  for (let i = 0; i < 3; i++)
    await site.request('POST', '/core/v2/posts', { as: admin, body: { title: `Post ${i}`, status: 'publish' } });
  const paths = ['/core/v2/posts?per_page=1', '/core/v2/posts?per_page=2', '/core/v2/posts?per_page=3'];
  for (const path of paths) await raw(site, 'GET', path);
  assert.match((await site.request('GET', '/metrics')).text, /^palimpsest_response_cache_entries 2$/m);
  // Full: the third answer was not kept at its first request, only at its second (admission on a second request).
  assert.is((await hitsDuring(site, () => raw(site, 'GET', paths[2]!))).hits, 0, 'not kept at its first request');
  assert.is((await hitsDuring(site, () => raw(site, 'GET', paths[1]!))).hits, 1, 'so nothing was let go');
  assert.is((await hitsDuring(site, () => raw(site, 'GET', paths[0]!))).hits, 0, 'the oldest was let go');
  assert.is((await hitsDuring(site, () => raw(site, 'GET', paths[2]!))).hits, 1, 'the newest is kept');
  await site.close();

  // 4 KB in all: an answer over a quarter of that is not kept.
  site = await startTestSite({ responseCache: { bytes: 4096 } });
  const editor = await site.createUser('boss', 'administrator');
  await site.request('POST', '/core/v2/posts', {
    as: editor,
    body: { title: 'Long', content: `<p>${'word '.repeat(400)}</p>`, status: 'publish' },
  });
  await raw(site, 'GET', '/core/v2/posts');
  assert.is((await hitsDuring(site, () => raw(site, 'GET', '/core/v2/posts'))).hits, 0);
  await raw(site, 'GET', '/core/v2/categories?per_page=1&_fields=id');
  assert.is((await hitsDuring(site, () => raw(site, 'GET', '/core/v2/categories?per_page=1&_fields=id'))).hits, 1);
});

bounds.run();
