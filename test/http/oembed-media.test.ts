/**
 * oEmbed with media: a post's featured image as the embed's thumbnail, attachments' own embeds (`type:
 * "video"` for a video), URLs ending in `/embed/`, and the embed view page the frame shows, which keeps no
 * markup or script of the post.
 */
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('oembed media');
let t: TestSite;
let admin: TestUser;
let site: string;

const upload = (data: Buffer, filename: string, type: string, query = '') =>
  t.request('POST', `/core/v2/media${query}`, {
    raw: { data, type },
    as: admin,
    headers: { 'content-disposition': `attachment; filename=${filename}` },
  });
const embed = (url: string, query = '') => t.request('GET', `/oembed/1.0/embed?url=${encodeURIComponent(url)}${query}`);

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  site = t.site.settings.siteUrl;
});
test.after(async () => t.close());

test('a featured image is the thumbnail, scaled to the frame width', async () => {
  const jpeg = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  const image = (await upload(jpeg, 'cover.jpg', 'image/jpeg')).body;
  const post = (
    await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'With cover', status: 'publish', featured_media: image.id },
    })
  ).body;
  const wide = await embed(post.link);
  assert.is(wide.status, 200);
  assert.equal(
    [wide.body.thumbnail_url, wide.body.thumbnail_width, wide.body.thumbnail_height],
    [image.source_url, 600, 450],
  );
  const narrow = await embed(post.link, '&maxwidth=250');
  assert.equal([narrow.body.thumbnail_width, narrow.body.thumbnail_height], [250, 188]);
  const plain = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'No cover', status: 'publish' } })
  ).body;
  assert.not.ok('thumbnail_url' in (await embed(plain.link)).body);
  // An image attachment is its own thumbnail; it is found by its link and by ?attachment_id.
  const own = await embed(image.link);
  assert.equal(
    [own.status, own.body.type, own.body.title, own.body.thumbnail_url],
    [200, 'rich', 'cover', image.source_url],
  );
  assert.is((await embed(`${site}/?attachment_id=${image.id}`)).body.title, 'cover');
});

test('a video attachment embeds as type video, under its parent too', async () => {
  const parent = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Film night', status: 'publish' } })
  ).body;
  const video = (await upload(Buffer.from('not really a film'), 'trailer.mp4', 'video/mp4', `?post=${parent.id}`)).body;
  assert.is(video.link, `${site}/film-night/trailer/`);
  const answer = await embed(video.link);
  assert.equal([answer.status, answer.body.type, answer.body.title], [200, 'video', 'trailer']);
  assert.not.ok('thumbnail_url' in answer.body);
  // Under a draft, an attachment is not public.
  const draft = (await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Hidden', status: 'draft' } }))
    .body;
  const hidden = (await upload(Buffer.from('x'), 'secret.mp4', 'video/mp4', `?post=${draft.id}`)).body;
  assert.equal((await embed(`${site}/?attachment_id=${hidden.id}`)).body.code, 'oembed_invalid_url');
});

test('an /embed/ URL names its item, and the embed view is served as escaped text without scripts', async () => {
  const post = (
    await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: {
        title: 'Tom & <b>Jerry</b>',
        status: 'publish',
        content: '<p>Hello <script>alert(1)</script><img src=x onerror="alert(2)"> world</p>',
        excerpt: '',
      },
    })
  ).body;
  const byEmbedUrl = await embed(`${post.link}embed/`);
  assert.is(byEmbedUrl.status, 200);
  assert.is(byEmbedUrl.body.title, (await embed(post.link)).body.title);
  const page = await fetch(`${post.link.replace(site, t.url)}embed/`);
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = await page.text();
  assert.not.match(html, /<script/i);
  assert.not.match(html, /onerror/i);
  assert.not.match(html, /<b>/);
  assert.match(html, /Tom &amp; Jerry/);
  assert.match(html, /Hello/);
  assert.match(html, new RegExp(t.site.settings.name));
  assert.match(html, new RegExp(`href="${post.link}"`));
  // Not an item, or not public: not served as an embed view.
  assert.is((await fetch(`${t.url}/no-such-post/embed/`)).status, 404);
  const draft = (
    await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'Draft only', status: 'draft', slug: 'draft-only' },
    })
  ).body;
  assert.is((await fetch(`${t.url}/draft-only/embed/`)).status, 404);
  assert.ok(draft.id);
});

test.run();
