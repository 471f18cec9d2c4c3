/**
 * /core/v2/media details WordPress derives from the file and the parent: the item's link under its parent's
 * permalink, the description's responsive image markup, image_meta from EXIF/IPTC, the big-image `-scaled`
 * copy, and the multipart upload error.
 */
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('media details');
let t: TestSite;
let admin: TestUser;
let site: string;

const image = (width: number, height: number, format: 'jpeg' | 'png' = 'jpeg') =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 90, b: 160 } } })
    .toFormat(format)
    .toBuffer();

const upload = (data: Buffer, filename: string, query = '', type = 'image/jpeg') =>
  t.request('POST', `/core/v2/media${query}`, {
    raw: { data, type },
    as: admin,
    headers: { 'content-disposition': `attachment; filename=${filename}` },
  });

/** A JPEG with an APP13 (Photoshop 3.0, 8BIM 0x0404) IPTC block of these record-2 datasets. */
function withIptc(jpeg: Buffer, datasets: [number, string][]): Buffer {
  const iptc = Buffer.concat(
    datasets.map(([dataset, value]) => {
      const text = Buffer.from(value, 'utf8');
      const head = Buffer.from([0x1c, 0x02, dataset, 0, 0]);
      head.writeUInt16BE(text.length, 3);
      return Buffer.concat([head, text]);
    }),
  );
  const padded = iptc.length % 2 ? Buffer.concat([iptc, Buffer.from([0])]) : iptc;
  const size = Buffer.alloc(4);
  size.writeUInt32BE(iptc.length);
  const payload = Buffer.concat([
    Buffer.from('Photoshop 3.0\0', 'latin1'),
    Buffer.from('8BIM'),
    Buffer.from([0x04, 0x04, 0, 0]),
    size,
    padded,
  ]);
  const marker = Buffer.from([0xff, 0xed, 0, 0]);
  marker.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), marker, payload, jpeg.subarray(2)]);
}

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  site = t.site.settings.siteUrl;
});
test.after(async () => t.close());

test("link: under the parent post's permalink when attached, at the root when not, by id under a draft", async () => {
  const parent = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Parent post', status: 'publish' } })
  ).body;
  const attached = (await upload(await image(400, 300), 'attached-one.jpg', `?post=${parent.id}`)).body;
  assert.is(attached.link, `${site}/parent-post/attached-one/`);
  assert.is(attached.permalink_template, `${site}/parent-post/%postname%/`);
  const loose = (await upload(await image(400, 300), 'loose-one.jpg')).body;
  assert.is(loose.link, `${site}/loose-one/`);
  assert.is(loose.permalink_template, `${site}/?attachment_id=${loose.id}`);
  const draft = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Draft parent', status: 'draft' } })
  ).body;
  const underDraft = (await upload(await image(400, 300), 'under-draft.jpg', `?post=${draft.id}`)).body;
  assert.is(underDraft.link, `${site}/?attachment_id=${underDraft.id}`);
  const page = (await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Top', status: 'publish' } }))
    .body;
  const child = (
    await t.request('POST', '/core/v2/pages', {
      as: admin,
      body: { title: 'Child', status: 'publish', parent: page.id },
    })
  ).body;
  const onChild = (await upload(await image(400, 300), 'on-child.jpg', `?post=${child.id}`)).body;
  assert.is(onChild.link, `${site}/top/child/on-child/`);
  // Attaching later moves the link.
  const moved = await t.request('POST', `/core/v2/media/${loose.id}`, { as: admin, body: { post: parent.id } });
  assert.is(moved.body.link, `${site}/parent-post/loose-one/`);
});

test('description: the medium image with a srcset of the same-shaped sizes and the full file', async () => {
  const item = (await upload(await image(800, 600), 'wide-shot.jpg')).body;
  const folder = `${site}/wp-content/uploads/${item.media_details.file.slice(0, 8)}`;
  const srcset = [
    `${folder}wide-shot-300x225.jpg 300w`,
    `${folder}wide-shot-768x576.jpg 768w`,
    `${folder}wide-shot.jpg 800w`,
  ].join(', ');
  assert.is(
    item.description.rendered,
    `<p class="attachment"><a href='${folder}wide-shot.jpg'><img width="300" height="225" src="${folder}wide-shot-300x225.jpg" class="attachment-medium size-medium" alt="" decoding="async" loading="lazy" srcset="${srcset}" sizes="(max-width: 300px) 100vw, 300px" /></a></p>\n`,
  );
  // A small image has no other size of its shape: no srcset.
  const small = (await upload(await image(200, 100), 'small-one.jpg')).body;
  assert.not.match(small.description.rendered, /srcset/);
});

