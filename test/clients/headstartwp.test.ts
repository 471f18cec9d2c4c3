/**
 * 10up's headless front-end data source, unchanged, against palimpsest alone on loopback: `@headstartwp/core` with
 * its `sourceUrl` set to the site URL (setHeadstartWPConfig, as a Next.js front end's headless.config.js does) and
 * without the Headless WordPress plug-in, so it resolves term and author slugs to ids itself. Its framework-agnostic
 * fetch functions (the ones its React hooks and server components call) run in node: a post by slug and by path
 * (it checks the path against the post's `link`), the posts archive with paging (X-WP-Total, X-WP-TotalPages),
 * category and tag archives (a term lookup by slug, then the posts of its id), author archives (a user lookup by
 * slug), its native search (`/wp/v2/search`), pages and child pages, `_embed`ded authors, terms and featured
 * media, the terms list, previews with a token the site does not know, sites behind HTTP Basic, its app
 * settings, which need the plug-in's route, and a source URL configured with a trailing slash.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import {
  EndpointError,
  NotFoundError,
  fetchAppSettings,
  fetchAuthorArchive,
  fetchPost,
  fetchPosts,
  fetchSearch,
  fetchTerms,
  setHeadstartWPConfig,
} from '@headstartwp/core';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const client = suite('@headstartwp/core, unchanged');
let t: TestSite;
let admin: TestUser;
let ada: TestUser;
/** Every URL the client asked for, in order. */
const asked: string[] = [];
const nodeFetch = globalThis.fetch;

interface Seeded {
  news: number;
  front: number;
  cover: number;
  /** Published posts by slug, oldest first. */
  posts: Map<string, number>;
  draft: number;
  about: number;
  team: number;
}
let seeded: Seeded;

async function created(path: string, body: unknown, as: TestUser = admin): Promise<any> {
  const response = await t.request('POST', path, { as, body });
  assert.is(response.status, 201, response.text);
  return response.body;
}

/** What the client throws, or a failure when it does not. */
async function rejection(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the client to throw');
}

/** The URLs asked for while `run` ran, without the site's origin. */
async function askedDuring(run: () => Promise<unknown>): Promise<string[]> {
  const from = asked.length;
  await run();
  return asked.slice(from).map((url) => url.slice(t.url.length));
}

client.before(async () => {
  t = await startTestSite({ apiDialect: 'wordpress' });
  admin = await t.createUser('editor', 'administrator');
  ada = await t.createUser('ada', 'author');
  const quiet = await t.createUser('quiet', 'author');
  const named = await t.request('PUT', `/core/v2/users/${ada.id}`, {
    as: admin,
    body: { name: 'Ada Lovelace', description: 'Writes about engines.' },
  });
  assert.is(named.status, 200, named.text);

  const news = await created('/core/v2/categories', { name: 'Engine News', slug: 'engine-news' });
  const front = await created('/core/v2/tags', { name: 'Front Page', slug: 'front-page' });
  const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 200, g: 10, b: 10 } } })
    .png()
    .toBuffer();
  const upload = await t.request('POST', '/core/v2/media', {
    as: admin,
    raw: { data: png, type: 'image/png' },
    headers: { 'content-disposition': 'attachment; filename=cover.png' },
  });
  assert.is(upload.status, 201, upload.text);
  await t.request('POST', `/core/v2/media/${upload.body.id}`, { as: admin, body: { alt_text: 'A red cover' } });

  const posts = new Map<string, number>();
  // Five by the administrator in Engine News (the odd ones also tagged), one by Ada; dated before the site's clock.
  for (let i = 1; i <= 5; i++) {
    const post = await created('/core/v2/posts', {
      title: `Engine note ${i}`,
      slug: `engine-note-${i}`,
      status: 'publish',
      date: `2024-01-${10 + i}T09:00:00`,
      content: `<p>Note ${i} on the analytical engine.</p>`,
      categories: [news.id],
      tags: i % 2 === 1 ? [front.id] : [],
      featured_media: i === 1 ? upload.body.id : 0,
    });
    posts.set(post.slug, post.id);
  }
  const byAda = await created(
    '/core/v2/posts',
    {
      title: 'Ada’s engine',
      slug: 'adas-engine',
      status: 'publish',
      date: '2024-04-25T09:00:00',
      content: '<p>The engine weaves algebraic patterns.</p>',
    },
    ada,
  );
  posts.set(byAda.slug, byAda.id);
  const draft = await created('/core/v2/posts', {
    title: 'Unfinished engine',
    slug: 'unfinished-engine',
    status: 'draft',
    categories: [news.id],
  });
  // An author whose only post is a draft: WordPress lists no such user to the public.
  await created('/core/v2/posts', { title: 'Quiet engine', status: 'draft' }, quiet);
  const about = await created('/core/v2/pages', {
    title: 'About the engine',
    slug: 'about',
    status: 'publish',
    content: '<p>About us.</p>',
  });
  const team = await created('/core/v2/pages', {
    title: 'The team',
    slug: 'team',
    status: 'publish',
    parent: about.id,
    content: '<p>Who we are.</p>',
  });
  seeded = {
    news: news.id,
    front: front.id,
    cover: upload.body.id,
    posts,
    draft: draft.id,
    about: about.id,
    team: team.id,
  };

  // headstartwp calls the global fetch: node's own, wrapped to record what it asked for.
  globalThis.fetch = (url: string | URL | Request, init?: RequestInit) => {
    asked.push(String(url));
    return nodeFetch(url, init);
  };
  setHeadstartWPConfig({ sourceUrl: t.url, useWordPressPlugin: false });
});

