/**
 * A stand-in for a live WordPress 6.1 site's REST API, on 127.0.0.1 (an ephemeral port): it answers the routes
 * `palimpsest import wordpress` reads with items shaped as WordPress 6.1 answers them in `context=edit` (every key
 * of that context, nested `raw`/`rendered`, local and UTC dates without offset, `meta: []`, `_links`), pages them
 * with `X-WP-Total` / `X-WP-TotalPages`, lists revisions newest first with autosaves among them, and checks HTTP
 * Basic credentials (a refused password is treated as no credentials, as WordPress 6.1 does: `/users/me` is then
 * 401 `rest_not_logged_in`). The content is a small site: users of three roles, nested categories, tags, an image
 * (and one whose file is gone), a post edited three times by different users with an autosave, a page with a
 * child page, and a draft.
 *
 * `faults` lets a test break it: answer a path with something else, or drop the connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';

export const STAND_IN_LOGIN = 'admin';
export const STAND_IN_PASSWORD = 'abcd EFGH ijkl MNOP qrst UVWX';

const PIXEL = fs.readFileSync(
  path.join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'wxr', 'uploads', '2026', '11', 'wxr-pixel.png'),
);

export interface Fault {
  /** Destroys the socket without an answer. */
  drop?: boolean;
  status?: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface StandIn {
  url: string;
  port: number;
  /** Every request's path and query, in order. */
  requests: string[];
  /** Decides per request (path with query) whether to answer otherwise. */
  faults: ((pathAndQuery: string) => Fault | undefined)[];
  content: SiteContent;
  close(): Promise<void>;
}

interface Text {
  title: string;
  content: string;
  excerpt: string;
}

export interface Revision extends Text {
  id: number;
  author: number;
  date: string;
  autosave?: boolean;
}

export interface Item extends Text {
  id: number;
  type: 'post' | 'page';
  author: number;
  status: string;
  slug: string;
  date: string;
  /** True for a draft whose date was never fixed (WordPress answers date_gmt computed from date, equal to modified). */
  floating?: boolean;
  modified: string;
  categories?: number[];
  tags?: number[];
  parent?: number;
  menu_order?: number;
  featured_media?: number;
  sticky?: boolean;
  revisions: Revision[];
}

export interface SiteContent {
  users: {
    id: number;
    username: string;
    name: string;
    first_name: string;
    last_name: string;
    email: string;
    roles: string[];
    registered: string;
  }[];
  categories: { id: number; name: string; slug: string; description: string; parent: number }[];
  tags: { id: number; name: string; slug: string; description: string }[];
  media: {
    id: number;
    title: string;
    slug: string;
    author: number;
    post: number | null;
    date: string;
    file: string;
    alt: string;
    caption: string;
  }[];
  items: Item[];
}