test('a disallowed type: rest_upload_unknown_error through a form, rest_upload_sideload_error as a raw body', async () => {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('MZ')], { type: 'application/octet-stream' }), 'evil.exe');
  const response = await fetch(`${t.url}/core/v2/media`, {
    method: 'POST',
    body: form,
    headers: { authorization: admin.auth },
  });
  assert.is(response.status, 400);
  assert.equal(await response.json(), {
    code: 'rest_upload_unknown_error',
    message: 'Sorry, you are not allowed to upload this file type.',
    data: { status: 400 },
  });
  const raw = await upload(Buffer.from('MZ'), 'evil.exe', '', 'application/octet-stream');
  assert.equal([raw.status, raw.body.code], [400, 'rest_upload_sideload_error']);
});

test('a big image is shown through a -scaled copy; sub-sizes come from the original; delete removes both', async () => {
  const response = await upload(await image(3000, 2000), 'huge-view.jpg');
  assert.is(response.status, 201);
  const item = response.body;
  const details = item.media_details;
  const month = details.file.slice(0, 8);
  assert.is(details.file, `${month}huge-view-scaled.jpg`);
  assert.equal([details.width, details.height], [2560, 1707]);
  assert.is(details.original_image, 'huge-view.jpg');
  assert.equal(Object.keys(details), ['width', 'height', 'file', 'filesize', 'sizes', 'image_meta', 'original_image']);
  assert.is(item.source_url, `${site}/wp-content/uploads/${month}huge-view-scaled.jpg`);
  assert.is(item.guid.raw, `${site}/wp-content/uploads/${month}huge-view.jpg`);
  assert.equal(Object.keys(details.sizes), [
    'medium',
    'large',
    'thumbnail',
    'medium_large',
    '1536x1536',
    '2048x2048',
    'full',
  ]);
  assert.is(details.sizes['2048x2048'].file, 'huge-view-2048x1365.jpg');
  assert.equal([details.sizes.full.file, details.sizes.full.width], ['huge-view-scaled.jpg', 2560]);
  const scaledFile = await fetch(item.source_url.replace(site, t.url));
  assert.is(scaledFile.status, 200);
  assert.equal((await sharp(Buffer.from(await scaledFile.arrayBuffer())).metadata()).width, 2560);
  assert.is(
    details.filesize,
    Number(scaledFile.headers.get('content-length') ?? (await scaledFile.arrayBuffer()).byteLength),
  );
  // The 2560 copy is wider than a srcset lists.
  assert.not.match(item.description.rendered, /huge-view-scaled\.jpg 2560w/);
  // At the threshold: no copy. A PNG is never scaled.
  assert.is((await upload(await image(2560, 1000), 'edge.jpg')).body.media_details.original_image, undefined);
  assert.is(
    (await upload(await image(2600, 100, 'png'), 'wide.png', '', 'image/png')).body.media_details.original_image,
    undefined,
  );
  await t.request('DELETE', `/core/v2/media/${item.id}?force=true`, { as: admin });
  assert.is((await fetch(`${t.url}/wp-content/uploads/${month}huge-view.jpg`)).status, 404);
  assert.is((await fetch(`${t.url}/wp-content/uploads/${month}huge-view-scaled.jpg`)).status, 404);
});

