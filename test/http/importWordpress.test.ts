/**
 * Live WordPress import: a stand-in WordPress 6.1 REST API on 127.0.0.1 (test/support/wordpressStandIn.ts) read
 * through the product's outbound client and imported with its history: revisions with their authors and dates in
 * `/revisions`, `/history` and `as_of`; a rerun changes nothing; a run stopped half-way (the connection dropped,
 * the event store failing) completes when run again; hostile answers give errors naming what was wrong.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { STAND_IN_LOGIN, STAND_IN_PASSWORD, standInContent, startStandIn } from '../support/wordpressStandIn';
import type { StandIn } from '../support/wordpressStandIn';
import { importWordPress, WordPressImportError } from '../../src/import/wordpress/import';
import type { LiveImportOptions, LiveImportReport } from '../../src/import/wordpress/import';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import type { EventStore } from '../../src/ports/eventStore';

const NOW = Date.parse('2026-11-01T00:00:00Z');

async function withSites<T>(run: (wp: StandIn, site: TestSite) => Promise<T>, options: { store?: EventStore; maxPerPage?: number; content?: ReturnType<typeof standInContent> } = {}): Promise<T> {
  const wp = await startStandIn({ maxPerPage: options.maxPerPage, content: options.content });
  const site = await startTestSite({ now: NOW, store: options.store });
  try {
    return await run(wp, site);
  } finally {
    await site.close();
    await wp.close();
  }
}

const importFrom = (wp: StandIn, site: TestSite, extra: Partial<LiveImportOptions> = {}): Promise<LiveImportReport> =>
  importWordPress(site.site, { url: wp.url, user: STAND_IN_LOGIN, appPassword: STAND_IN_PASSWORD, ...extra });

async function refused(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, WordPressImportError, String(error));
    return (error as Error).message;
  }
  assert.unreachable('the import was not refused');
  return '';
}

/** The last position of the log: what a run appended moves it. */
const lastPosition = (store: EventStore) => store.headPosition();

let adminCount = 0;
const admin = (site: TestSite): Promise<TestUser> => site.createUser(`reader-${++adminCount}`, 'administrator');

