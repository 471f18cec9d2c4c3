/**
 * Media answers where the comparison with the reference WordPress (npm run compat) found palimpsest apart:
 * the item's Link header, the description of an image smaller than the medium size, a multipart upload
 * without a file, and two route descriptions.
 */
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('media-compat');
let t: TestSite;
let admin: TestUser;

const image = (width: number, height: number, format: 'jpeg' | 'png') =>
  sharp({ create: { width, height, channels: 3, background: { r: 20, g: 90, b: 200 } } })
    .toFormat(format)
    .toBuffer();
const upload = async (data: Buffer, filename: string, type: string) =>
  t.request('POST', '/core/v2/media', {
    as: admin,
    raw: { data, type },
    headers: { 'content-disposition': `attachment; filename=${filename}` },
  });

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
});
test.after(async () => t.close());

test('GET of an item links its page on the site as rel="alternate" (in every context)', async () => {
  const item = (await upload(await image(40, 30, 'jpeg'), 'linked.jpg', 'image/jpeg')).body;
  for (const context of ['view', 'embed', 'edit']) {
    const response = await t.request('GET', `/core/v2/media/${item.id}?context=${context}`, { as: admin });
    assert.is(response.status, 200);
    assert.is(response.headers.get('link'), `<${item.link}>; rel="alternate"; type=text/html`);
  }
});

test('the description of an image without a medium copy shows the full file, classed as the medium size', async () => {
  const item = (await upload(await image(200, 100, 'png'), 'small.png', 'image/png')).body;
  assert.equal(Object.keys(item.media_details.sizes), ['thumbnail', 'full']);
  assert.match(
    item.description.rendered,
    `<img width="200" height="100" src="${item.source_url}" class="attachment-medium size-medium"`,
  );
  // With a medium copy, that copy is shown.
  const large = (await upload(await image(600, 400, 'jpeg'), 'large.jpg', 'image/jpeg')).body;
  assert.match(
    large.description.rendered,
    `<img width="300" height="200" src="${large.media_details.sizes.medium.source_url}" class="attachment-medium size-medium"`,
  );
});

test('a multipart upload without a file has no data (not a missing Content-Disposition)', async () => {
  const form = new FormData();
  form.append('title', 'No file here');
  const response = await fetch(`${t.url}/core/v2/media`, {
    method: 'POST',
    body: form,
    headers: { authorization: admin.auth },
  });
  assert.is(response.status, 400);
  assert.equal(await response.json(), {
    code: 'rest_upload_no_data',
    message: 'No data supplied.',
    data: { status: 400 },
  });
});

test('route descriptions: the empty meta map is [], and the edit route takes its id from the path only', async () => {
  const index = (await t.request('GET', '/core/v2')).body;
  const item = index.routes['/core/v2/media/(?P<id>[\\d]+)'];
  const update = item.endpoints.find((e: { methods: string[] }) => e.methods.includes('POST'));
  assert.equal(update.args.meta.properties, []);
  const edit = index.routes['/core/v2/media/(?P<id>[\\d]+)/edit'];
  assert.equal(Object.keys(edit.endpoints[0].args).includes('id'), false);
  assert.equal(edit.endpoints[0].args.src.required, true);
});

test.run();
