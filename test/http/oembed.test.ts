/**
 * /oembed/1.0/embed and /oembed/1.0/proxy, black-box through the app, as WordPress 6.1 answers them (checked
 * against the reference): local items by permalink, sizes, author fallback, XML, every error; the proxy's
 * permission, its providers and discovery through a fake HttpFetcher, and its cache.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import type { HttpFetcher, HttpResponse } from '../../src/ports/httpFetcher';
import { discoveredEndpoint } from '../../src/resources/oembed/remote';

type Page = Pick<HttpResponse, 'status' | 'contentType' | 'body'>;

/** A fake web: answers by URL, records every request. */
function fakeWeb(pages: Record<string, Page>): HttpFetcher & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async request(url) {
      asked.push(url);
      const page = pages[url] ??
        Object.entries(pages).find(([prefix]) => prefix.endsWith('*') && url.startsWith(prefix.slice(0, -1)))?.[1] ?? {
          status: 404,
          contentType: 'text/html',
          body: 'not here',
        };
      return { ...page, url, headers: { 'content-type': page.contentType }, bytes: Buffer.from(page.body) };
    },
  };
}

const test = suite('oembed');
let t: TestSite;
let web: ReturnType<typeof fakeWeb>;
let admin: TestUser;
let contributor: TestUser;
let subscriber: TestUser;
let post: any;
let parent: any;
let child: any;

const youtubeData = {
  version: '1.0',
  type: 'video',
  title: 'A video',
  html: '<iframe src="https://www.youtube.com/embed/abc"></iframe>',
  width: 400,
  height: 225,
};
const discoveredData = { version: '1.0', type: 'rich', title: 'Discovered', html: '<div>elsewhere</div>' };

test.before(async () => {
  web = fakeWeb({
    'https://www.youtube.com/oembed*': {
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify(youtubeData),
    },
    'https://blog.example/a-story/': {
      status: 200,
      contentType: 'text/html',
      body: '<html><head><link rel="alternate" type="application/json+oembed" href="/oembed?url=https%3A%2F%2Fblog.example%2Fa-story%2F&amp;format=json"></head></html>',
    },
    'https://blog.example/oembed*': {
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify(discoveredData),
    },
    'https://plain.example/page/': {
      status: 200,
      contentType: 'text/html',
      body: '<html><head><title>No embed</title></head></html>',
    },
  });
  t = await startTestSite({ http: web });
  admin = await t.createUser('admin', 'administrator');
  contributor = await t.createUser('contributor', 'contributor');
  subscriber = await t.createUser('subscriber', 'subscriber');
  post = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Hello & welcome', status: 'publish' } })
  ).body;
  parent = (await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Parent', status: 'publish' } }))
    .body;
  child = (
    await t.request('POST', '/core/v2/pages', {
      as: admin,
      body: { title: 'Child', status: 'publish', parent: parent.id },
    })
  ).body;
});
test.after(async () => t.close());

const embed = (url: string, extra = '', as: TestUser | null = null) =>
  t.request('GET', `/oembed/1.0/embed?url=${encodeURIComponent(url)}${extra}`, { as });
const proxy = (url: string, extra = '', as: TestUser | null = admin) =>
  t.request('GET', `/oembed/1.0/proxy?url=${encodeURIComponent(url)}${extra}`, { as });

test('embed: a published post by its pretty permalink, with provider, author, size and the frame', async () => {
  const { status, body } = await embed(post.link);
  assert.is(status, 200);
  assert.equal(Object.keys(body), [
    'version',
    'provider_name',
    'provider_url',
    'author_name',
    'author_url',
    'title',
    'type',
    'width',
    'height',
    'html',
  ]);
  assert.is(body.version, '1.0');
  assert.is(body.provider_name, 'Test site');
  assert.is(body.provider_url, t.url);
  assert.is(body.author_name, 'admin');
  assert.is(body.author_url, `${t.url}/author/admin/`);
  assert.is(body.title, 'Hello &#038; welcome');
  assert.is(body.type, 'rich');
  assert.is(body.width, 600);
  assert.is(body.height, 338);
  const secret = /data-secret="([a-zA-Z0-9]{10})"/.exec(body.html)?.[1];
  assert.ok(secret, body.html);
  assert.match(
    body.html,
    new RegExp(`^<blockquote class="wp-embedded-content" data-secret="${secret}"><a href="${post.link}">`),
  );
  assert.match(
    body.html,
    new RegExp(
      `<iframe [^>]*sandbox="allow-scripts"[^>]*src="${post.link}embed/#\\?secret=${secret}"[^>]*width="600" height="338"`,
    ),
  );
  // Every embed has a fresh secret.
  assert.not.equal((await embed(post.link)).body.html, body.html);
});