test('image_meta from EXIF, and the title and caption taken from it on upload', async () => {
  const data = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#884422' } })
    .jpeg()
    .withExif({
      IFD0: {
        ImageDescription: 'Harbour at dawn',
        Artist: 'Ann Example',
        Copyright: 'CC BY Ann',
        Model: 'Camera X100',
        Orientation: '1',
      },
      IFD2: {
        FNumber: '28/10',
        ExposureTime: '1/200',
        ISOSpeedRatings: '400',
        FocalLength: '35/1',
        DateTimeDigitized: '2021:06:15 08:30:00',
        UserComment: 'A quiet morning',
      },
    })
    .toBuffer();
  const item = (await upload(data, 'exif-shot.jpg')).body;
  // As the reference WordPress reads the same file.
  assert.equal(item.media_details.image_meta, {
    aperture: '2.8',
    credit: 'Ann Example',
    camera: 'Camera X100',
    caption: 'A quiet morning',
    created_timestamp: '1623745800',
    copyright: 'CC BY Ann',
    focal_length: '35',
    iso: '400',
    shutter_speed: '0.005',
    title: 'Harbour at dawn',
    orientation: '1',
    keywords: [],
  });
  assert.is(item.title.raw, 'Harbour at dawn');
  assert.is(item.slug, 'harbour-at-dawn');
  assert.is(item.caption.raw, 'A quiet morning');
  // What the request sends wins over the metadata.
  const named = (await upload(data, 'exif-shot.jpg', '?title=Chosen&caption=Mine')).body;
  assert.equal([named.title.raw, named.caption.raw], ['Chosen', 'Mine']);
  // No metadata: the defaults, and the file name as title.
  const plain = (await upload(await image(64, 48), 'plain-shot.jpg')).body;
  assert.equal(plain.media_details.image_meta, {
    aperture: '0',
    credit: '',
    camera: '',
    caption: '',
    created_timestamp: '0',
    copyright: '',
    focal_length: '0',
    iso: '0',
    shutter_speed: '0',
    title: '',
    orientation: '0',
    keywords: [],
  });
  assert.equal([plain.title.raw, plain.caption.raw], ['plain-shot', '']);
});

test('image_meta from IPTC: headline, caption, credit, copyright, date and keywords; IPTC before EXIF', async () => {
  const base = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#224488' } })
    .jpeg()
    .withExif({ IFD0: { Artist: 'Exif Artist', Copyright: 'Exif Copyright' } })
    .toBuffer();
  const data = withIptc(base, [
    [105, 'Night market'],
    [120, 'Stalls under lanterns'],
    [110, 'Bo Photographer'],
    [116, '(c) Bo'],
    [55, '20200102'],
    [60, '101500'],
    [25, 'market'],
    [25, 'night'],
  ]);
  const item = (await upload(data, 'iptc-shot.jpg')).body;
  const meta = item.media_details.image_meta;
  assert.equal(
    [meta.title, meta.caption, meta.credit, meta.copyright, meta.created_timestamp, meta.keywords, meta.orientation],
    [
      'Night market',
      'Stalls under lanterns',
      'Bo Photographer',
      '(c) Bo',
      String(Date.UTC(2020, 0, 2, 10, 15) / 1000),
      ['market', 'night'],
      '1',
    ],
  );
  assert.equal([item.title.raw, item.caption.raw], ['Night market', 'Stalls under lanterns']);
});

test('as_of: the attachment as it was, for those who may edit it', async () => {
  const item = (await upload(await image(64, 48), 'timeline.jpg')).body;
  const createdAt = item.modified;
  t.clock.advance(60_000);
  await t.request('POST', `/core/v2/media/${item.id}`, {
    as: admin,
    body: { title: 'Renamed', alt_text: 'Later text' },
  });
  const past = await t.request('GET', `/core/v2/media/${item.id}?as_of=${createdAt}&context=edit`, { as: admin });
  assert.is(past.status, 200);
  assert.equal([past.body.title.raw, past.body.alt_text], ['timeline', '']);
  const now = await t.request('GET', `/core/v2/media/${item.id}?context=edit`, { as: admin });
  assert.equal([now.body.title.raw, now.body.alt_text], ['Renamed', 'Later text']);
  const before = await t.request('GET', `/core/v2/media/${item.id}?as_of=2000-01-01T00:00:00`, { as: admin });
  assert.equal([before.status, before.body.code], [404, 'rest_post_invalid_id']);
  const anonymous = await t.request('GET', `/core/v2/media/${item.id}?as_of=${createdAt}`);
  assert.is(anonymous.status, 401);
  assert.equal(anonymous.body, {
    code: 'rest_cannot_read',
    message: 'Sorry, you are not allowed to view the history of this attachment.',
    data: { status: 401 },
  });
  const bad = await t.request('GET', `/core/v2/media/${item.id}?as_of=yesterday`, { as: admin });
  assert.is(bad.status, 400);
  assert.equal(bad.body, {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): as_of',
    data: {
      status: 400,
      params: { as_of: 'Invalid date.' },
      details: { as_of: { code: 'rest_invalid_date', message: 'Invalid date.', data: null } },
    },
  });
});

test.run();
