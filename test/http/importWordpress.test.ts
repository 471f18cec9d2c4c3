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

async function withSites<T>(
  run: (wp: StandIn, site: TestSite) => Promise<T>,
  options: { store?: EventStore; maxPerPage?: number; content?: ReturnType<typeof standInContent> } = {},
): Promise<T> {
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
    assert.equal(
      report.missingFiles.map((entry) => entry.id),
      [11],
    );
    assert.ok(
      lines.some((line) => /^reading http:\/\/127\.0\.0\.1:\d+ \("Old Site"\) as admin$/.test(line)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((line) => line.startsWith('post 20: 20,')),
      lines.join('\n'),
    );

    const as = await admin(site);
    const revisions = await site.request('GET', '/wp-json/wp/v2/posts/20/revisions?context=edit', { as });
    assert.is(revisions.status, 200, revisions.text);
    const saved = revisions.body.filter((revision: any) => !revision.slug.includes('autosave'));
    assert.equal(
      saved.map((revision: any) => [
        revision.id,
        revision.author,
        revision.date_gmt,
        revision.title.raw,
        revision.excerpt.raw,
      ]),
      [
        [23, 1, '2026-01-07T09:00:00', 'Edited three times, finally', 'Third.'],
        [22, 2, '2026-01-06T08:00:00', 'Edited three times', 'Second.'],
        [21, 3, '2026-01-05T10:00:00', 'Edited three times', ''],
      ],
    );
    const autosaves = await site.request('GET', '/wp-json/wp/v2/posts/20/autosaves?context=edit', { as });
    assert.equal(
      autosaves.body.map((autosave: any) => [autosave.id, autosave.author, autosave.content.raw]),
      [[24, 2, '<p>An autosave of Edna.</p>']],
    );

    const post = await site.request('GET', '/wp-json/wp/v2/posts/20?context=edit', { as });
    assert.is(post.body.title.raw, 'Edited three times, finally');
    assert.is(post.body.content.raw, standInContent().items[0]!.content);
    assert.equal(
      [post.body.author, post.body.date_gmt, post.body.modified_gmt, post.body.featured_media],
      [3, '2026-01-05T10:00:00', '2026-01-07T09:00:00', 10],
    );
    assert.equal(
      [post.body.categories, post.body.tags, post.body.slug, post.body.status],
      [[4], [5, 6], 'edited-three-times', 'publish'],
    );

    const history = await site.request('GET', '/core/v2/posts/20/history?per_page=100', { as });
    assert.is(history.status, 200, history.text);
    assert.equal(
      history.body.map((entry: any) => [
        entry.type,
        entry.time,
        entry.user,
        entry.revision_id ?? entry.autosave_id ?? null,
      ]),
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
    assert.equal(created!.metadata.imported, {
      format: 'wordpress',
      source: wp.url,
      sourceId: 'post-20',
      originalAt: '2026-01-05T10:00:00.000Z',
      importedAt: new Date(NOW).toISOString(),
    });

    const asOf = await site.request('GET', '/wp-json/wp/v2/posts/20?context=edit&as_of=2026-01-06T12:00:00Z', { as });
    assert.is(asOf.status, 200, asOf.text);
    assert.equal(
      [asOf.body.content.raw, asOf.body.excerpt.raw, asOf.body.modified_gmt],
      [standInContent().items[0]!.revisions[1]!.content, 'Second.', '2026-01-06T08:00:00'],
    );
    const before = await site.request('GET', '/wp-json/wp/v2/posts/20?as_of=2026-01-04T00:00:00Z', { as });
    assert.is(before.status, 404);

    // The page's parent, the nested categories, the users, the image and the draft.
    const team = await site.request('GET', '/wp-json/wp/v2/pages/32?context=edit', { as });
    assert.equal(
      [team.body.parent, team.body.link.endsWith('/about/team/'), team.body.modified_gmt],
      [30, true, '2026-01-04T12:00:00'],
    );
    const sport = await site.request('GET', '/wp-json/wp/v2/categories/4');
    const local = await site.request('GET', '/wp-json/wp/v2/categories/3');
    assert.equal([sport.body.parent, local.body.parent, sport.body.description], [3, 2, 'Games.']);
    const tag = await site.request('GET', '/wp-json/wp/v2/tags/6');
    assert.is(tag.body.name, 'Beta &amp; more');
    const edna = await site.request('GET', '/wp-json/wp/v2/users/2?context=edit', { as });
    assert.equal(
      [edna.body.username, edna.body.name, edna.body.roles, edna.body.registered_date],
      ['edna', 'Edna Editor', ['editor'], '2025-12-02T08:00:00+00:00'],
    );
    const image = await site.request('GET', '/wp-json/wp/v2/media/10?context=edit', { as });
    assert.equal(
      [
        image.body.post,
        image.body.alt_text,
        image.body.caption.raw,
        image.body.author,
        image.body.date_gmt,
        image.body.mime_type,
      ],
      [20, 'A pixel', 'One pixel.', 3, '2026-01-05T09:00:00', 'image/png'],
    );
    const file = await site.request('GET', new URL(image.body.source_url).pathname);
    assert.is(file.status, 200);
    const draft = await site.request('GET', '/wp-json/wp/v2/posts/40?context=edit', { as });
    assert.equal(
      [draft.body.status, draft.body.author, draft.body.date, draft.body.modified_gmt],
      ['draft', 2, '2026-01-08T15:00:00', '2026-01-08T15:00:00'],
    );
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
      const dry = await importFrom(wp, site, { dryRun: true });
      // The attachment whose file was missing is still to create: a dry run fetches no file.
      assert.equal(
        [dry.counts.post, dry.counts.attachment, dry.counts.user.created],
        [{ created: 0, existing: 3, skipped: 0 }, { created: 1, existing: 1, skipped: 0 }, 0],
      );
    },
    { store },
  );
});