test('embed: ?p=ID, ?page_id=ID and a child page by its hierarchical link', async () => {
  assert.is((await embed(`${t.url}/?p=${post.id}`)).body.title, 'Hello &#038; welcome');
  assert.is((await embed(`${t.url}/?page_id=${parent.id}`)).body.title, 'Parent');
  assert.is(child.link, `${t.url}/parent/child/`);
  assert.is((await embed(child.link)).body.title, 'Child');
  // The child's slug alone, or under another parent, is no page.
  assert.is((await embed(`${t.url}/child/`)).status, 404);
  assert.is((await embed(`${t.url}/other/child/`)).status, 404);
});

test('embed: maxwidth is kept between 200 and 600, the height 16:9 but at least 200', async () => {
  const size = async (w: string) => {
    const { body } = await embed(post.link, `&maxwidth=${w}`);
    return [body.width, body.height];
  };
  assert.equal(await size('100'), [200, 200]);
  assert.equal(await size('400'), [400, 225]);
  assert.equal(await size('480'), [480, 270]);
  assert.equal(await size('5000'), [600, 338]);
});

test("embed: in XML, a title's character references are its characters, written as hex references beyond ASCII", async () => {
  const quoted = (
    await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'A "quoted" title -- here', status: 'publish' },
    })
  ).body;
  const json = await embed(quoted.link);
  assert.is(json.body.title, 'A &#8220;quoted&#8221; title &#8212; here');
  const xml = await embed(quoted.link, '&format=xml');
  assert.match(xml.text, /<title>A &#x201C;quoted&#x201D; title &#x2014; here<\/title>/);
  assert.not.match(xml.text, /&amp;#/);
});

test('embed: format=xml is XML with the same fields; an unknown format falls back to JSON', async () => {
  const xml = await embed(post.link, '&format=xml&maxwidth=200');
  assert.is(xml.status, 200);
  assert.match(xml.headers.get('content-type') ?? '', /^text\/xml/);
  assert.ok(
    xml.text.startsWith(
      '<?xml version="1.0"?>\n<oembed><version>1.0</version><provider_name>Test site</provider_name>',
    ),
    xml.text.slice(0, 120),
  );
  assert.match(xml.text, /<width>200<\/width><height>200<\/height><html>&lt;blockquote class="wp-embedded-content"/);
  // The title's `&#038;` is read as "&" (and written `&amp;`), as in WordPress's XML.
  assert.match(xml.text, /<title>Hello &amp; welcome<\/title>/);
  const other = await embed(post.link, '&format=yaml');
  assert.is(other.status, 200);
  assert.is(other.body.version, '1.0');
});

test('embed: an author who is gone gives way to the site', async () => {
  const author = await t.createUser('leaving', 'author');
  const own = (await t.request('POST', '/core/v2/posts', { as: author, body: { title: 'Orphan', status: 'publish' } }))
    .body;
  assert.is((await embed(own.link)).body.author_name, 'leaving');
  const deleted = await t.request('DELETE', `/core/v2/users/${author.id}?force=true&reassign=false`, { as: admin });
  assert.is(deleted.status, 200, deleted.text);
  // Without reassignment the post went to the trash; bring back a published one by the missing author.
  const orphan = (
    await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'Still orphan', status: 'publish', author: admin.id },
    })
  ).body;
  const moved = await t.site.store.appendToStream(
    `content-${orphan.id}`,
    [
      {
        type: 'PostUpdated',
        data: { id: orphan.id, postType: 'post', changes: { author: author.id } },
        metadata: t.site.metadata(null, 'test'),
      },
    ],
    { expectedRevision: 'any' },
  );
  await t.site.settle(moved.position);
  const { body } = await embed(orphan.link);
  assert.is(body.author_name, 'Test site');
  assert.is(body.author_url, t.url);
});

test('embed: errors — no url, a url not of this site, not published, unknown; POST has no route', async () => {
  const missing = await t.request('GET', '/oembed/1.0/embed');
  assert.is(missing.status, 400);
  assert.equal(missing.body, {
    code: 'rest_missing_callback_param',
    message: 'Missing parameter(s): url',
    data: { status: 400, params: ['url'] },
  });
  const notFound = { code: 'oembed_invalid_url', message: 'Not Found', data: { status: 404 } };
  assert.equal((await embed('http://example.com/x')).body, notFound);
  assert.equal((await embed(`${t.url}/no-such-thing/`)).body, notFound);
  const draft = (await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Draft', slug: 'a-draft' } }))
    .body;
  assert.equal((await embed(`${t.url}/?p=${draft.id}`)).body, notFound);
  assert.equal((await embed(`${t.url}/a-draft/`)).body, notFound);
  const privatePost = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Secret', status: 'private' } })
  ).body;
  assert.equal((await embed(privatePost.link, '', admin)).body, notFound);
  assert.is((await embed(`${t.url}/?p=abc`)).status, 404);
  const posted = await t.request('POST', `/oembed/1.0/embed?url=${encodeURIComponent(post.link)}`, { as: admin });
  assert.is(posted.status, 404);
  assert.is(posted.body.code, 'rest_no_route');
});

