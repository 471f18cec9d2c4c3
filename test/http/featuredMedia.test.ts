/**
 * `featured_media` as the interface and WordPress 6.1 have it, on both read models: posts and pages keep an image
 * attachment, clear it for any other item that exists, and ignore an id that names nothing (no error, nothing
 * stored), on create and on update; attachments have the field on the first instance only, with the same rule; and
 * the second instance's index lists `src` alone for media edit while the route still validates the other args.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';

const NOTHING = 987_654_321;

interface Backend {
  kind: string;
  t: TestSite;
  admin: TestUser;
  image: number;
  pdf: number;
  cleanup(): Promise<void>;
}

const backends: Backend[] = [];

async function upload(t: TestSite, admin: TestUser, data: Buffer, type: string, name: string): Promise<number> {
  const response = await t.request('POST', '/core/v2/media', {
    as: admin,
    raw: { data, type },
    headers: { 'content-disposition': `attachment; filename=${name}` },
  });
  assert.is(response.status, 201, response.text);
  return response.body.id;
}

const test = suite('featured_media as WordPress keeps it, on both read models');

test.before(async () => {
  for (const kind of ['memory', 'redis'] as const) {
    const redis = kind === 'redis' ? testRedisReadModel() : null;
    const t = await startTestSite({ readModel: redis?.readModel });
    const admin = await t.createUser('admin', 'administrator');
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 9, g: 9, b: 9 } } })
      .png()
      .toBuffer();
    const image = await upload(t, admin, png, 'image/png', 'featured.png');
    const pdf = await upload(t, admin, Buffer.from('%PDF-1.4\n%%EOF\n'), 'application/pdf', 'notes.pdf');
    backends.push({
      kind,
      t,
      admin,
      image,
      pdf,
      cleanup: async () => {
        await t.close();
        await redis?.cleanup();
      },
    });
  }
});
test.after(async () => {
  for (const backend of backends) await backend.cleanup();
});

for (const type of ['posts', 'pages'] as const) {
  test(`${type}: an id that names nothing is ignored on create, with no error`, async () => {
    for (const { kind, t, admin } of backends) {
      const created = await t.request('POST', `/core/v2/${type}`, {
        as: admin,
        body: { title: 'x', featured_media: NOTHING },
      });
      assert.is(created.status, 201, `${kind}: ${created.text}`);
      assert.is(created.body.featured_media, 0, kind);
      const read = await t.request('GET', `/core/v2/${type}/${created.body.id}`, { as: admin });
      assert.is(read.body.featured_media, 0, kind);
    }
  });

  test(`${type}: an image is kept; an id of nothing then changes nothing; another item or 0 clears it`, async () => {
    for (const { kind, t, admin, image, pdf } of backends) {
      const created = await t.request('POST', `/core/v2/${type}`, {
        as: admin,
        body: { title: 'y', featured_media: image },
      });
      assert.is(created.body.featured_media, image, kind);
      const id = created.body.id;
      const update = async (featured_media: number) => {
        const response = await t.request('POST', `/core/v2/${type}/${id}`, { as: admin, body: { featured_media } });
        assert.is(response.status, 200, `${kind}: ${response.text}`);
        return response.body.featured_media;
      };
      assert.is(await update(NOTHING), image, `${kind}: an id of nothing keeps the image`);
      assert.is(await update(id), 0, `${kind}: a post is not an image`);
      assert.is(await update(image), image, kind);
      assert.is(await update(pdf), 0, `${kind}: an attachment that is not an image`);
      assert.is(await update(image), image, kind);
      assert.is(await update(0), 0, kind);
      assert.is(await update(-image), image, `${kind}: WordPress reads the id's absolute value`);
    }
  });
}

test('attachments have featured_media on the first instance, in every context, with the post rule', async () => {
  for (const { kind, t, admin, image, pdf } of backends) {
    for (const context of ['view', 'edit', 'embed']) {
      const read = await t.request('GET', `/core/v2/media/${pdf}?context=${context}`, { as: admin });
      assert.is(read.body.featured_media, 0, `${kind} ${context}`);
    }
    const keys = Object.keys((await t.request('GET', `/core/v2/media/${pdf}`, { as: admin })).body);
    assert.is(keys[keys.indexOf('author') + 1], 'featured_media', `${kind}: after author, as on posts`);
    const set = await t.request('POST', `/core/v2/media/${pdf}`, { as: admin, body: { featured_media: image } });
    assert.is(set.status, 200, set.text);
    assert.is(set.body.featured_media, image, kind);
    const ignored = await t.request('POST', `/core/v2/media/${pdf}`, { as: admin, body: { featured_media: NOTHING } });
    assert.is(ignored.body.featured_media, image, kind);
    const invalid = await t.request('POST', `/core/v2/media/${pdf}`, { as: admin, body: { featured_media: 'abc' } });
    assert.is(invalid.status, 400);
    assert.is(invalid.body.data.params.featured_media, 'featured_media is not of type integer.');
    const index = await t.request('GET', '/core/v2/media');
    assert.ok('featured_media' in index.body[0], kind);
    const schema = (await t.request('OPTIONS', '/core/v2/media')).body.schema.properties;
    assert.equal(schema.featured_media, {
      description: 'Identifier of the featured media item.',
      type: 'integer',
      context: ['view', 'edit', 'embed'],
    });
    const created = (await t.request('GET', '/')).body.routes['/core/v2/media'].endpoints[1].args;
    assert.is(created.featured_media.type, 'integer');
  }
});

test('the first instance lists every media edit arg', async () => {
  const t = backends[0]!.t;
  const listed = (await t.request('GET', '/')).body.routes['/core/v2/media/(?P<id>[\\d]+)/edit'].endpoints[0].args;
  assert.equal(Object.keys(listed), ['src', 'modifiers', 'rotation', 'x', 'y', 'width', 'height']);
});

const second = suite('the second instance: no featured_media on attachments; media edit lists src alone');
let t2: TestSite;
let admin2: TestUser;
let media2: number;

second.before(async () => {
  t2 = await startTestSite({ instance: 'second' });
  admin2 = await t2.createUser('admin', 'administrator');
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 1, g: 1, b: 1 } } })
    .png()
    .toBuffer();
  media2 = await upload(t2, admin2, png, 'image/png', 'b.png');
});
second.after(async () => t2.close());

second('attachments have no featured_media, and sending one stores nothing', async () => {
  for (const context of ['view', 'edit', 'embed']) {
    const read = await t2.request('GET', `/core/v2/media/${media2}?context=${context}`, { as: admin2 });
    assert.not.ok('featured_media' in read.body, context);
  }
  const sent = await t2.request('POST', `/core/v2/media/${media2}`, { as: admin2, body: { featured_media: media2 } });
  assert.is(sent.status, 200, sent.text);
  assert.not.ok('featured_media' in sent.body);
  const schema = (await t2.request('OPTIONS', '/core/v2/media')).body.schema.properties;
  assert.not.ok('featured_media' in schema);
});

second(
  'the index and OPTIONS list src alone for media edit; the deprecated args and modifiers are still validated',
  async () => {
    const route = '/core/v2/media/(?P<id>[\\d]+)/edit';
    const listed = (await t2.request('GET', '/')).body.routes[route].endpoints[0].args;
    assert.equal(Object.keys(listed), ['src']);
    const options = (await t2.request('OPTIONS', `/core/v2/media/${media2}/edit`, { as: admin2 })).body.endpoints[0]
      .args;
    assert.equal(Object.keys(options), ['src']);
    const src = (await t2.request('GET', `/core/v2/media/${media2}`)).body.source_url;
    const badRotation = await t2.request('POST', `/core/v2/media/${media2}/edit`, {
      as: admin2,
      body: { src, rotation: 400 },
    });
    assert.is(badRotation.status, 400);
    assert.is(badRotation.body.code, 'rest_invalid_param');
    assert.ok('rotation' in badRotation.body.data.params);
    const badModifiers = await t2.request('POST', `/core/v2/media/${media2}/edit`, {
      as: admin2,
      body: { src, modifiers: [] },
    });
    assert.is(badModifiers.status, 400);
    assert.ok('modifiers' in badModifiers.body.data.params);
    const rotated = await t2.request('POST', `/core/v2/media/${media2}/edit`, {
      as: admin2,
      body: { src, rotation: 90 },
    });
    assert.is(rotated.status, 201, rotated.text);
  },
);

test.run();
second.run();