test('an import whose connection drops at page 2 stops naming it, with nothing written; run again, it completes', async () => {
  const store = createMemoryEventStore();
  await withSites(
    async (wp, site) => {
      const before = await lastPosition(store);
      let dropped = 0;
      wp.faults.push((request) =>
        request.startsWith('/wp-json/wp/v2/posts?') && request.includes('page=2') && dropped++ === 0
          ? { drop: true }
          : undefined,
      );
      const message = await refused(importFrom(wp, site));
      assert.match(message, /^posts, page 2: http:\/\/127\.0\.0\.1:\d+\/wp-json\/wp\/v2\/posts\?.*: /);
      assert.is(await lastPosition(store), before);
      const report = await importFrom(wp, site);
      assert.equal(report.counts.post, { created: 3, existing: 0, skipped: 0 });
      assert.ok(
        wp.requests.some((request) => request.startsWith('/wp-json/wp/v2/posts?') && request.includes('page=3')),
        'paged by X-WP-TotalPages',
      );
    },
    { store, maxPerPage: 1 },
  );
});

/** A memory store whose appends fail, once `failAt` is set, after that many more; counting them meanwhile. */
function faultyStore() {
  const base = createMemoryEventStore();
  const control = { appends: 0, failAt: Number.POSITIVE_INFINITY };
  const store: EventStore = Object.create(base);
  store.appendToStream = (...args) => {
    if (++control.appends > control.failAt) return Promise.reject(new Error('the event store went away'));
    return base.appendToStream(...args);
  };
  return { store, control };
}