test('an item edited three times shows those revisions, authors and dates in /revisions, /history and as_of', async () => {
  await withSites(async (wp, site) => {
    const lines: string[] = [];
    const report = await importFrom(wp, site, { progress: (line) => lines.push(line) });
    assert.equal(report.changedIds, [], JSON.stringify(report.changedIds));
    assert.equal(report.counts.user, { created: 3, existing: 0, skipped: 0 });
    assert.equal(report.counts.category, { created: 3, existing: 1, skipped: 0 });
    assert.equal(report.counts.tag, { created: 2, existing: 0, skipped: 0 });
    assert.equal(report.counts.post, { created: 3, existing: 0, skipped: 0 });
    assert.equal(report.counts.page, { created: 2, existing: 0, skipped: 0 });
    assert.equal(report.counts.revision, { created: 7, existing: 0, skipped: 0 });
    assert.equal(report.counts.autosave, { created: 1, existing: 0, skipped: 0 });
    assert.equal(report.counts.attachment, { created: 1, existing: 0, skipped: 1 });
    assert.equal(report.missingFiles.map((entry) => entry.id), [11]);
    assert.ok(lines.some((line) => /^reading http:\/\/127\.0\.0\.1:\d+ \("Old Site"\) as admin$/.test(line)), lines.join('\n'));
    assert.ok(lines.some((line) => line.startsWith('post 20: 20,')), lines.join('\n'));

    const as = await admin(site);
    const revisions = await site.request('GET', '/wp-json/wp/v2/posts/20/revisions?context=edit', { as });
    assert.is(revisions.status, 200, revisions.text);
    const saved = revisions.body.filter((revision: any) => !revision.slug.includes('autosave'));
    assert.equal(
      saved.map((revision: any) => [revision.id, revision.author, revision.date_gmt, revision.title.raw, revision.excerpt.raw]),
      [
        [23, 1, '2026-01-07T09:00:00', 'Edited three times, finally', 'Third.'],
        [22, 2, '2026-01-06T08:00:00', 'Edited three times', 'Second.'],
        [21, 3, '2026-01-05T10:00:00', 'Edited three times', ''],
      ],
    );
    const autosaves = await site.request('GET', '/wp-json/wp/v2/posts/20/autosaves?context=edit', { as });
    assert.equal(autosaves.body.map((autosave: any) => [autosave.id, autosave.author, autosave.content.raw]), [[24, 2, '<p>An autosave of Edna.</p>']]);

    const post = await site.request('GET', '/wp-json/wp/v2/posts/20?context=edit', { as });
    assert.is(post.body.title.raw, 'Edited three times, finally');
    assert.is(post.body.content.raw, standInContent().items[0]!.content);
    assert.equal([post.body.author, post.body.date_gmt, post.body.modified_gmt, post.body.featured_media], [3, '2026-01-05T10:00:00', '2026-01-07T09:00:00', 10]);
    assert.equal([post.body.categories, post.body.tags, post.body.slug, post.body.status], [[4], [5, 6], 'edited-three-times', 'publish']);

    const history = await site.request('GET', '/core/v2/posts/20/history?per_page=100', { as });
    assert.is(history.status, 200, history.text);
    assert.equal(
      history.body.map((entry: any) => [entry.type, entry.time, entry.user, entry.revision_id ?? entry.autosave_id ?? null]),
      [
        ['PostCreated', '2026-01-05T10:00:00.000Z', 3, null],
        ['PostUpdated', '2026-01-05T10:00:00.000Z', 3, null],
        ['PostRevised', '2026-01-05T10:00:00.000Z', 3, 21],
        ['PostUpdated', '2026-01-06T08:00:00.000Z', 2, null],
        ['PostRevised', '2026-01-06T08:00:00.000Z', 2, 22],
        ['PostUpdated', '2026-01-07T09:00:00.000Z', 1, null],
        ['PostRevised', '2026-01-07T09:00:00.000Z', 1, 23],
        ['PostAutosaved', '2026-01-07T10:00:00.000Z', 2, 24],
      ],
    );
    const [created] = await site.site.store.readStream('content-20', { maxCount: 1 });
    assert.equal(created!.metadata.imported, { format: 'wordpress', source: wp.url, sourceId: 'post-20', originalAt: '2026-01-05T10:00:00.000Z', importedAt: new Date(NOW).toISOString() });

    const asOf = await site.request('GET', '/wp-json/wp/v2/posts/20?context=edit&as_of=2026-01-06T12:00:00Z', { as });
    assert.is(asOf.status, 200, asOf.text);
    assert.equal([asOf.body.content.raw, asOf.body.excerpt.raw, asOf.body.modified_gmt], [standInContent().items[0]!.revisions[1]!.content, 'Second.', '2026-01-06T08:00:00']);
    const before = await site.request('GET', '/wp-json/wp/v2/posts/20?as_of=2026-01-04T00:00:00Z', { as });
    assert.is(before.status, 404);

    // The page's parent, the nested categories, the users, the image and the draft.
    const team = await site.request('GET', '/wp-json/wp/v2/pages/32?context=edit', { as });
    assert.equal([team.body.parent, team.body.link.endsWith('/about/team/'), team.body.modified_gmt], [30, true, '2026-01-04T12:00:00']);
    const sport = await site.request('GET', '/wp-json/wp/v2/categories/4');
    const local = await site.request('GET', '/wp-json/wp/v2/categories/3');
    assert.equal([sport.body.parent, local.body.parent, sport.body.description], [3, 2, 'Games.']);
    const tag = await site.request('GET', '/wp-json/wp/v2/tags/6');
    assert.is(tag.body.name, 'Beta &amp; more');
    const edna = await site.request('GET', '/wp-json/wp/v2/users/2?context=edit', { as });
    assert.equal([edna.body.username, edna.body.name, edna.body.roles, edna.body.registered_date], ['edna', 'Edna Editor', ['editor'], '2025-12-02T08:00:00+00:00']);
    const image = await site.request('GET', '/wp-json/wp/v2/media/10?context=edit', { as });
    assert.equal([image.body.post, image.body.alt_text, image.body.caption.raw, image.body.author, image.body.date_gmt, image.body.mime_type], [20, 'A pixel', 'One pixel.', 3, '2026-01-05T09:00:00', 'image/png']);
    const file = await site.request('GET', new URL(image.body.source_url).pathname);
    assert.is(file.status, 200);
    const draft = await site.request('GET', '/wp-json/wp/v2/posts/40?context=edit', { as });
    assert.equal([draft.body.status, draft.body.author, draft.body.date, draft.body.modified_gmt], ['draft', 2, '2026-01-08T15:00:00', '2026-01-08T15:00:00']);
  });
});

test('a second run changes nothing: everything is already there, nothing appended', async () => {
  const store = createMemoryEventStore();
  await withSites(
    async (wp, site) => {
      await importFrom(wp, site);
      const after = await lastPosition(store);
      const again = await importFrom(wp, site);
      assert.is(await lastPosition(store), after);
      assert.equal(again.counts.post, { created: 0, existing: 3, skipped: 0 });
      assert.equal(again.counts.revision, { created: 0, existing: 7, skipped: 0 });
      assert.equal(again.counts.user.existing, 3);
      assert.equal(again.counts.attachment, { created: 0, existing: 1, skipped: 1 });
      assert.equal(again.changedIds, []);
    },
    { store },
  );
});

test.run();
