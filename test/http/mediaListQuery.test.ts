/**
 * The media list query on both read models: the same uploads on a site with the in-memory read model and on
 * one with Redis give the same ids in the same order for every query, and the expected ones.
 */
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';

const test = suite('media list query on both read models');
const backends: { t: TestSite; admin: TestUser; ids: Record<string, number>; cleanup(): Promise<void> }[] = [];

const UPLOADS = [
  { file: 'alpha-photo.jpg', type: 'image/jpeg', title: 'Sunset over water', date: '2024-01-10T10:00:00' },
  { file: 'beta-notes.txt', type: 'text/plain', title: 'Meeting notes', date: '2024-01-12T10:00:00' },
  { file: 'gamma-icon.png', type: 'image/png', title: 'Icon', date: '2024-01-15T10:00:00', attach: true },
  { file: 'delta-report.pdf', type: 'application/pdf', title: 'Annual report', date: '2024-01-16T10:00:00' },
];

test.before(async () => {
  const jpeg = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#123456' } })
    .jpeg()
    .toBuffer();
  const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#654321' } })
    .png()
    .toBuffer();
  const redis = testRedisReadModel();
  for (const [readModel, cleanup] of [
    [undefined, async () => undefined],
    [redis.readModel, redis.cleanup],
  ] as const) {
    const t = await startTestSite(readModel ? { readModel } : {});
    const admin = await t.createUser('admin', 'administrator');
    const parent = (
      await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Parent', status: 'publish' } })
    ).body.id;
    const ids: Record<string, number> = { parent };
    for (const upload of UPLOADS) {
      const data =
        upload.type === 'image/jpeg'
          ? jpeg
          : upload.type === 'image/png'
            ? png
            : Buffer.from(`contents of ${upload.file}`);
      const query = `?title=${encodeURIComponent(upload.title)}&date=${upload.date}${upload.attach ? `&post=${parent}` : ''}`;
      const response = await t.request('POST', `/core/v2/media${query}`, {
        as: admin,
        raw: { data, type: upload.type },
        headers: { 'content-disposition': `attachment; filename="${upload.file}"` },
      });
      assert.is(response.status, 201, JSON.stringify(response.body));
      ids[upload.file] = response.body.id;
    }
    backends.push({
      t,
      admin,
      ids,
      cleanup: async () => {
        await t.close();
        await cleanup();
      },
    });
  }
});
test.after(async () => {
  for (const backend of backends) await backend.cleanup();
});

const CASES: [string, string[]][] = [
  ['', ['delta-report.pdf', 'gamma-icon.png', 'beta-notes.txt', 'alpha-photo.jpg']],
  ['?media_type=image', ['gamma-icon.png', 'alpha-photo.jpg']],
  ['?media_type=application', ['delta-report.pdf']],
  ['?mime_type=text/plain', ['beta-notes.txt']],
  ['?parent={parent}', ['gamma-icon.png']],
  ['?parent_exclude={parent}&order=asc', ['alpha-photo.jpg', 'beta-notes.txt', 'delta-report.pdf']],
  ['?search=report', ['delta-report.pdf']],
  ['?search=alpha-photo', ['alpha-photo.jpg']],
  ['?orderby=title&order=asc', ['delta-report.pdf', 'gamma-icon.png', 'beta-notes.txt', 'alpha-photo.jpg']],
  ['?before=2024-01-14T00:00:00&after=2024-01-11T00:00:00', ['beta-notes.txt']],
  ['?per_page=2&page=2', ['beta-notes.txt', 'alpha-photo.jpg']],
];

for (const [query, expected] of CASES) {
  test(`GET /core/v2/media${query}`, async () => {
    const answers: string[][] = [];
    for (const { t, admin, ids } of backends) {
      const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
      const response = await t.request('GET', `/core/v2/media${query.replace('{parent}', String(ids.parent))}`, {
        as: admin,
      });
      assert.is(response.status, 200, JSON.stringify(response.body));
      answers.push(response.body.map((item: { id: number }) => byId.get(item.id)));
    }
    assert.equal(answers[0], expected, 'in-memory read model');
    assert.equal(answers[1], expected, 'Redis read model');
  });
}

test.run();
