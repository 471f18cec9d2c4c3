/**
 * The site's logo and icon in the index, as WordPress 6.1 shows them (the reference site's answers to the same
 * requests): `site_logo` and `site_icon` are the attachments the settings name, `site_icon_url` the icon's full
 * image, and each is linked as the site's featured media (embeddable, with its role), so that `_embed` brings it.
 * An attachment deleted while named keeps its id there, linked to the API root, with `site_icon_url` false.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

let t: TestSite;
let admin: TestUser;

test.before.each(async () => {
  t = await startTestSite({ apiDialect: 'wordpress' });
  admin = await t.createUser('admin', 'administrator');
});
test.after.each(() => t.close());

async function upload(name: string): Promise<{ id: number; source_url: string }> {
  const png = await sharp({ create: { width: 600, height: 600, channels: 3, background: '#36c' } })
    .png()
    .toBuffer();
  const response = await t.request('POST', '/core/v2/media', {
    as: admin,
    raw: { data: png, type: 'image/png' },
    headers: { 'content-disposition': `attachment; filename=${name}` },
  });
  assert.is(response.status, 201, response.text);
  return response.body;
}

const images = (body: any) => [body.site_logo, body.site_icon, body.site_icon_url];

test('none set: zeros, no URL, no links', async () => {
  const index = await t.request('GET', '/');
  assert.equal(images(index.body), [0, 0, '']);
  assert.equal(Object.keys(index.body._links), ['help']);
});

test('a logo and an icon set in the settings show in both dialects, linked and embeddable', async () => {
  const logo = await upload('logo.png');
  const icon = await upload('icon.png');
  const saved = await t.request('POST', '/core/v2/settings', {
    as: admin,
    body: { site_logo: logo.id, site_icon: icon.id },
  });
  assert.is(saved.status, 200);

  const core = await t.request('GET', '/');
  assert.equal(images(core.body), [logo.id, icon.id, icon.source_url]);
  assert.equal(core.body._links['wp:featuredmedia'], [
    { embeddable: true, type: 'site_logo', href: `${t.url}/core/v2/media/${logo.id}` },
    { embeddable: true, type: 'site_icon', href: `${t.url}/core/v2/media/${icon.id}` },
  ]);
  assert.equal(core.body._links.curies, [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }]);
  assert.equal(Object.keys(core.body._links), ['help', 'wp:featuredmedia', 'curies']);

  const wordpress = await t.request('GET', '/wp-json/?_fields=site_logo,site_icon,site_icon_url,_links');
  assert.equal(images(wordpress.body), [logo.id, icon.id, icon.source_url]);
  assert.equal(
    wordpress.body._links['wp:featuredmedia'].map((link: { href: string }) => link.href),
    [`${t.url}/wp-json/wp/v2/media/${logo.id}`, `${t.url}/wp-json/wp/v2/media/${icon.id}`],
  );

  const embedded = await t.request('GET', '/wp-json/?_embed=wp:featuredmedia');
  assert.equal(
    embedded.body._embedded['wp:featuredmedia'].map((item: { id: number }) => item.id),
    [logo.id, icon.id],
  );

  // Unset again.
  await t.request('POST', '/core/v2/settings', { as: admin, body: { site_logo: null, site_icon: 0 } });
  const cleared = await t.request('GET', '/');
  assert.equal(images(cleared.body), [0, 0, '']);
  assert.equal(Object.keys(cleared.body._links), ['help']);
});

test('an attachment deleted while named keeps its id, linked to the API root, and the icon URL is false', async () => {
  const image = await upload('gone.png');
  await t.request('POST', '/core/v2/settings', { as: admin, body: { site_logo: image.id, site_icon: image.id } });
  const deleted = await t.request('DELETE', `/core/v2/media/${image.id}?force=true`, { as: admin });
  assert.is(deleted.status, 200);
  const index = await t.request('GET', '/wp-json/');
  assert.equal(images(index.body), [image.id, image.id, false]);
  assert.equal(index.body._links['wp:featuredmedia'], [
    { embeddable: true, type: 'site_logo', href: `${t.url}/wp-json/` },
    { embeddable: true, type: 'site_icon', href: `${t.url}/wp-json/` },
  ]);
});

test.run();