test('an import stopped by the event store part-way, at any point, completes without duplicates when run again', async () => {
  // How many appends a whole import makes, so that the stops fall across all of it.
  const counting = faultyStore();
  let total = 0;
  await withSites(
    async (wp, site) => {
      counting.control.appends = 0;
      await importFrom(wp, site);
      total = counting.control.appends;
    },
    { store: counting.store },
  );
  assert.ok(total > 50, `${total} appends`);
  for (const failAt of [3, Math.floor(total / 4), Math.floor(total / 2), Math.floor((total * 3) / 4), total - 2]) {
    const { store, control } = faultyStore();
    const failing = (on: boolean) => {
      control.appends = 0;
      control.failAt = on ? failAt : Number.POSITIVE_INFINITY;
    };
    await withSites(
      async (wp, site) => {
        failing(true);
        await importFrom(wp, site).then(
          () => assert.unreachable(`the import stopped at append ${failAt}`),
          (error: Error) => assert.match(error.message, /the event store went away/),
        );
        failing(false);
        const report = await importFrom(wp, site);
        assert.equal(report.changedIds, [], `stopped at ${failAt}: ${JSON.stringify(report.changedIds)}`);
        const as = await admin(site);
        const history = await site.request('GET', '/core/v2/posts/20/history?per_page=100', { as });
        assert.equal(
          history.body.map((entry: any) => entry.type),
          [
            'PostCreated',
            'PostUpdated',
            'PostRevised',
            'PostUpdated',
            'PostRevised',
            'PostUpdated',
            'PostRevised',
            'PostAutosaved',
          ],
          `stopped at ${failAt}`,
        );
        const revisions = await site.request('GET', '/wp-json/wp/v2/pages/32/revisions', { as });
        assert.equal(
          revisions.body.map((revision: any) => revision.id),
          [34, 33],
          `stopped at ${failAt}`,
        );
        for (const kind of ['user', 'category', 'tag', 'page', 'post'] as const) {
          const listed = await site.request(
            'GET',
            `/wp-json/wp/v2/${kind === 'user' ? 'users' : kind === 'category' ? 'categories' : kind === 'tag' ? 'tags' : `${kind}s`}?per_page=100&context=edit&status=${kind === 'post' || kind === 'page' ? 'publish,draft' : ''}`.replace(
              /&status=$/,
              '',
            ),
            { as },
          );
          const ids = listed.body.map((item: any) => item.id);
          assert.is(new Set(ids).size, ids.length, `${kind}: no duplicates`);
        }
        const again = await importFrom(wp, site);
        assert.is(again.counts.post.created + again.counts.revision.created + again.counts.user.created, 0);
      },
      { store },
    );
  }
});

test('ids taken here: new ones, every reference rewritten, listed', async () => {
  await withSites(async (wp, site) => {
    const as = await admin(site);
    for (let n = 0; n < 3; n++)
      await site.request('POST', '/wp-json/wp/v2/pages', { as, body: { title: `Local ${n}`, status: 'publish' } });
    const report = await importFrom(wp, site);
    const changed = new Map(report.changedIds.map((change) => [`${change.kind} ${change.from}`, change.to]));
    // The test site's own users and first content ids are taken: the source's users 1 and those ids move.
    assert.ok(changed.has('user 1'), JSON.stringify(report.changedIds));
    assert.not.ok(changed.has('post 20'));
    const about = await site.request('GET', `/wp-json/wp/v2/pages/${changed.get('page 30') ?? 30}?context=edit`, {
      as,
    });
    assert.is(about.body.title.raw, 'About');
    const team = await site.request('GET', '/wp-json/wp/v2/pages/32?context=edit', { as });
    assert.is(team.body.parent, about.body.id);
    const post = await site.request('GET', '/wp-json/wp/v2/posts/42?context=edit', { as });
    assert.is(post.body.author, changed.get('user 1'));
    const revisions = await site.request('GET', '/wp-json/wp/v2/posts/20/revisions', { as });
    assert.ok(revisions.body.some((revision: any) => revision.author === changed.get('user 1')));
  });
});

test('--dry-run writes nothing and says what would be created', async () => {
  const store = createMemoryEventStore();
  await withSites(
    async (wp, site) => {
      const before = await lastPosition(store);
      const report = await importFrom(wp, site, { dryRun: true });
      assert.is(await lastPosition(store), before);
      assert.is(report.dryRun, true);
      assert.equal(report.counts.post, { created: 3, existing: 0, skipped: 0 });
      assert.equal(report.counts.revision.created, 7);
      assert.not.ok(
        wp.requests.some((request) => request.startsWith('/wp-content/')),
        'no file fetched',
      );
    },
    { store },
  );
});