/** The site the stand-in serves; a fresh copy each call, for tests to change. */
export function standInContent(): SiteContent {
  const three = [
    {
      title: 'Edited three times',
      content: '<!-- wp:paragraph -->\n<p>First words.</p>\n<!-- /wp:paragraph -->',
      excerpt: '',
    },
    {
      title: 'Edited three times',
      content: '<!-- wp:paragraph -->\n<p>First words, then more.</p>\n<!-- /wp:paragraph -->',
      excerpt: 'Second.',
    },
    {
      title: 'Edited three times, finally',
      content: '<!-- wp:paragraph -->\n<p>The last words.</p>\n<!-- /wp:paragraph -->',
      excerpt: 'Third.',
    },
  ];
  return {
    users: [
      {
        id: 1,
        username: 'admin',
        name: 'Ada Admin',
        first_name: 'Ada',
        last_name: 'Admin',
        email: 'admin@old.example',
        roles: ['administrator'],
        registered: '2025-12-01T08:00:00',
      },
      {
        id: 2,
        username: 'edna',
        name: 'Edna Editor',
        first_name: 'Edna',
        last_name: 'Editor',
        email: 'edna@old.example',
        roles: ['editor'],
        registered: '2025-12-02T08:00:00',
      },
      {
        id: 3,
        username: 'arthur',
        name: 'Arthur Author',
        first_name: 'Arthur',
        last_name: 'Author',
        email: 'arthur@old.example',
        roles: ['author'],
        registered: '2025-12-03T08:00:00',
      },
    ],
    categories: [
      { id: 1, name: 'Uncategorized', slug: 'uncategorized', description: '', parent: 0 },
      { id: 4, name: 'Sport', slug: 'sport', description: 'Games.', parent: 3 },
      { id: 2, name: 'News', slug: 'news', description: '', parent: 0 },
      { id: 3, name: 'Local', slug: 'local', description: 'Near us.', parent: 2 },
    ],
    tags: [
      { id: 5, name: 'Alpha', slug: 'alpha', description: '' },
      { id: 6, name: 'Beta &amp; more', slug: 'beta', description: '' },
    ],
    media: [
      {
        id: 10,
        title: 'pixel',
        slug: 'pixel',
        author: 3,
        post: 20,
        date: '2026-01-05T09:00:00',
        file: '2026/01/pixel.png',
        alt: 'A pixel',
        caption: 'One pixel.',
      },
      {
        id: 11,
        title: 'gone',
        slug: 'gone',
        author: 3,
        post: null,
        date: '2026-01-05T09:10:00',
        file: '2026/01/gone.png',
        alt: '',
        caption: '',
      },
    ],
    items: [
      {
        id: 20,
        type: 'post',
        author: 3,
        status: 'publish',
        slug: 'edited-three-times',
        date: '2026-01-05T10:00:00',
        modified: '2026-01-07T09:00:00',
        categories: [4],
        tags: [5, 6],
        featured_media: 10,
        sticky: false,
        ...three[2]!,
        revisions: [
          { id: 21, author: 3, date: '2026-01-05T10:00:00', ...three[0]! },
          { id: 22, author: 2, date: '2026-01-06T08:00:00', ...three[1]! },
          { id: 23, author: 1, date: '2026-01-07T09:00:00', ...three[2]! },
          {
            id: 24,
            author: 2,
            date: '2026-01-07T10:00:00',
            autosave: true,
            title: 'Edited three times, finally',
            content: '<p>An autosave of Edna.</p>',
            excerpt: 'Third.',
          },
        ],
      },
      {
        id: 30,
        type: 'page',
        author: 1,
        status: 'publish',
        slug: 'about',
        date: '2026-01-02T12:00:00',
        modified: '2026-01-02T12:00:00',
        title: 'About',
        content: '<p>About us.</p>',
        excerpt: '',
        menu_order: 1,
        revisions: [
          { id: 31, author: 1, date: '2026-01-02T12:00:00', title: 'About', content: '<p>About us.</p>', excerpt: '' },
        ],
      },
      {
        id: 32,
        type: 'page',
        author: 1,
        status: 'publish',
        slug: 'team',
        date: '2026-01-03T12:00:00',
        modified: '2026-01-04T12:00:00',
        parent: 30,
        title: 'Team',
        content: '<p>The team.</p>',
        excerpt: '',
        revisions: [
          { id: 33, author: 1, date: '2026-01-03T12:00:00', title: 'Team', content: '<p>Our team.</p>', excerpt: '' },
          { id: 34, author: 2, date: '2026-01-04T12:00:00', title: 'Team', content: '<p>The team.</p>', excerpt: '' },
        ],
      },
      {
        id: 40,
        type: 'post',
        author: 2,
        status: 'draft',
        slug: '',
        date: '2026-01-08T15:00:00',
        floating: true,
        modified: '2026-01-08T15:00:00',
        categories: [1],
        tags: [],
        title: 'A draft',
        content: '<p>Not yet.</p>',
        excerpt: '',
        revisions: [
          { id: 41, author: 2, date: '2026-01-08T15:00:00', title: 'A draft', content: '<p>Not yet.</p>', excerpt: '' },
        ],
      },
      {
        id: 42,
        type: 'post',
        author: 1,
        status: 'publish',
        slug: 'hello-world',
        date: '2025-12-01T08:00:00',
        modified: '2025-12-01T08:00:00',
        categories: [1],
        tags: [],
        title: 'Hello world!',
        content: '<p>Welcome.</p>',
        excerpt: '',
        revisions: [],
      },
    ],
  };
}