client.after(async () => {
  globalThis.fetch = nodeFetch;
  delete process.env.WP_BASIC_AUTH_USERNAME;
  delete process.env.WP_BASIC_AUTH_PASSWORD;
  await t.close();
});

client('a post by slug, with its author, terms and featured image embedded', async () => {
  let post: any;
  const urls = await askedDuring(
    async () =>
      ({
        data: { post },
      } = await fetchPost({ params: { slug: 'engine-note-1' } })),
  );
  assert.equal(urls, ['/wp-json/wp/v2/posts?slug=engine-note-1&_embed=true']);
  assert.is(post.id, seeded.posts.get('engine-note-1'));
  assert.is(post.title.rendered, 'Engine note 1');
  assert.is(post.content.rendered.trim(), '<p>Note 1 on the analytical engine.</p>');
  assert.is(post.link, `${t.url}/engine-note-1/`);
  // The author and terms it lifts out of `_embedded`.
  assert.is(post.author.length, 1);
  assert.is(post.author[0].id, admin.id);
  assert.is(post.author[0].slug, 'editor');
  assert.is(post.author[0].link, `${t.url}/author/editor/`);
  assert.equal(
    post.terms.category.map((term: any) => [term.id, term.name, term.link]),
    [[seeded.news, 'Engine News', `${t.url}/category/engine-news/`]],
  );
  assert.equal(
    post.terms.post_tag.map((term: any) => term.slug),
    ['front-page'],
  );
  const [cover] = post._embedded['wp:featuredmedia'];
  assert.is(cover.id, seeded.cover);
  assert.is(cover.alt_text, 'A red cover');
  assert.is(cover.media_details.width, 400);
  assert.is(cover.media_details.sizes.medium.width, 300);
  // The image a front end would put in its page is there at the URL the site gave.
  for (const url of [cover.source_url, cover.media_details.sizes.medium.source_url]) {
    const image = await nodeFetch(url);
    assert.is(image.status, 200, url);
    assert.is(image.headers.get('content-type'), 'image/png');
    const { width } = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    assert.is(width, url === cover.source_url ? 400 : 300);
  }
});

client('a post by path: found where its link says, not found under another path', async () => {
  const { data } = await fetchPost({ path: '/engine-note-2' });
  assert.is(data.post.id, seeded.posts.get('engine-note-2'));
  assert.is(data.post.terms.post_tag, undefined);
  // The slug exists, but the post's link is not /2024/01/12/engine-note-2: a front end answers 404 there.
  const elsewhere = await rejection(() => fetchPost({ path: '/2024/01/12/engine-note-2' }));
  assert.instance(elsewhere, NotFoundError);
  assert.match(elsewhere.message, 'did not match current path');
});