test('a media file on a host other than the one given is not fetched: reported missing', async () => {
  const other = await startStandIn();
  try {
    await withSites(async (wp, site) => {
      // The image's source_url names another loopback port, which the operator did not give.
      wp.faults.push((request) =>
        request.startsWith('/wp-json/wp/v2/media?')
          ? { headers: { 'X-WP-Total': '1', 'X-WP-TotalPages': '1' }, body: JSON.stringify([mediaAnswer(other.url)]) }
          : undefined,
      );
      const report = await importFrom(wp, site);
      assert.equal(
        report.missingFiles.map((entry) => entry.id),
        [10],
      );
      assert.match(report.missingFiles[0]!.reason, /not a reachable destination/);
      assert.equal(other.requests, [], 'the other host was not asked');
      const as = await admin(site);
      const post = await site.request('GET', '/wp-json/wp/v2/posts/20?context=edit', { as });
      assert.is(post.body.featured_media, 0);
      assert.ok(report.skipped.some((entry) => entry.kind === 'featured image' && entry.id === 20));
    });
  } finally {
    await other.close();
  }
});

test('a media file of a type this site refuses leaves its attachment out, listed; the rest is imported', async () => {
  const content = standInContent();
  content.media.push({
    id: 12,
    title: 'script',
    slug: 'script',
    author: 1,
    post: null,
    date: '2026-01-05T09:20:00',
    file: '2026/01/script.php',
    alt: '',
    caption: '',
  });
  await withSites(
    async (wp, site) => {
      const report = await importFrom(wp, site);
      assert.equal(report.counts.attachment, { created: 1, existing: 0, skipped: 2 });
      const entry = report.skipped.find((skipped) => skipped.id === 12);
      assert.match(entry?.reason ?? '', /^refused here: rest_upload_/);
      assert.equal(report.counts.post.created, 3);
    },
    { content },
  );
});

/** The stand-in's image as its media collection answers it, with its file on `origin`. */
function mediaAnswer(origin: string) {
  const source = `${origin}/wp-content/uploads/2026/01/pixel.png`;
  return {
    id: 10,
    date: '2026-01-05T09:00:00',
    date_gmt: '2026-01-05T09:00:00',
    guid: { raw: source, rendered: source },
    modified: '2026-01-05T09:00:00',
    modified_gmt: '2026-01-05T09:00:00',
    slug: 'pixel',
    status: 'inherit',
    type: 'attachment',
    link: `${origin}/pixel/`,
    title: { raw: 'pixel', rendered: 'pixel' },
    author: 3,
    comment_status: 'open',
    ping_status: 'closed',
    template: '',
    meta: [],
    description: { raw: '', rendered: '' },
    caption: { raw: '', rendered: '' },
    alt_text: '',
    media_type: 'image',
    mime_type: 'image/png',
    media_details: {},
    post: 20,
    source_url: source,
    missing_image_sizes: [],
  };
}