export async function startStandIn(options: { content?: SiteContent; maxPerPage?: number } = {}): Promise<StandIn> {
  const content = options.content ?? standInContent();
  // Some sites lower the most items a page answers (a filter on the collection parameters): paging must follow it.
  const maxPerPage = options.maxPerPage ?? 100;
  const requests: string[] = [];
  const faults: StandIn['faults'] = [];
  const expected = `Basic ${Buffer.from(`${STAND_IN_LOGIN}:${STAND_IN_PASSWORD}`).toString('base64')}`;
  let origin = '';

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const pathAndQuery = `${url.pathname}${url.search}`;
    requests.push(pathAndQuery);
    for (const fault of faults) {
      const chosen = fault(pathAndQuery);
      if (!chosen) continue;
      if (chosen.drop) {
        request.socket.destroy();
        return;
      }
      response.writeHead(chosen.status ?? 200, {
        'content-type': 'application/json; charset=UTF-8',
        ...chosen.headers,
      });
      response.end(chosen.body ?? '');
      return;
    }
    const signedIn = request.headers.authorization === expected;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
      response.end(JSON.stringify(body));
    };
    const fail = (status: number, code: string, message: string) => send(status, { code, message, data: { status } });

    if (url.pathname.startsWith('/wp-content/uploads/')) {
      const file = url.pathname.slice('/wp-content/uploads/'.length);
      if (!content.media.some((item) => item.file === file && item.slug !== 'gone')) {
        response.writeHead(404, { 'content-type': 'text/html' });
        response.end('<h1>Not Found</h1>');
        return;
      }
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PIXEL.length) });
      response.end(PIXEL);
      return;
    }
    if (url.pathname === '/wp-json/' || url.pathname === '/wp-json') {
      send(200, {
        name: 'Old Site',
        description: 'Just another WordPress site',
        url: origin,
        home: origin,
        gmt_offset: 0,
        timezone_string: 'UTC',
        namespaces: ['oembed/1.0', 'wp/v2', 'wp-site-health/v1', 'wp-block-editor/v1'],
        authentication: {
          'application-passwords': { endpoints: { authorization: `${origin}/wp-admin/authorize-application.php` } },
        },
        routes: {},
        site_logo: 0,
        site_icon: 0,
        site_icon_url: '',
        _links: { help: [{ href: 'https://developer.wordpress.org/rest-api/' }] },
      });
      return;
    }
    const route = url.pathname.replace(/^\/wp-json\/wp\/v2/, '');
    if (route === url.pathname)
      return fail(404, 'rest_no_route', 'No route was found matching the URL and request method.');
    if (route === '/users/me') {
      if (!signedIn) return fail(401, 'rest_not_logged_in', 'You are not currently logged in.');
      return send(200, userOf(content.users[0]!, origin));
    }
    if (url.searchParams.get('context') === 'edit' && !signedIn)
      return fail(401, 'rest_forbidden_context', 'Sorry, you are not allowed to edit posts in this post type.');
    const paged = (all: unknown[]) => {
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 10), maxPerPage);
      const page = Number(url.searchParams.get('page') ?? 1);
      const pages = Math.ceil(all.length / perPage);
      if (all.length > 0 && page > pages)
        return fail(
          400,
          'rest_post_invalid_page_number',
          'The page number requested is larger than the number of pages available.',
        );
      send(200, all.slice((page - 1) * perPage, page * perPage), {
        'X-WP-Total': String(all.length),
        'X-WP-TotalPages': String(pages),
      });
    };
    const byDateDesc = <T extends { date: string; id: number }>(list: T[]) =>
      [...list].sort((a, b) => b.date.localeCompare(a.date) || b.id - a.id);
    if (route === '/users') return paged(content.users.map((user) => userOf(user, origin)));
    if (route === '/categories') return paged(content.categories.map((term) => termOf(term, 'category', origin)));
    if (route === '/tags') return paged(content.tags.map((term) => termOf(term, 'post_tag', origin)));
    if (route === '/media') return paged(byDateDesc(content.media).map((item) => mediaOf(item, origin)));
    const collection = /^\/(posts|pages)$/.exec(route);
    if (collection) {
      const type = collection[1] === 'posts' ? 'post' : 'page';
      const statuses = (url.searchParams.get('status') ?? 'publish').split(',');
      return paged(
        byDateDesc(content.items.filter((item) => item.type === type && statuses.includes(item.status))).map((item) =>
          itemOf(item, origin),
        ),
      );
    }
    const history = /^\/(posts|pages)\/(\d+)\/(revisions|autosaves)$/.exec(route);
    if (history) {
      const item = content.items.find(
        (candidate) =>
          candidate.id === Number(history[2]) && candidate.type === (history[1] === 'posts' ? 'post' : 'page'),
      );
      if (!item) return fail(404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
      if (history[3] === 'autosaves')
        return send(
          200,
          item.revisions.filter((revision) => revision.autosave).map((revision) => revisionOf(item, revision, origin)),
        );
      // The revisions collection is newest first and lists the autosaves too.
      return paged(byDateDesc(item.revisions).map((revision) => revisionOf(item, revision, origin)));
    }
    fail(404, 'rest_no_route', 'No route was found matching the URL and request method.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    port,
    requests,
    faults,
    content,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const rendered = (raw: string) => ({ raw, rendered: raw });

function userOf(user: SiteContent['users'][number], origin: string) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
    url: '',
    description: '',
    link: `${origin}/author/${user.username}/`,
    locale: 'en_US',
    nickname: user.username,
    slug: user.username,
    roles: user.roles,
    registered_date: `${user.registered}+00:00`,
    capabilities: Object.fromEntries(user.roles.map((role) => [role, true])),
    extra_capabilities: Object.fromEntries(user.roles.map((role) => [role, true])),
    avatar_urls: {
      '24': 'https://secure.gravatar.com/avatar/0?s=24&d=mm&r=g',
      '48': 'https://secure.gravatar.com/avatar/0?s=48&d=mm&r=g',
      '96': 'https://secure.gravatar.com/avatar/0?s=96&d=mm&r=g',
    },
    meta: [],
    _links: {
      self: [{ href: `${origin}/wp-json/wp/v2/users/${user.id}` }],
      collection: [{ href: `${origin}/wp-json/wp/v2/users` }],
    },
  };
}