test('embed: a password-protected post is embeddable, its title marked', async () => {
  const locked = (
    await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'Locked', status: 'publish', password: 'pw' },
    })
  ).body;
  const { status, body } = await embed(locked.link);
  assert.is(status, 200);
  assert.is(body.title, 'Protected: Locked');
});

test('proxy: edit_posts only (401/403 rest_forbidden), but a missing url is reported first', async () => {
  const forbidden = 'Sorry, you are not allowed to make proxied oEmbed requests.';
  const anonymous = await proxy(post.link, '', null);
  assert.equal(anonymous.body, { code: 'rest_forbidden', message: forbidden, data: { status: 401 } });
  const sub = await proxy(post.link, '', subscriber);
  assert.equal(sub.body, { code: 'rest_forbidden', message: forbidden, data: { status: 403 } });
  assert.is((await t.request('GET', '/oembed/1.0/proxy')).status, 400);
  assert.is((await proxy(post.link, '', contributor)).status, 200);
});

test('proxy: args are validated (discover, format), maxwidth only sanitized', async () => {
  const discover = await proxy('http://example.com/x', '&discover=notaboolean');
  assert.is(discover.status, 400);
  assert.is(discover.body.code, 'rest_invalid_param');
  assert.equal(discover.body.data.params, { discover: 'discover is not of type boolean.' });
  assert.is((await proxy(post.link, '&format=yaml')).body.data.params.format !== undefined, true);
  // maxwidth is only sanitized (absint), never refused: "wide" is 0, so the narrowest frame.
  const wide = await proxy(post.link, '&maxwidth=wide');
  assert.is(wide.status, 200);
  assert.is(wide.body.width, 200);
});

test('proxy: a local URL is answered like embed, maxwidth and format included', async () => {
  const { status, body } = await proxy(child.link, '&maxwidth=400');
  assert.is(status, 200);
  assert.is(body.title, 'Child');
  assert.equal([body.width, body.height], [400, 225]);
  const xml = await proxy(child.link, '&format=xml');
  assert.match(xml.headers.get('content-type') ?? '', /^text\/xml/);
});

test('proxy: an allow-listed provider is asked at its endpoint with the url and sizes, and the answer is kept', async () => {
  web.asked.length = 0;
  const url = 'https://www.youtube.com/watch?v=abc';
  const first = await proxy(url, '&maxwidth=400&maxheight=300');
  assert.is(first.status, 200, first.text);
  assert.equal(first.body, youtubeData);
  assert.is(web.asked.length, 1);
  const asked = new URL(web.asked[0]!);
  assert.is(`${asked.origin}${asked.pathname}`, 'https://www.youtube.com/oembed');
  assert.is(asked.searchParams.get('url'), url);
  assert.is(asked.searchParams.get('maxwidth'), '400');
  assert.is(asked.searchParams.get('maxheight'), '300');
  const again = await proxy(url, '&maxwidth=400&maxheight=300');
  assert.equal(again.body, youtubeData);
  assert.is(web.asked.length, 1, 'kept, not asked again');
  // Kept for a while only.
  t.clock.advance(25 * 60 * 60 * 1000);
  await proxy(url, '&maxwidth=400&maxheight=300');
  assert.is(web.asked.length, 2);
  const xml = await proxy(url, '&format=xml');
  assert.match(xml.text, /<type>video<\/type>/);
});

test("proxy: discovery follows the page's json+oembed link; without discovery, or with nothing found, 404 oembed_invalid_url", async () => {
  web.asked.length = 0;
  const found = await proxy('https://blog.example/a-story/');
  assert.is(found.status, 200, found.text);
  assert.equal(found.body, discoveredData);
  assert.equal(web.asked.slice(0, 1), ['https://blog.example/a-story/']);
  assert.ok(web.asked[1]!.startsWith('https://blog.example/oembed?url='), web.asked[1]);
  web.asked.length = 0;
  const notFound = { code: 'oembed_invalid_url', message: 'Not Found', data: { status: 404 } };
  assert.equal((await proxy('https://blog.example/other-story/', '&discover=false')).body, notFound);
  assert.equal(web.asked, [], 'no request without discovery');
  assert.equal((await proxy('https://plain.example/page/')).body, notFound);
  assert.equal((await proxy('https://nowhere.example/')).body, notFound);
});

test('discovery reads the link wherever its attributes are, and ignores XML or other links', () => {
  const page = `<link rel="stylesheet" href="/x.css"><link type='text/xml+oembed' rel='alternate' href='/xml'><LINK HREF="/json?a=1&amp;b=2" TYPE="application/json+oembed" REL="alternate">`;
  assert.is(discoveredEndpoint(page, 'https://site.example/post/'), 'https://site.example/json?a=1&b=2');
  assert.is(
    discoveredEndpoint(
      '<link rel="alternate" type="application/json+oembed" href="javascript:alert(1)">',
      'https://a.example/',
    ),
    null,
  );
});

test.run();