client('a missing post, a draft, and a draft by id are not found or refused', async () => {
  assert.instance(await rejection(() => fetchPost({ params: { slug: 'no-such-engine' } })), NotFoundError);
  assert.instance(await rejection(() => fetchPost({ params: { slug: 'unfinished-engine' } })), NotFoundError);
  const byId = await rejection(() => fetchPost({ params: { id: seeded.draft } }));
  assert.instance(byId, EndpointError);
  assert.is(byId.message, 'Sorry, you are not allowed to do that.');
});

client('the posts archive pages through X-WP-Total and X-WP-TotalPages', async () => {
  const first = await fetchPosts({ params: { per_page: 4 } });
  assert.equal(first.data.pageInfo, { totalPages: 2, totalItems: 6, page: 1 });
  assert.equal(
    first.data.posts.map((post: any) => post.slug),
    ['adas-engine', 'engine-note-5', 'engine-note-4', 'engine-note-3'],
  );
  assert.ok(first.pageType.isPostArchive);
  const second = await fetchPosts({ path: '/page/2', params: { per_page: 4 } });
  assert.equal(second.data.pageInfo, { totalPages: 2, totalItems: 6, page: 2 });
  assert.equal(
    second.data.posts.map((post: any) => post.slug),
    ['engine-note-2', 'engine-note-1'],
  );
  // Every post carries its author, whoever wrote it.
  assert.equal(
    first.data.posts.map((post: any) => post.author[0].slug),
    ['ada', 'editor', 'editor', 'editor'],
  );
  // Past the last page WordPress answers 400 rest_post_invalid_page_number, which the client turns into not found.
  assert.instance(await rejection(() => fetchPosts({ path: '/page/3', params: { per_page: 4 } })), NotFoundError);
});

client('a category archive: the term looked up by slug, then its posts by id, paged', async () => {
  let archive: any;
  const urls = await askedDuring(
    async () => (archive = await fetchPosts({ path: '/category/engine-news/page/2', params: { per_page: 2 } })),
  );
  assert.equal(urls, [
    '/wp-json/wp/v2/categories?slug=engine-news',
    `/wp-json/wp/v2/posts?page=2&per_page=2&_embed=true&categories=${seeded.news}`,
  ]);
  // Five published posts in the category; the draft is not counted.
  assert.equal(archive.data.pageInfo, { totalPages: 3, totalItems: 5, page: 2 });
  assert.equal(
    archive.data.posts.map((post: any) => post.slug),
    ['engine-note-3', 'engine-note-2'],
  );
  assert.is(archive.data.queriedObject.term.name, 'Engine News');
  assert.ok(archive.pageType.isCategoryArchive);
  // With matchArchivePath the term's link must be the archive's path: it is.
  const matched = await fetchPosts({ path: '/category/engine-news', params: { matchArchivePath: true } });
  assert.is(matched.data.posts.length, 5);
  const unknown = await rejection(() => fetchPosts({ path: '/category/steam-news' }));
  assert.instance(unknown, NotFoundError);
  assert.match(unknown.message, 'Term "steam-news" from "category" has not been found');
});

client('a tag archive', async () => {
  const archive = await fetchPosts({ path: '/tag/front-page' });
  assert.equal(
    archive.data.posts.map((post: any) => post.slug),
    ['engine-note-5', 'engine-note-3', 'engine-note-1'],
  );
  assert.equal(archive.data.pageInfo, { totalPages: 1, totalItems: 3, page: 1 });
  assert.is(archive.data.queriedObject.term?.slug, 'front-page');
  assert.ok(archive.pageType.isTagArchive);
});