function termOf(
  term: { id: number; name: string; slug: string; description: string; parent?: number },
  taxonomy: string,
  origin: string,
) {
  const base = taxonomy === 'category' ? 'categories' : 'tags';
  return {
    id: term.id,
    count: 0,
    description: term.description,
    link: `${origin}/${taxonomy === 'category' ? 'category' : 'tag'}/${term.slug}/`,
    name: term.name,
    slug: term.slug,
    taxonomy,
    ...(taxonomy === 'category' ? { parent: term.parent ?? 0 } : {}),
    meta: [],
    _links: {
      self: [{ href: `${origin}/wp-json/wp/v2/${base}/${term.id}` }],
      collection: [{ href: `${origin}/wp-json/wp/v2/${base}` }],
    },
  };
}

function mediaOf(item: SiteContent['media'][number], origin: string) {
  const source = `${origin}/wp-content/uploads/${item.file}`;
  return {
    id: item.id,
    date: item.date,
    date_gmt: item.date,
    guid: rendered(source),
    modified: item.date,
    modified_gmt: item.date,
    slug: item.slug,
    status: 'inherit',
    type: 'attachment',
    link: `${origin}/${item.slug}/`,
    title: rendered(item.title),
    author: item.author,
    comment_status: 'open',
    ping_status: 'closed',
    template: '',
    meta: [],
    permalink_template: `${origin}/?attachment_id=${item.id}`,
    generated_slug: item.slug,
    description: { raw: '', rendered: `<p class="attachment"><a href='${source}'>${item.title}</a></p>\n` },
    caption: { raw: item.caption, rendered: item.caption ? `<p>${item.caption}</p>\n` : '' },
    alt_text: item.alt,
    media_type: 'image',
    mime_type: 'image/png',
    media_details: { width: 1, height: 1, file: item.file, filesize: PIXEL.length, sizes: {}, image_meta: {} },
    post: item.post,
    source_url: source,
    missing_image_sizes: [],
    _links: {
      self: [{ href: `${origin}/wp-json/wp/v2/media/${item.id}` }],
      collection: [{ href: `${origin}/wp-json/wp/v2/media` }],
    },
  };
}