const hostile: [string, (wp: StandIn) => void, RegExp][] = [
  [
    'a site that is not WordPress (HTML)',
    (wp) =>
      wp.faults.push((request) =>
        request.startsWith('/wp-json/?') || request === '/wp-json/'
          ? { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>Hello</html>' }
          : undefined,
      ),
    /the REST index: .* not JSON \(is http:\/\/127\.0\.0\.1:\d+ a WordPress site\?\)/,
  ],
  [
    'a REST API without wp/v2',
    (wp) =>
      wp.faults.push((request) =>
        request === '/wp-json/'
          ? { body: JSON.stringify({ name: 'x', url: 'x', namespaces: ['oembed/1.0'] }) }
          : undefined,
      ),
    /is not a WordPress REST API with wp\/v2 \(namespaces: oembed\/1\.0\)/,
  ],
  [
    'bad JSON in a collection',
    (wp) =>
      wp.faults.push((request) =>
        request.startsWith('/wp-json/wp/v2/tags?') ? { body: '[{"id": 5, "name": ' } : undefined,
      ),
    /^tags, page 1: .* not JSON/,
  ],
  [
    'a huge answer',
    (wp) =>
      wp.faults.push((request) =>
        request.startsWith('/wp-json/wp/v2/posts?') ? { body: `[${'"x",'.repeat(300_000)}"x"]` } : undefined,
      ),
    /^posts, page 1: .*answer larger than 1048576 bytes/,
  ],
  [
    'a field of the wrong type',
    (wp) => {
      (wp.content.items[0] as any).author = '3';
    },
    /^posts, page 1: post 20 is malformed: author must be integer/,
  ],
  [
    'a title that is not an object',
    (wp) => {
      wp.faults.push((request) =>
        request.startsWith('/wp-json/wp/v2/pages?')
          ? { headers: { 'X-WP-TotalPages': '1' }, body: JSON.stringify([{ id: 30, title: 'About' }]) }
          : undefined,
      );
    },
    /^pages, page 1: post 30 is malformed: /,
  ],
  [
    'an object where a list is expected',
    (wp) =>
      wp.faults.push((request) => (request.startsWith('/wp-json/wp/v2/users?') ? { body: '{"id":1}' } : undefined)),
    /^users, page 1: .* did not answer a list/,
  ],
  [
    'a page count that is not a number',
    (wp) =>
      wp.faults.push((request) =>
        request.startsWith('/wp-json/wp/v2/categories?')
          ? { headers: { 'X-WP-TotalPages': 'lots' }, body: '[]' }
          : undefined,
      ),
    /^categories: X-WP-TotalPages "lots" is not a number/,
  ],
  [
    'a date that is not a date',
    (wp) => {
      wp.content.items[0]!.revisions[1]!.date = 'yesterday';
    },
    /^revisions of post 20, page 1: revision 22 is malformed: date_gmt "yesterday" is not a date/,
  ],
  [
    'pages whose parents loop',
    (wp) => {
      wp.content.items[1]!.parent = 32;
    },
    /^page 30 "About": its parents loop \(30 -> 32 -> 30\)|^page 32 "Team": its parents loop/,
  ],
  [
    'categories whose parents loop',
    (wp) => {
      wp.content.categories[2]!.parent = 4;
    },
    /^category \d "\w+": its parents loop/,
  ],
  [
    'a parent that is not there',
    (wp) => {
      wp.content.items[2]!.parent = 99;
    },
    /^page 32 "Team": its parent 99 is not among what the site answered/,
  ],
  [
    'an author that is not there',
    (wp) => {
      wp.content.items[4]!.author = 77;
    },
    /^post 42 "Hello world!": its author 77 is not among the site's users/,
  ],
  [
    'an error answer',
    (wp) =>
      wp.faults.push((request) =>
        request.startsWith('/wp-json/wp/v2/media?')
          ? { status: 500, body: '{"code":"internal_server_error","message":"x","data":{"status":500}}' }
          : undefined,
      ),
    /^media, page 1: .* answered 500 \(internal_server_error\)/,
  ],
];

for (const [name, breakIt, expected] of hostile) {
  test(`refused with nothing written: ${name}`, async () => {
    const store = createMemoryEventStore();
    await withSites(
      async (wp, site) => {
        breakIt(wp);
        const before = await lastPosition(store);
        const message = await refused(importFrom(wp, site, { limits: { maxJsonBytes: 1024 * 1024 } }));
        assert.match(message, expected);
        assert.is(await lastPosition(store), before);
      },
      { store },
    );
  });
}

test('refused credentials, and a URL that is no site, are named', async () => {
  await withSites(async (wp, site) => {
    const message = await refused(importFrom(wp, site, { appPassword: 'wrong' }));
    assert.match(
      message,
      /^the signed-in user: .* answered 401 \(rest_not_logged_in\): the user name or application password was refused/,
    );
    assert.match(await refused(importFrom(wp, site, { url: 'ftp://example.org' })), /only http and https/);
    assert.match(await refused(importFrom(wp, site, { url: `http://admin:x@127.0.0.1:${wp.port}` })), /--user/);
  });
});

test.run();