client('an author archive: the author looked up by slug, then their posts', async () => {
  let archive: any;
  const urls = await askedDuring(async () => (archive = await fetchAuthorArchive({ path: '/ada' })));
  assert.equal(urls, ['/wp-json/wp/v2/users?slug=ada', `/wp-json/wp/v2/posts?_embed=true&author=${ada.id}`]);
  assert.equal(
    archive.data.posts.map((post: any) => post.slug),
    ['adas-engine'],
  );
  assert.is(archive.data.queriedObject.author.name, 'Ada Lovelace');
  assert.is(archive.data.queriedObject.author.description, 'Writes about engines.');
  const paged = await fetchAuthorArchive({ path: '/editor/page/2', params: { per_page: 3 } });
  assert.equal(
    paged.data.posts.map((post: any) => post.slug),
    ['engine-note-2', 'engine-note-1'],
  );
  assert.equal(paged.data.pageInfo, { totalPages: 2, totalItems: 5, page: 2 });
  // The same archive through the posts matcher (/author/…).
  assert.equal(
    (await fetchPosts({ path: '/author/ada' })).data.posts.map((post: any) => post.slug),
    ['adas-engine'],
  );
  // Unknown, and known but with nothing published (WordPress hides such users from the public): not found alike.
  for (const slug of ['nobody', 'quiet']) {
    const missing = await rejection(() => fetchAuthorArchive({ path: `/${slug}` }));
    assert.instance(missing, NotFoundError, slug);
    assert.is(missing.message, `Author "${slug}" not found`);
  }
});

client('native search through /wp/v2/search, with its paging and embedded items', async () => {
  let search: any;
  const urls = await askedDuring(
    async () => (search = await fetchSearch({ path: '/engine', params: { per_page: 4 } })),
  );
  assert.equal(urls, ['/wp-json/wp/v2/search?search=engine&per_page=4&_embed=true']);
  // Six posts and a page have it in their titles; the newest first.
  assert.equal(search.data.pageInfo, { totalPages: 2, totalItems: 7, page: 1 });
  assert.equal(
    search.data.searchResults.map((result: any) => [result.title, result.subtype, result.url]),
    [
      ['About the engine', 'page', `${t.url}/about/`],
      ['Ada’s engine', 'post', `${t.url}/adas-engine/`],
      ['Engine note 5', 'post', `${t.url}/engine-note-5/`],
      ['Engine note 4', 'post', `${t.url}/engine-note-4/`],
    ],
  );
  // Each result embeds the item it names.
  assert.equal(
    search.data.searchResults.map((result: any) => result._embedded.self[0].id),
    [seeded.about, ...['adas-engine', 'engine-note-5', 'engine-note-4'].map((slug) => seeded.posts.get(slug))],
  );
  assert.is(search.data.queriedObject.search.searchedValue, 'engine');
  const second = await fetchSearch({ path: '/engine/page/2', params: { per_page: 4 } });
  assert.equal(
    second.data.searchResults.map((result: any) => result.title),
    ['Engine note 3', 'Engine note 2', 'Engine note 1'],
  );
  const pages = await fetchSearch({ params: { search: 'engine', subtype: ['page'] } });
  assert.equal(
    pages.data.searchResults.map((result: any) => [result.title, result.subtype]),
    [['About the engine', 'page']],
  );
  // Nothing found is an empty result, not an error.
  const none = await fetchSearch({ params: { search: 'difference' } });
  assert.equal([none.data.searchResults.length, none.data.pageInfo.totalItems], [0, 0]);
});

client('pages: by slug, a child page by its path, and a path tried as a post then a page', async () => {
  const about = await fetchPost({ params: { slug: 'about', postType: 'page' } });
  assert.is(about.data.post.id, seeded.about);
  assert.is(about.data.post.type, 'page');
  const team = await fetchPost({ path: '/about/team', params: { postType: 'page' } });
  assert.is(team.data.post.id, seeded.team);
  assert.is(team.data.post.link, `${t.url}/about/team/`);
  // The parent page is embedded as `up`.
  assert.is((team.data.post._embedded as unknown as { up: { id: number }[] }).up[0]!.id, seeded.about);
  let either: any;
  const urls = await askedDuring(
    async () => (either = await fetchPost({ path: '/about', params: { postType: ['post', 'page'] } })),
  );
  assert.equal(urls, ['/wp-json/wp/v2/posts?slug=about&_embed=true', '/wp-json/wp/v2/pages?slug=about&_embed=true']);
  assert.is(either.data.post.id, seeded.about);
  // The pages archive.
  const archive = await fetchPosts({ params: { postType: 'page', orderby: 'title', order: 'asc' } });
  assert.equal(
    archive.data.posts.map((page: any) => page.slug),
    ['about', 'team'],
  );
  assert.ok(archive.pageType.isPostTypeArchive);
});