function itemOf(item: Item, origin: string) {
  const base = item.type === 'post' ? 'posts' : 'pages';
  const link =
    item.status === 'publish'
      ? `${origin}/${item.slug}/`
      : `${origin}/?${item.type === 'post' ? 'p' : 'page_id'}=${item.id}`;
  const common = {
    id: item.id,
    date: item.date,
    date_gmt: item.floating ? item.modified : item.date,
    guid: rendered(`${origin}/?${item.type === 'post' ? 'p' : 'page_id'}=${item.id}`),
    modified: item.modified,
    modified_gmt: item.modified,
    password: '',
    slug: item.slug,
    status: item.status,
    type: item.type,
    link,
    title: rendered(item.title),
    content: {
      raw: item.content,
      rendered: item.content,
      protected: false,
      block_version: item.content.includes('<!-- wp:') ? 1 : 0,
    },
    author: item.author,
    featured_media: item.featured_media ?? 0,
    comment_status: item.type === 'post' ? 'open' : 'closed',
    ping_status: item.type === 'post' ? 'open' : 'closed',
    template: '',
    meta: [],
    permalink_template: `${origin}/%${item.type === 'post' ? 'postname' : 'pagename'}%/`,
    generated_slug: item.slug || item.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
  };
  const links = {
    self: [{ href: `${origin}/wp-json/wp/v2/${base}/${item.id}` }],
    collection: [{ href: `${origin}/wp-json/wp/v2/${base}` }],
    'version-history': [{ count: item.revisions.length, href: `${origin}/wp-json/wp/v2/${base}/${item.id}/revisions` }],
  };
  if (item.type === 'page')
    return { ...common, parent: item.parent ?? 0, menu_order: item.menu_order ?? 0, _links: links };
  return {
    ...common,
    excerpt: { raw: item.excerpt, rendered: item.excerpt ? `<p>${item.excerpt}</p>\n` : '', protected: false },
    sticky: item.sticky ?? false,
    format: 'standard',
    categories: item.categories ?? [1],
    tags: item.tags ?? [],
    _links: links,
  };
}

function revisionOf(item: Item, revision: Revision, origin: string) {
  const base = item.type === 'post' ? 'posts' : 'pages';
  return {
    author: revision.author,
    date: revision.date,
    date_gmt: revision.date,
    id: revision.id,
    modified: revision.date,
    modified_gmt: revision.date,
    parent: item.id,
    slug: revision.autosave ? `${item.id}-autosave-v1` : `${item.id}-revision-v1`,
    guid: rendered(`${origin}/?p=${revision.id}`),
    title: rendered(revision.title),
    content: rendered(revision.content),
    excerpt: { raw: revision.excerpt, rendered: revision.excerpt ? `<p>${revision.excerpt}</p>\n` : '' },
    ...(revision.autosave
      ? { preview_link: `${origin}/${item.slug}/?preview_id=${item.id}&preview_nonce=0&preview=true` }
      : {}),
    _links: { parent: [{ href: `${origin}/wp-json/wp/v2/${base}/${item.id}` }] },
  };
}
