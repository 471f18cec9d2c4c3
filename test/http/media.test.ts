/**
 * /core/v2/media through the real app: uploads (raw body and multipart) with WordPress's errors, sub-sizes,
 * serving the files, reading, listing with the media filters, updating, deleting, post-process and edit.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('media');
let t: TestSite;
let admin: TestUser;
let author: TestUser;
let contributor: TestUser;
let jpeg: Buffer;

const image = (width: number, height: number, format: 'jpeg' | 'png' = 'jpeg') =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .toFormat(format)
    .toBuffer();

const upload = (
  data: Buffer,
  filename: string,
  type = 'image/jpeg',
  as: TestUser | null = admin,
  query = '',
  headers: Record<string, string> = {},
) =>
  t.request('POST', `/core/v2/media${query}`, {
    raw: { data, type },
    as,
    headers: { 'content-disposition': `attachment; filename=${filename}`, ...headers },
  });

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  author = await t.createUser('author', 'author');
  contributor = await t.createUser('contributor', 'contributor');
  jpeg = await image(400, 300);
});
test.after(async () => t.close());

test('a raw upload answers 201 with Location, the upload header and the item in edit context', async () => {
  const response = await upload(jpeg, 'red-sample.jpg');
  assert.is(response.status, 201);
  const item = response.body;
  assert.is(response.headers.get('location'), `${t.site.apiRoot}core/v2/media/${item.id}`);
  assert.is(response.headers.get('x-wp-upload-attachment-id'), String(item.id));
  assert.is(item.title.raw, 'red-sample');
  assert.is(item.slug, 'red-sample');
  assert.is(item.status, 'inherit');
  assert.is(item.type, 'attachment');
  assert.is(item.media_type, 'image');
  assert.is(item.mime_type, 'image/jpeg');
  assert.is(item.comment_status, 'open');
  assert.is(item.ping_status, 'closed');
  assert.is(item.post, null);
  assert.equal(item.meta, []);
  assert.is(item.source_url, `${t.site.settings.siteUrl}/wp-content/uploads/2024/05/red-sample.jpg`);
  assert.is(item.media_details.width, 400);
  assert.is(item.media_details.height, 300);
  assert.is(item.media_details.file, '2024/05/red-sample.jpg');
  assert.is(item.media_details.filesize, jpeg.length);
  // Only the sizes smaller than the original: medium (fit in 300) and thumbnail (cropped 150x150).
  assert.equal(Object.keys(item.media_details.sizes), ['medium', 'thumbnail', 'full']);
  assert.equal([item.media_details.sizes.medium.width, item.media_details.sizes.medium.height], [300, 225]);
  assert.is(item.media_details.sizes.thumbnail.file, 'red-sample-150x150.jpg');
  assert.equal(item.missing_image_sizes, []);
  assert.ok('raw' in item.caption && 'raw' in item.description);
  assert.ok(item._links['wp:action-assign-author']);
});

test('files are served at their source_url with their type; sub-sizes are real images of their size', async () => {
  const item = (await upload(jpeg, 'served.jpg')).body;
  const original = await fetch(item.source_url.replace(t.site.settings.siteUrl, t.url));
  assert.is(original.status, 200);
  assert.is(original.headers.get('content-type'), 'image/jpeg');
  assert.ok(Buffer.from(await original.arrayBuffer()).equals(jpeg));
  const thumbnail = await fetch(item.media_details.sizes.thumbnail.source_url.replace(t.site.settings.siteUrl, t.url));
  const meta = await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata();
  assert.equal([meta.width, meta.height], [150, 150]);
});

test('the uploads path is safe against traversal and answers 404 for unknown files', async () => {
  for (const path of [
    '/wp-content/uploads/2024/05/nothing.jpg',
    '/wp-content/uploads/..%2F..%2Fetc%2Fpasswd',
    '/wp-content/uploads/2024/%2e%2e/%2e%2e/package.json',
    '/wp-content/uploads/.hidden',
  ]) {
    const response = await fetch(`${t.url}${path}`);
    assert.is(response.status, 404, path);
  }
  const post = await fetch(`${t.url}/wp-content/uploads/2024/05/served.jpg`, { method: 'POST' });
  assert.is.not(post.status, 200);
});

test('the same file name twice gets name-1, and its own slug', async () => {
  const first = (await upload(jpeg, 'twice.jpg')).body;
  const second = (await upload(jpeg, 'twice.jpg')).body;
  assert.is(first.media_details.file, '2024/05/twice.jpg');
  assert.is(second.media_details.file, '2024/05/twice-1.jpg');
  assert.is(second.title.raw, 'twice-1');
  assert.is.not(first.slug, second.slug);
});

test('upload errors, in WordPress order', async () => {
  const noData = await t.request('POST', '/core/v2/media', {
    as: admin,
    raw: { data: Buffer.alloc(0), type: 'image/jpeg' },
    headers: { 'content-disposition': 'attachment; filename=a.jpg' },
  });
  assert.equal([noData.status, noData.body.code], [400, 'rest_upload_no_data']);
  const noType = await t.request('POST', '/core/v2/media', {
    as: admin,
    raw: { data: jpeg, type: '' },
    headers: { 'content-disposition': 'attachment; filename=a.jpg' },
  });
  assert.equal([noType.status, noType.body.code], [400, 'rest_upload_no_content_type']);
  const noDisposition = await t.request('POST', '/core/v2/media', {
    as: admin,
    raw: { data: jpeg, type: 'image/jpeg' },
  });
  assert.equal([noDisposition.status, noDisposition.body.code], [400, 'rest_upload_no_content_disposition']);
  const badDisposition = await t.request('POST', '/core/v2/media', {
    as: admin,
    raw: { data: jpeg, type: 'image/jpeg' },
    headers: { 'content-disposition': 'attachment' },
  });
  assert.equal([badDisposition.status, badDisposition.body.code], [400, 'rest_upload_invalid_disposition']);
  const mismatch = await upload(jpeg, 'a.jpg', 'image/jpeg', admin, '', {
    'content-md5': 'd41d8cd98f00b204e9800998ecf8427e',
  });
  assert.equal([mismatch.status, mismatch.body.code], [412, 'rest_upload_hash_mismatch']);
  const matching = await upload(jpeg, 'md5.jpg', 'image/jpeg', admin, '', {
    'content-md5': createHash('md5').update(jpeg).digest('hex'),
  });
  assert.is(matching.status, 201);
  const exe = await upload(Buffer.from('MZ'), 'evil.exe', 'application/octet-stream');
  assert.equal([exe.status, exe.body.code], [400, 'rest_upload_sideload_error']);
  const html = await upload(Buffer.from('<p>x</p>'), 'page.html', 'text/html', author);
  assert.equal([html.status, html.body.code], [400, 'rest_upload_sideload_error']);
});

test('who may upload: anonymous 401, contributor 403, author 201; post must be editable and a post', async () => {
  const anonymous = await upload(jpeg, 'a.jpg', 'image/jpeg', null);
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  const refused = await upload(jpeg, 'a.jpg', 'image/jpeg', contributor);
  assert.equal([refused.status, refused.body.code], [403, 'rest_cannot_create']);
  const allowed = await upload(jpeg, 'by-author.jpg', 'image/jpeg', author);
  assert.is(allowed.status, 201);
  const adminPost = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Admin draft', status: 'draft' } })
  ).body;
  const notTheirs = await upload(jpeg, 'a.jpg', 'image/jpeg', author, `?post=${adminPost.id}`);
  assert.equal([notTheirs.status, notTheirs.body.code], [403, 'rest_cannot_edit']);
  const attachmentAsParent = await upload(jpeg, 'a.jpg', 'image/jpeg', admin, `?post=${allowed.body.id}`);
  assert.equal([attachmentAsParent.status, attachmentAsParent.body.code], [400, 'rest_invalid_param']);
});

test('multipart upload: the file field, other fields from the body, MD5 checked', async () => {
  const form = new FormData();
  form.append('file', new Blob([jpeg], { type: 'image/jpeg' }), 'multi part.jpg');
  form.append('title', 'Multi');
  form.append('alt_text', 'A red square');
  const response = await fetch(`${t.url}/core/v2/media`, {
    method: 'POST',
    body: form,
    headers: { authorization: admin.auth },
  });
  const item = (await response.json()) as any;
  assert.is(response.status, 201);
  assert.is(item.title.raw, 'Multi');
  assert.is(item.slug, 'multi');
  assert.is(item.alt_text, 'A red square');
  assert.is(item.media_details.file, '2024/05/multi-part.jpg');
  const bad = new FormData();
  bad.append('file', new Blob([jpeg], { type: 'image/jpeg' }), 'x.jpg');
  const mismatch = await fetch(`${t.url}/core/v2/media`, {
    method: 'POST',
    body: bad,
    headers: { authorization: admin.auth, 'content-md5': 'nope' },
  });
  assert.is(mismatch.status, 412);
});

test('a text file is a "file" with no image details', async () => {
  const response = await upload(Buffer.from('hello'), 'note.txt', 'text/plain');
  assert.is(response.status, 201);
  assert.is(response.body.media_type, 'file');
  assert.is(response.body.mime_type, 'text/plain');
  assert.equal(response.body.media_details, { filesize: 5, sizes: {} });
});

test('get: contexts give the key sets of WordPress and the interface (featured_media); unknown id 404', async () => {
  const id = (await upload(jpeg, 'contexts.jpg')).body.id;
  const view = await t.request('GET', `/core/v2/media/${id}`);
  assert.is(view.status, 200);
  assert.equal(Object.keys(view.body).sort(), [
    '_links',
    'alt_text',
    'author',
    'caption',
    'comment_status',
    'date',
    'date_gmt',
    'description',
    'featured_media',
    'guid',
    'id',
    'link',
    'media_details',
    'media_type',
    'meta',
    'mime_type',
    'modified',
    'modified_gmt',
    'ping_status',
    'post',
    'slug',
    'source_url',
    'status',
    'template',
    'title',
    'type',
  ]);
  assert.is(view.body.caption.raw, undefined);
  const embed = await t.request('GET', `/core/v2/media/${id}?context=embed`);
  assert.equal(Object.keys(embed.body).sort(), [
    '_links',
    'alt_text',
    'author',
    'caption',
    'date',
    'featured_media',
    'id',
    'link',
    'media_details',
    'media_type',
    'mime_type',
    'slug',
    'source_url',
    'title',
    'type',
  ]);
  const editAnonymous = await t.request('GET', `/core/v2/media/${id}?context=edit`);
  assert.equal([editAnonymous.status, editAnonymous.body.code], [401, 'rest_forbidden_context']);
  const missing = await t.request('GET', '/core/v2/media/999999');
  assert.equal([missing.status, missing.body.code], [404, 'rest_post_invalid_id']);
});

test('reading an attached item follows its parent; lists skip what the caller cannot read', async () => {
  const draft = (
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Parent draft', status: 'draft' } })
  ).body;
  const id = (await upload(jpeg, 'attached.jpg', 'image/jpeg', admin, `?post=${draft.id}`)).body.id;
  assert.is((await t.request('GET', `/core/v2/media/${id}`)).status, 401);
  assert.is((await t.request('GET', `/core/v2/media/${id}`, { as: admin })).body.post, draft.id);
  const anonymousList = await t.request('GET', `/core/v2/media?parent=${draft.id}`);
  assert.equal(anonymousList.body, []);
  assert.is(anonymousList.headers.get('x-wp-total'), '1');
  const adminList = await t.request('GET', `/core/v2/media?parent=${draft.id}`, { as: admin });
  assert.equal(
    adminList.body.map((item: { id: number }) => item.id),
    [id],
  );
});

test('list filters: media_type, mime_type, search by file name, status rules, not batchable', async () => {
  const text = (await upload(Buffer.from('plain words'), 'findable-name.txt', 'text/plain')).body.id;
  const images = await t.request('GET', '/core/v2/media?media_type=image&per_page=100');
  assert.ok(images.body.length > 0 && images.body.every((item: { media_type: string }) => item.media_type === 'image'));
  const texts = await t.request('GET', '/core/v2/media?mime_type=text/plain&per_page=100');
  assert.ok(texts.body.some((item: { id: number }) => item.id === text));
  assert.ok(texts.body.every((item: { mime_type: string }) => item.mime_type === 'text/plain'));
  const search = await t.request('GET', '/core/v2/media?search=findable-name');
  assert.equal(
    search.body.map((item: { id: number }) => item.id),
    [text],
  );
  const badType = await t.request('GET', '/core/v2/media?media_type=spreadsheet');
  assert.equal([badType.status, badType.body.code], [400, 'rest_invalid_param']);
  const privateAnonymous = await t.request('GET', '/core/v2/media?status=private');
  assert.equal(
    [privateAnonymous.status, privateAnonymous.body.data.details.status.code],
    [400, 'rest_forbidden_status'],
  );
  assert.is((await t.request('GET', '/core/v2/media?status=trash', { as: admin })).status, 200);
  assert.is((await t.request('GET', '/core/v2/media?status=publish')).status, 400);
  const index = await t.request('GET', '/core/v2');
  const route = index.body.routes['/core/v2/media'];
  assert.ok(route.endpoints.every((endpoint: Record<string, unknown>) => !('allow_batch' in endpoint)));
  const args = route.endpoints[0].args;
  for (const gone of ['categories', 'tags', 'sticky', 'tax_relation']) assert.not.ok(gone in args, gone);
  for (const present of ['parent', 'parent_exclude', 'media_type', 'mime_type']) assert.ok(present in args, present);
  assert.is(args.status.default, 'inherit');
});

test('update: the write fields, private status, slug; others cannot', async () => {
  const id = (await upload(jpeg, 'to-update.jpg', 'image/jpeg', author)).body.id;
  const response = await t.request('POST', `/core/v2/media/${id}`, {
    as: author,
    body: {
      title: 'Updated',
      caption: 'A caption',
      description: 'Words',
      alt_text: 'Alt',
      slug: 'new-slug',
      comment_status: 'closed',
    },
  });
  assert.is(response.status, 200);
  assert.equal(
    [
      response.body.title.raw,
      response.body.caption.raw,
      response.body.description.raw,
      response.body.alt_text,
      response.body.slug,
      response.body.comment_status,
    ],
    ['Updated', 'A caption', 'Words', 'Alt', 'new-slug', 'closed'],
  );
  assert.ok(response.body.caption.rendered.includes('A caption'));
  const published = await t.request('PATCH', `/core/v2/media/${id}`, { as: author, body: { status: 'publish' } });
  assert.is(published.body.status, 'inherit');
  const made = await t.request('PUT', `/core/v2/media/${id}`, { as: author, body: { status: 'private' } });
  assert.is(made.body.status, 'private');
  assert.is((await t.request('GET', `/core/v2/media/${id}`)).status, 401);
  const contributorEdit = await t.request('POST', `/core/v2/media/${id}`, { as: contributor, body: { title: 'x' } });
  assert.equal([contributorEdit.status, contributorEdit.body.code], [403, 'rest_cannot_edit']);
});

test('delete: without force 501, with force the item and its files are gone', async () => {
  const item = (await upload(jpeg, 'to-delete.jpg')).body;
  const trash = await t.request('DELETE', `/core/v2/media/${item.id}`, { as: admin });
  assert.equal([trash.status, trash.body.code], [501, 'rest_trash_not_supported']);
  const gone = await t.request('DELETE', `/core/v2/media/${item.id}?force=true`, { as: admin });
  assert.is(gone.status, 200);
  assert.is(gone.body.deleted, true);
  assert.is(gone.body.previous.id, item.id);
  assert.is((await t.request('GET', `/core/v2/media/${item.id}`)).status, 404);
  assert.is((await fetch(item.source_url.replace(t.site.settings.siteUrl, t.url))).status, 404);
  const reuse = (await upload(jpeg, 'to-delete.jpg')).body;
  assert.is(reuse.slug, 'to-delete');
});

test('post-process makes missing sizes; it needs the action and edit rights', async () => {
  const id = (await upload(jpeg, 'post-process.jpg')).body.id;
  const missing = await t.request('POST', `/core/v2/media/${id}/post-process`, { as: admin, body: {} });
  assert.equal([missing.status, missing.body.code], [400, 'rest_missing_callback_param']);
  const ok = await t.request('POST', `/core/v2/media/${id}/post-process`, {
    as: admin,
    body: { action: 'create-image-subsizes' },
  });
  assert.is(ok.status, 200);
  assert.equal(ok.body.missing_image_sizes, []);
  const refused = await t.request('POST', `/core/v2/media/${id}/post-process`, {
    as: author,
    body: { action: 'create-image-subsizes' },
  });
  assert.equal([refused.status, refused.body.code], [403, 'rest_cannot_edit']);
});

test('edit: rotate and crop make a new -edited attachment; errors as WordPress', async () => {
  const original = (await upload(await image(400, 200), 'to-edit.jpg')).body;
  const src = original.source_url;
  const rotated = await t.request('POST', `/core/v2/media/${original.id}/edit`, {
    as: admin,
    body: {
      src,
      modifiers: [
        { type: 'rotate', args: { angle: 90 } },
        { type: 'crop', args: { left: 0, top: 0, width: 50, height: 50 } },
      ],
    },
  });
  assert.is(rotated.status, 201);
  assert.is.not(rotated.body.id, original.id);
  assert.ok(rotated.body.media_details.file.endsWith('to-edit-edited.jpg'));
  assert.equal([rotated.body.media_details.width, rotated.body.media_details.height], [100, 200]);
  assert.equal(rotated.body.media_details.parent_image, {
    attachment_id: String(original.id),
    file: original.media_details.file,
  });
  assert.is(rotated.headers.get('location'), `${t.site.apiRoot}core/v2/media/${rotated.body.id}`);
  const again = await t.request('POST', `/core/v2/media/${rotated.body.id}/edit`, {
    as: admin,
    body: { src: rotated.body.source_url, rotation: 180 },
  });
  assert.is(again.status, 201);
  assert.not.ok(again.body.media_details.file.includes('-edited-edited'));
  const anonymous = await t.request('POST', `/core/v2/media/${original.id}/edit`, { body: { src, rotation: 90 } });
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_edit_image']);
  const contributorEdit = await t.request('POST', `/core/v2/media/${original.id}/edit`, {
    as: contributor,
    body: { src, rotation: 90 },
  });
  assert.equal([contributorEdit.status, contributorEdit.body.code], [403, 'rest_cannot_edit_image']);
  const authorEdit = await t.request('POST', `/core/v2/media/${original.id}/edit`, {
    as: author,
    body: { src, rotation: 90 },
  });
  assert.equal([authorEdit.status, authorEdit.body.code], [403, 'rest_cannot_edit']);
  const wrongSrc = await t.request('POST', `/core/v2/media/${original.id}/edit`, {
    as: admin,
    body: { src: 'http://example.test/other.jpg', rotation: 90 },
  });
  assert.equal([wrongSrc.status, wrongSrc.body.code], [404, 'rest_unknown_attachment']);
  const notEdited = await t.request('POST', `/core/v2/media/${original.id}/edit`, { as: admin, body: { src } });
  assert.equal([notEdited.status, notEdited.body.code], [400, 'rest_image_not_edited']);
  const badRotation = await t.request('POST', `/core/v2/media/${original.id}/edit`, {
    as: admin,
    body: { src, rotation: 360 },
  });
  assert.equal([badRotation.status, badRotation.body.code], [400, 'rest_invalid_param']);
  const noModifiers = await t.request('POST', `/core/v2/media/${original.id}/edit`, {
    as: admin,
    body: { src, modifiers: [] },
  });
  assert.equal([noModifiers.status, noModifiers.body.code], [400, 'rest_invalid_param']);
  const textFile = (await upload(Buffer.from('x'), 'plain.txt', 'text/plain')).body;
  const notImage = await t.request('POST', `/core/v2/media/${textFile.id}/edit`, {
    as: admin,
    body: { src: textFile.source_url, rotation: 90 },
  });
  assert.equal([notImage.status, notImage.body.code], [404, 'rest_unknown_attachment']);
});

test("history lists the attachment's events with diffs, for those who may edit it", async () => {
  const id = (await upload(jpeg, 'history.jpg', 'image/jpeg', author)).body.id;
  await t.request('POST', `/core/v2/media/${id}`, { as: author, body: { alt_text: 'Now described' } });
  const history = await t.request('GET', `/core/v2/media/${id}/history`, { as: author });
  assert.is(history.status, 200);
  assert.equal(
    history.body.map((entry: { type: string }) => entry.type),
    ['AttachmentCreated', 'AttachmentUpdated'],
  );
  assert.equal(history.body[1].diff.alt_text, { from: '', to: 'Now described' });
  assert.is(history.body[0].user, author.id);
  const anonymous = await t.request('GET', `/core/v2/media/${id}/history`);
  assert.equal([anonymous.status, anonymous.body.code], [401, 'rest_cannot_read']);
});

test.run();