client('the terms list, with counts of published posts', async () => {
  const categories = await fetchTerms({ params: { taxonomy: 'category', slug: 'engine-news' } });
  assert.equal(
    categories.data.terms.map((term: any) => [term.id, term.name, term.count]),
    [[seeded.news, 'Engine News', 5]],
  );
  const tags = await fetchTerms({ params: { taxonomy: 'post_tag' } });
  assert.equal(
    tags.data.terms.map((term: any) => [term.slug, term.count]),
    [['front-page', 3]],
  );
});

client('a preview token the site does not know reads as anonymous; app settings need the plug-in', async () => {
  const preview = await fetchPost({ params: { id: seeded.posts.get('engine-note-2'), authToken: 'not-a-token' } });
  assert.is(preview.data.post.slug, 'engine-note-2');
  const draft = await rejection(() =>
    fetchPost({ params: { id: seeded.draft, authToken: 'not-a-token', revision: true } }),
  );
  assert.instance(draft, EndpointError);
  // The Headless WordPress plug-in's route is not there: the client says so with WordPress's message.
  let settings: Error | undefined;
  const urls = await askedDuring(async () => (settings = await rejection(() => fetchAppSettings())));
  assert.equal(urls, ['/wp-json/headless-wp/v1/app']);
  assert.instance(settings, EndpointError);
  assert.is(settings!.message, 'No route was found matching the URL and request method.');
});

client('behind HTTP Basic with an application password it reads drafts; a wrong one is refused', async () => {
  process.env.WP_BASIC_AUTH_USERNAME = admin.login;
  process.env.WP_BASIC_AUTH_PASSWORD = admin.password;
  try {
    const draft = await fetchPost({ params: { id: seeded.draft } });
    assert.equal([draft.data.post.slug, draft.data.post.status], ['unfinished-engine', 'draft']);
    const drafts = await fetchPosts({ params: { status: 'draft', author: admin.id } });
    assert.equal(
      drafts.data.posts.map((post: any) => post.slug),
      ['unfinished-engine'],
    );
    // Deliberately unlike WordPress 6.1, which reads a wrong password as anonymous (docs/compatibility.md).
    process.env.WP_BASIC_AUTH_PASSWORD = 'not the password';
    const refused = await rejection(() => fetchPost({ params: { slug: 'engine-note-1' } }));
    assert.instance(refused, EndpointError);
    assert.is(refused.message, 'The provided password is an invalid application password.');
  } finally {
    delete process.env.WP_BASIC_AUTH_USERNAME;
    delete process.env.WP_BASIC_AUTH_PASSWORD;
  }
});

client('every request it made went to the site under /wp-json/', () => {
  assert.ok(asked.length > 20);
  for (const url of asked) assert.ok(url.startsWith(`${t.url}/wp-json/`), url);
});

client('a source URL configured with a trailing slash works as it does with WordPress', async () => {
  setHeadstartWPConfig({ sourceUrl: `${t.url}/`, useWordPressPlugin: false });
  try {
    let post: any;
    const urls = await askedDuring(
      async () =>
        ({
          data: { post },
        } = await fetchPost({ path: '/engine-note-3' })),
    );
    // The client joins the two with a doubled slash; WordPress trims it, and so does the site.
    assert.equal(urls, ['//wp-json/wp/v2/posts?slug=engine-note-3&_embed=true']);
    assert.is(post.id, seeded.posts.get('engine-note-3'));
    const archive = await fetchAuthorArchive({ path: '/ada' });
    assert.equal(
      archive.data.posts.map((item: any) => item.slug),
      ['adas-engine'],
    );
  } finally {
    setHeadstartWPConfig({ sourceUrl: t.url, useWordPressPlugin: false });
  }
});

client.run();
