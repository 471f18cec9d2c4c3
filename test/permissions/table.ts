/**
 * Who may do what: every route × anonymous and each role × their own item and someone else's, with the
 * status and error code WordPress 6.1 answers. This table is the proof of the access rules: it runs as
 * black-box tests against our site (permissions.test.ts), against the reference WordPress
 * (`npx tsx test/permissions/reference.ts`), and is rendered as docs/permissions.md (render.ts).
 *
 * Cells are written `status[ code[/inner code]][ check]`:
 * - `code` is the error code of the body; `rest_invalid_param/rest_forbidden_status` is an invalid arg whose
 *   detail carries the inner code (with status 401 anonymous, 403 signed in).
 * - checks: `listed` / `unlisted` (the row's item is / is not in the list returned), `hidden` / `shown`
 *   (the item's content and excerpt are withheld as password-protected / are given; in a list, the row's item's),
 *   `raw` / `no-raw` (the answer, embedded items included, has / has no raw field or post password), `counted` /
 *   `uncounted` (the list's `X-WP-Total` is above 0 / is 0: with `include={id}`, whether the row's item was counted),
 *   `embedded` / `unembedded` (the row's item is / is not among the items `_embed` brought).
 * - `null`: does not apply (anonymous callers own nothing).
 *
 * Paths and bodies use placeholders: `{id}` the row's item, `{revision}` its revision, `{autosave}` its
 * autosave, `{child}` its child page, `{word}` a word only its content has, `{term}` the row's term, `{me}` the caller's user id,
 * `{other}` another user's id, `{user}` the row's user (see `UserFixture`), `{uuid}` an application password
 * of that user, `{unique}` a name nothing else has, `{theme}` the active theme's stylesheet and `{styles}` the id of its
 * user global styles (each site has its own).
 */

export const WHO = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'] as const;
export type Who = (typeof WHO)[number];
export type Cell = string | null;
export type Cells = [
  anonymous: Cell,
  subscriber: Cell,
  contributor: Cell,
  author: Cell,
  editor: Cell,
  administrator: Cell,
];

export type ContentType = 'posts' | 'pages' | 'blocks';
export type ItemStatus = 'draft' | 'pending' | 'publish' | 'private' | 'future' | 'trash';

/**
 * An item made (by the administrator) before the request; fresh for every write, shared between reads. A reusable
 * block has no author to set: it is made by its owner (so an `own` one only for callers who may make blocks).
 */
export interface ItemFixture {
  type: ContentType;
  /** `own`: the caller is its author; `other`: another user is (the administrator, or the editor when the caller is the administrator). */
  owner: 'own' | 'other';
  status: ItemStatus;
  /** For `trash`: the status it had before being trashed. */
  trashedFrom?: Exclude<ItemStatus, 'trash'>;
  password?: string;
  /** Updated once by the administrator, so it has a revision. */
  revised?: boolean;
  /** Autosaved by the administrator (on a published item this makes an autosave). */
  autosaved?: boolean;
  /** For a page: with a published child page of the administrator's (the `{child}`, which `listed` then looks for). */
  child?: boolean;
}

/** The user a row is about: `self` is the caller, `other` another user, `fresh` a new subscriber without posts. */
export interface UserFixture {
  user: 'self' | 'other' | 'fresh';
  /** With a published post of theirs (which makes them visible to everyone). */
  withPublishedPost?: boolean;
  /** With an application password of that user, made by the administrator (the `{uuid}`). */
  applicationPassword?: boolean;
}

/** A term made by the administrator (the `{term}`): a category, a tag, a menu, or a menu item (a custom link). */
export interface TermFixture {
  taxonomy: 'categories' | 'tags' | 'menus' | 'menu-items';
  /** For a menu item: autosaved by the administrator (the `{autosave}`). */
  autosaved?: boolean;
}

/**
 * A comment made by the administrator (the `{comment}`) on a published post: `post` whose post it is on, `author`
 * whose comment it is (`own`: the caller's; `other`: another user's); held when `status` says so.
 */
export interface CommentFixture {
  post: 'own' | 'other';
  author: 'own' | 'other';
  status?: 'hold';
}

/** An image uploaded by the administrator before the request (the `{id}`; `{src}` is its file URL). */
export interface MediaFixture {
  owner: 'own' | 'other';
}

/** The image every upload of the table sends: a 1×1 PNG. */
export const UPLOAD = {
  data: Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
    'base64',
  ),
  type: 'image/png',
};

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Row {
  /** The route as the index lists it, with the method. */
  route: string;
  method: Method;
  path: string;
  /** What this row varies, for people. */
  variant: string;
  item?: ItemFixture;
  users?: UserFixture;
  term?: TermFixture;
  media?: MediaFixture;
  comment?: CommentFixture;
  /** The request's body is an uploaded image (sent raw), not JSON. */
  upload?: boolean;
  body?: Record<string, unknown>;
  /** Signed in with the caller's login and a wrong application password. */
  wrongPassword?: boolean;
  /** The caller is a new user of the role (with their own application password), for requests that would spoil the usual callers. */
  asFreshCaller?: boolean;
  /** Sent as the one sub-request of a `POST /batch/v1` (whose own answer is 207); the cells are that sub-request's answer. */
  viaBatch?: boolean;
  /** Left out of the reference run, with the reason (it would damage the reference's own credentials). */
  localOnly?: string;
  cells: Cells;
}

const FUTURE_DATE = '2035-01-01T10:00:00';

interface RowOptions {
  item?: ItemFixture;
  comment?: CommentFixture;
  media?: MediaFixture;
  upload?: boolean;
  users?: UserFixture;
  term?: TermFixture;
  body?: Record<string, unknown>;
  wrongPassword?: boolean;
  asFreshCaller?: boolean;
  viaBatch?: boolean;
  note?: string;
  localOnly?: string;
}

const STATUS_WORDS: Record<ItemStatus, string> = {
  draft: 'draft',
  pending: 'pending',
  publish: 'published',
  private: 'private',
  future: 'scheduled',
  trash: 'trashed',
};

function describeItem(item: ItemFixture): string {
  const whose = item.owner === 'own' ? 'own' : "someone else's";
  const status =
    item.status === 'trash' ? `trashed ${STATUS_WORDS[item.trashedFrom ?? 'draft']}` : STATUS_WORDS[item.status];
  const extras = [
    item.password ? 'password-protected' : '',
    item.revised ? 'with a revision' : '',
    item.autosaved ? 'with an autosave' : '',
    item.child ? 'with a published child page' : '',
  ].filter(Boolean);
  return [
    `${whose} ${status} ${{ posts: 'post', pages: 'page', blocks: 'reusable block' }[item.type]}`,
    ...extras,
  ].join(', ');
}

function describeUsers(users: UserFixture): string {
  const who = users.user === 'self' ? 'oneself' : users.user === 'other' ? 'another user' : 'a user without posts';
  const extras = [
    users.withPublishedPost ? 'with a published post' : '',
    users.applicationPassword ? 'one of their application passwords' : '',
  ].filter(Boolean);
  return [who, ...extras].join(', ');
}

/** The route pattern the index shows for a concrete path template. */
function routeOf(method: Method, path: string): string {
  const pattern = path
    .split('?')[0]!
    .replace(/\/(posts|pages|blocks)\/\{id\}\/revisions/, '/$1/{parent}/revisions')
    .replace(/\/(posts|pages|blocks)\/\{id\}\/autosaves\/\{autosave\}/, '/$1/{parent}/autosaves/{id}')
    .replace(/\/menu-items\/\{term\}\/autosaves\/\{autosave\}/, '/menu-items/{parent}/autosaves/{id}')
    .replace(/\/revisions\/\{revision\}/, '/revisions/{id}')
    .replace(/^\/hooks\/v1\/webhooks\/\d+/, '/hooks/v1/webhooks/{id}')
    .replace(/\/deliveries\/msg_[\w-]+\//, '/deliveries/{delivery}/')
    .replace(/\/users\/(\{user\}|me)\/application-passwords/, '/users/{user_id}/application-passwords')
    .replace(/\{(user|term|child|comment|styles)\}/, '{id}')
    .replace(/\/templates\/\{theme\}\/\/[\w-]+$/, '/templates/{id}')
    .replace(/\{theme\}/, '{stylesheet}')
    .replace(/\/menu-locations\/[\w-]+$/, '/menu-locations/{location}')
    .replace(
      /\/(types|statuses|taxonomies)\/[\w-]+$/,
      (_all, resource: string) =>
        `/${resource}/{${{ types: 'type', statuses: 'status', taxonomies: 'taxonomy' }[resource]}}`,
    );
  return `${method} ${pattern}`;
}

function row(method: Method, path: string, options: RowOptions, cells: Cells): Row {
  const parts: string[] = [];
  if (options.item) parts.push(describeItem(options.item));
  if (options.users) parts.push(describeUsers(options.users));
  if (options.term)
    parts.push(
      { categories: 'a category', tags: 'a tag', menus: 'a menu', 'menu-items': 'a menu item' }[options.term.taxonomy] +
        (options.term.autosaved ? ', with an autosave' : ''),
    );
  if (options.comment) {
    const whose = (owner: 'own' | 'other') => (owner === 'own' ? 'own' : "someone else's");
    parts.push(
      `${whose(options.comment.author)}${options.comment.status === 'hold' ? ' held' : ''} comment on ${whose(options.comment.post)} post`,
    );
  }
  if (options.media) parts.push(options.media.owner === 'own' ? 'own image' : "someone else's image");
  if (options.upload) parts.push('an image upload');
  if (options.wrongPassword) parts.push('a wrong application password');
  const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  if (query) parts.push(`?${query}`);
  if (options.body) parts.push(JSON.stringify(options.body).replace(`"${FUTURE_DATE}"`, '"(future)"'));
  if (options.note) parts.push(options.note);
  return {
    route: options.viaBatch ? `POST /batch/v1 → ${routeOf(method, path)}` : routeOf(method, path),
    method,
    path,
    variant: parts.join('; ') || '—',
    item: options.item,
    users: options.users,
    term: options.term,
    media: options.media,
    comment: options.comment,
    upload: options.upload,
    body: options.body,
    wrongPassword: options.wrongPassword,
    asFreshCaller: options.asFreshCaller,
    viaBatch: options.viaBatch,
    localOnly: options.localOnly,
    cells,
  };
}

const own = (type: ContentType, status: ItemStatus, extra: Partial<ItemFixture> = {}): ItemFixture => ({
  type,
  owner: 'own',
  status,
  ...extra,
});
const other = (type: ContentType, status: ItemStatus, extra: Partial<ItemFixture> = {}): ItemFixture => ({
  type,
  owner: 'other',
  status,
  ...extra,
});

/** The same answer for everyone. */
const all = (cell: string): Cells => [cell, cell, cell, cell, cell, cell];
/** The same answer for everyone signed in; anonymous callers own nothing. */
const signedIn = (cell: string): Cells => [null, cell, cell, cell, cell, cell];

const FORBIDDEN_STATUS = 'rest_invalid_param/rest_forbidden_status';

// --- discovery and batch -------------------------------------------------------------------------------------

const discovery: Row[] = [
  row('GET', '/', {}, all('200')),
  row('GET', '/core/v2', {}, all('200')),
  row('GET', '/oembed/1.0', {}, all('200')),
  row(
    'GET',
    '/oembed/1.0/embed?url=http%3A%2F%2Funknown.example%2Fx',
    { note: 'not an item of this site' },
    all('404 oembed_invalid_url'),
  ),
  row(
    'GET',
    '/oembed/1.0/proxy?url=http%3A%2F%2Funknown.example%2Fx&discover=false',
    { note: 'needs edit_posts; then nothing found' },
    [
      '401 rest_forbidden',
      '403 rest_forbidden',
      '404 oembed_invalid_url',
      '404 oembed_invalid_url',
      '404 oembed_invalid_url',
      '404 oembed_invalid_url',
    ],
  ),
];

// --- posts -----------------------------------------------------------------------------------------------------

const P = 'posts';
const posts: Row[] = [
  // The collection.
  row('GET', '/core/v2/posts', {}, all('200')),
  row('GET', '/core/v2/posts?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts?include={id}', { item: other(P, 'publish') }, all('200 listed')),
  row(
    'GET',
    '/core/v2/posts?include={id}',
    { item: other(P, 'draft'), note: 'status defaults to publish' },
    all('200 unlisted'),
  ),
  row('GET', '/core/v2/posts?status=draft&include={id}', { item: own(P, 'draft') }, [
    null,
    `400 ${FORBIDDEN_STATUS}`,
    '200 listed',
    '200 listed',
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/posts?status=draft&include={id}', { item: other(P, 'draft') }, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 unlisted',
    '200 unlisted',
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/posts?status=pending&include={id}', { item: other(P, 'pending') }, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 unlisted',
    '200 unlisted',
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/posts?status=future&include={id}', { item: other(P, 'future') }, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 unlisted',
    '200 unlisted',
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/posts?status=private&include={id}', { item: own(P, 'private') }, [
    null,
    `400 ${FORBIDDEN_STATUS}`,
    '200 listed',
    '200 listed',
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/posts?status=private&include={id}', { item: other(P, 'private') }, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 unlisted',
    '200 unlisted',
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/posts?status=trash&include={id}', { item: other(P, 'trash', { trashedFrom: 'publish' }) }, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 unlisted',
    '200 unlisted',
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/posts?status=any&include={id}', { item: own(P, 'pending') }, [
    null,
    `400 ${FORBIDDEN_STATUS}`,
    '200 listed',
    '200 listed',
    '200 listed',
    '200 listed',
  ]),
  row(
    'GET',
    '/core/v2/posts?search={word}',
    { item: other(P, 'publish', { password: 'secret' }), note: 'anonymous searches skip protected items' },
    ['200 unlisted', '200 listed', '200 listed', '200 listed', '200 listed', '200 listed'],
  ),
  row('GET', '/core/v2/posts?search={word}', { item: other(P, 'publish') }, all('200 listed')),
  // Lists in every context: an edit-context list withholds what the caller may not edit, yet counts it.
  row(
    'GET',
    '/core/v2/posts?include={id}',
    { item: other(P, 'publish', { password: 'secret' }) },
    all('200 listed hidden no-raw'),
  ),
  row(
    'GET',
    '/core/v2/posts?context=embed&include={id}',
    { item: other(P, 'publish', { password: 'secret' }) },
    all('200 listed hidden no-raw'),
  ),
  row('GET', '/core/v2/posts?context=edit&include={id}', { item: other(P, 'publish', { password: 'secret' }) }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 unlisted no-raw counted',
    '200 unlisted no-raw counted',
    '200 listed shown raw counted',
    '200 listed shown raw counted',
  ]),
  row('GET', '/core/v2/posts?context=edit&include={id}', { item: other(P, 'publish') }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 unlisted no-raw counted',
    '200 unlisted no-raw counted',
    '200 listed raw',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/posts?context=edit&include={id}', { item: own(P, 'publish') }, [
    null,
    '403 rest_forbidden_context',
    '200 unlisted no-raw counted',
    '200 listed raw',
    '200 listed raw',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/posts?context=edit&status=draft&include={id}', { item: own(P, 'draft') }, [
    null,
    `400 ${FORBIDDEN_STATUS}`,
    '200 listed raw',
    '200 listed raw',
    '200 listed raw',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/posts?context=edit&status=private&include={id}', { item: other(P, 'private') }, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 unlisted no-raw counted',
    '200 unlisted no-raw counted',
    '200 listed raw',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/posts?context=edit&search={word}', { item: other(P, 'publish', { password: 'secret' }) }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 unlisted no-raw counted',
    '200 unlisted no-raw counted',
    '200 listed raw',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/posts?context=embed&search={word}', { item: other(P, 'publish', { password: 'secret' }) }, [
    '200 unlisted',
    '200 listed hidden no-raw',
    '200 listed hidden no-raw',
    '200 listed hidden no-raw',
    '200 listed hidden no-raw',
    '200 listed hidden no-raw',
  ]),
  row(
    'GET',
    '/core/v2/posts?include={id}&_embed',
    { item: other(P, 'publish', { password: 'secret' }) },
    all('200 listed hidden no-raw'),
  ),
  row('GET', '/core/v2/posts?context=edit&include={id}&_embed', { item: other(P, 'publish', { password: 'secret' }) }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 unlisted no-raw counted',
    '200 unlisted no-raw counted',
    '200 listed shown raw',
    '200 listed shown raw',
  ]),
  row(
    'GET',
    '/core/v2/posts/{id}?_embed',
    { item: other(P, 'publish', { password: 'secret' }) },
    all('200 hidden no-raw'),
  ),

  // Creating.
  row('POST', '/core/v2/posts', { body: { title: 'New' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/posts', { body: { title: 'New', status: 'pending' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/posts', { body: { title: 'New', status: 'publish' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_publish',
    '201',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/posts', { body: { title: 'New', status: 'private' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_publish',
    '201',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/posts', { body: { title: 'New', status: 'future', date: FUTURE_DATE } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_publish',
    '201',
    '201',
    '201',
  ]),
  // An anonymous caller's body is not read where no endpoint admits one: the rule's general refusal (docs/compatibility.md).
  row('POST', '/core/v2/posts', { body: { title: 'New', sticky: true } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_assign_sticky',
    '403 rest_cannot_assign_sticky',
    '201',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/posts', { body: { title: 'New', author: '{me}' } }, [
    null,
    '403 rest_cannot_create',
    '201',
    '201',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/posts', { body: { title: 'New', author: '{other}' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_edit_others',
    '403 rest_cannot_edit_others',
    '403 rest_cannot_edit_others',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/posts', { body: { title: 'New', author: 999999 }, note: 'no such user' }, [
    '401 rest_cannot_create',
    '403 rest_cannot_edit_others',
    '403 rest_cannot_edit_others',
    '403 rest_cannot_edit_others',
    '400 rest_invalid_author',
    '400 rest_invalid_author',
  ]),
  row('POST', '/core/v2/posts', { body: { title: 'New' }, viaBatch: true }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
    '201',
    '201',
  ]),

  // Reading one.
  row('GET', '/core/v2/posts/{id}', { item: own(P, 'draft') }, signedIn('200')),
  row('GET', '/core/v2/posts/{id}', { item: own(P, 'pending') }, signedIn('200')),
  row('GET', '/core/v2/posts/{id}', { item: own(P, 'publish') }, signedIn('200')),
  row('GET', '/core/v2/posts/{id}', { item: own(P, 'private') }, signedIn('200')),
  row('GET', '/core/v2/posts/{id}', { item: own(P, 'future') }, signedIn('200')),
  row('GET', '/core/v2/posts/{id}', { item: own(P, 'trash', { trashedFrom: 'publish' }) }, signedIn('200')),
  row('GET', '/core/v2/posts/{id}', { item: other(P, 'draft') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}', { item: other(P, 'pending') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}', { item: other(P, 'publish') }, all('200')),
  row('GET', '/core/v2/posts/{id}', { item: other(P, 'private') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}', { item: other(P, 'future') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}', { item: other(P, 'trash', { trashedFrom: 'publish' }) }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}?context=edit', { item: own(P, 'draft') }, [
    null,
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}?context=edit', { item: own(P, 'publish') }, [
    null,
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}?context=edit', { item: own(P, 'private') }, [
    null,
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}?context=edit', { item: other(P, 'publish') }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}', { item: other(P, 'publish', { password: 'secret' }) }, all('200 hidden')),
  row(
    'GET',
    '/core/v2/posts/{id}?password=secret',
    { item: other(P, 'publish', { password: 'secret' }) },
    all('200 shown'),
  ),
  row(
    'GET',
    '/core/v2/posts/{id}?password=wrong',
    { item: other(P, 'publish', { password: 'secret' }) },
    all('403 rest_post_incorrect_password'),
  ),
  row('GET', '/core/v2/posts/{id}?context=edit', { item: other(P, 'publish', { password: 'secret' }) }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 shown',
    '200 shown',
  ]),
  row(
    'GET',
    '/core/v2/posts/{id}',
    { item: own(P, 'publish', { password: 'secret' }), note: 'the author too needs the password outside context=edit' },
    signedIn('200 hidden'),
  ),

  // Updating.
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'draft'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'pending'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'publish'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'private'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'future'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'trash', { trashedFrom: 'draft' }), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/posts/{id}',
    { item: own(P, 'trash', { trashedFrom: 'publish' }), body: { title: 'Changed' } },
    [null, '403 rest_cannot_edit', '403 rest_cannot_edit', '200', '200', '200'],
  ),
  row('POST', '/core/v2/posts/{id}', { item: other(P, 'draft'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: other(P, 'pending'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: other(P, 'publish'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: other(P, 'private'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/posts/{id}',
    { item: other(P, 'trash', { trashedFrom: 'publish' }), body: { title: 'Changed' } },
    ['401 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '200', '200'],
  ),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'draft'), body: { status: 'publish' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_publish',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'draft'), body: { status: 'private' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_publish',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'draft'), body: { status: 'pending' } }, [
    null,
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/posts/{id}',
    {
      item: own(P, 'private'),
      body: { status: 'private', title: 'Changed' },
      note: 'an unchanged status is not checked',
    },
    [null, '403 rest_cannot_edit', '200', '200', '200', '200'],
  ),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'draft'), body: { sticky: true } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_assign_sticky',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'draft'), body: { author: '{other}' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit_others',
    '403 rest_cannot_edit_others',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: other(P, 'draft'), body: { author: '{me}' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: own(P, 'draft'), body: { author: 999999 }, note: 'no such user' }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit_others',
    '403 rest_cannot_edit_others',
    '400 rest_invalid_author',
    '400 rest_invalid_author',
  ]),
  row('PUT', '/core/v2/posts/{id}', { item: other(P, 'publish'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('PATCH', '/core/v2/posts/{id}', { item: own(P, 'publish'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}', { item: other(P, 'draft'), body: { title: 'Changed' }, viaBatch: true }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),

  // Deleting.
  row('DELETE', '/core/v2/posts/{id}', { item: own(P, 'draft') }, [
    null,
    '403 rest_cannot_delete',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: own(P, 'pending') }, [
    null,
    '403 rest_cannot_delete',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: own(P, 'publish') }, [
    null,
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: own(P, 'private') }, [
    null,
    '403 rest_cannot_delete',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: own(P, 'future') }, [
    null,
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: other(P, 'draft') }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: other(P, 'publish') }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: other(P, 'private') }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}?force=true', { item: own(P, 'draft') }, [
    null,
    '403 rest_cannot_delete',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}?force=true', { item: other(P, 'publish') }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: own(P, 'trash', { trashedFrom: 'draft' }) }, [
    null,
    '403 rest_cannot_delete',
    '410 rest_already_trashed',
    '410 rest_already_trashed',
    '410 rest_already_trashed',
    '410 rest_already_trashed',
  ]),
  row('DELETE', '/core/v2/posts/{id}?force=true', { item: own(P, 'trash', { trashedFrom: 'publish' }) }, [
    null,
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: other(P, 'trash', { trashedFrom: 'publish' }) }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '410 rest_already_trashed',
    '410 rest_already_trashed',
  ]),
  row('DELETE', '/core/v2/posts/{id}', { item: other(P, 'publish'), viaBatch: true }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),

  // Revisions.
  row('GET', '/core/v2/posts/{id}/revisions', { item: own(P, 'draft', { revised: true }) }, [
    null,
    '403 rest_cannot_read',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}/revisions', { item: own(P, 'publish', { revised: true }) }, [
    null,
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}/revisions', { item: other(P, 'publish', { revised: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row(
    'GET',
    '/core/v2/posts/{id}/revisions?context=edit',
    { item: own(P, 'draft', { revised: true }), note: "the administrator's revision of the caller's draft" },
    [null, '403 rest_cannot_read', '200 raw counted', '200 raw counted', '200 raw counted', '200 raw counted'],
  ),
  row('GET', '/core/v2/posts/{id}/revisions?context=embed', { item: own(P, 'draft', { revised: true }) }, [
    null,
    '403 rest_cannot_read',
    '200 no-raw counted',
    '200 no-raw counted',
    '200 no-raw counted',
    '200 no-raw counted',
  ]),
  row('GET', '/core/v2/posts/{id}/revisions/{revision}', { item: own(P, 'draft', { revised: true }) }, [
    null,
    '403 rest_cannot_read',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}/revisions/{revision}', { item: other(P, 'publish', { revised: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row(
    'DELETE',
    '/core/v2/posts/{id}/revisions/{revision}?force=true',
    { item: own(P, 'draft', { revised: true }), note: 'revisions cannot be deleted by anyone' },
    [
      null,
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
    ],
  ),
  row(
    'DELETE',
    '/core/v2/posts/{id}/revisions/{revision}?force=true',
    { item: other(P, 'publish', { revised: true }) },
    [
      '401 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
    ],
  ),

  // Autosaves.
  row('GET', '/core/v2/posts/{id}/autosaves', { item: own(P, 'draft') }, [
    null,
    '403 rest_cannot_read',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}/autosaves', { item: own(P, 'publish', { autosaved: true }) }, [
    null,
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}/autosaves', { item: other(P, 'publish', { autosaved: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}/autosaves/{autosave}', { item: own(P, 'publish', { autosaved: true }) }, [
    null,
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}/autosaves/{autosave}', { item: other(P, 'publish', { autosaved: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}/autosaves', { item: own(P, 'draft'), body: { content: 'Autosaved words' } }, [
    null,
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}/autosaves', { item: own(P, 'publish'), body: { content: 'Autosaved words' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}/autosaves', { item: other(P, 'draft'), body: { content: 'Autosaved words' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/posts/{id}/autosaves', { item: other(P, 'publish'), body: { content: 'Autosaved words' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/posts/{id}/autosaves',
    { item: own(P, 'draft'), body: { content: 'Autosaved words', sticky: true } },
    [null, '403 rest_cannot_edit', '403 rest_cannot_assign_sticky', '200', '200', '200'],
  ),
  row(
    'POST',
    '/core/v2/posts/{id}/autosaves',
    {
      item: own(P, 'draft'),
      body: { content: 'Autosaved words', status: 'publish' },
      note: 'deliberately unlike WordPress 6.1.9, which answers 200 and saves nothing',
      localOnly: 'a deliberate difference: WordPress 6.1.9 answers a contributor 200 and saves nothing',
    },
    [null, '403 rest_cannot_edit', '403 rest_cannot_publish', '200', '200', '200'],
  ),
  row(
    'POST',
    '/core/v2/posts/{id}/autosaves',
    {
      item: own(P, 'draft'),
      body: { content: 'Autosaved words', status: 'private' },
      localOnly: 'a deliberate difference: WordPress 6.1.9 answers a contributor 200 and saves nothing',
    },
    [null, '403 rest_cannot_edit', '403 rest_cannot_publish', '200', '200', '200'],
  ),
  row(
    'POST',
    '/core/v2/posts/{id}/autosaves',
    { item: own(P, 'draft'), body: { content: 'Autosaved words', status: 'pending' } },
    [null, '403 rest_cannot_edit', '200', '200', '200', '200'],
  ),
  row(
    'GET',
    '/core/v2/posts/{id}/autosaves?context=edit',
    {
      item: own(P, 'draft', { autosaved: true }),
      note: "the administrator's autosave of the caller's draft (the administrator's own draft is saved in place)",
    },
    [null, '403 rest_cannot_read', '200 raw', '200 raw', '200 raw', '200 no-raw'],
  ),
  row('GET', '/core/v2/posts/{id}/autosaves?context=embed', { item: own(P, 'draft', { autosaved: true }) }, [
    null,
    '403 rest_cannot_read',
    '200 no-raw',
    '200 no-raw',
    '200 no-raw',
    '200 no-raw',
  ]),
];

// --- pages (authors and contributors have no page capabilities at all) ------------------------------------------

const G = 'pages';
const pages: Row[] = [
  row('GET', '/core/v2/pages', {}, all('200')),
  row('GET', '/core/v2/pages?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages?include={id}', { item: other(G, 'publish') }, all('200 listed')),
  row('GET', '/core/v2/pages?status=draft&include={id}', { item: own(G, 'draft') }, [
    null,
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/pages?status=draft&include={id}', { item: other(G, 'draft') }, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/pages?status=private&include={id}', { item: own(G, 'private') }, [
    null,
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/pages?status=private&include={id}', { item: other(G, 'private') }, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 listed',
    '200 listed',
  ]),
  row(
    'GET',
    '/core/v2/pages?search={word}',
    { item: other(G, 'publish', { password: 'secret' }), note: 'anonymous searches skip protected items' },
    ['200 unlisted', '200 listed', '200 listed', '200 listed', '200 listed', '200 listed'],
  ),
  row(
    'GET',
    '/core/v2/pages?include={id}',
    { item: other(G, 'publish', { password: 'secret' }) },
    all('200 listed hidden no-raw'),
  ),
  row(
    'GET',
    '/core/v2/pages?context=embed&include={id}',
    { item: other(G, 'publish', { password: 'secret' }) },
    all('200 listed hidden no-raw'),
  ),
  row('GET', '/core/v2/pages?context=edit&include={id}', { item: other(G, 'publish', { password: 'secret' }) }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 listed shown raw',
    '200 listed shown raw',
  ]),
  row(
    'GET',
    '/core/v2/pages?include={id}&_embed',
    { item: other(G, 'publish', { password: 'secret' }) },
    all('200 listed hidden no-raw'),
  ),
  // `_embed` brings a parent only to those who may read it, in the embed context.
  row('GET', '/core/v2/pages?include={child}&_embed', { item: other(G, 'draft', { child: true }) }, [
    '200 listed unembedded no-raw',
    '200 listed unembedded no-raw',
    '200 listed unembedded no-raw',
    '200 listed unembedded no-raw',
    '200 listed embedded no-raw',
    '200 listed embedded no-raw',
  ]),
  row(
    'GET',
    '/core/v2/pages?include={child}&_embed',
    { item: other(G, 'publish', { password: 'secret', child: true }) },
    all('200 listed embedded no-raw'),
  ),
  row('GET', '/core/v2/pages?context=edit&include={child}&_embed', { item: other(G, 'private', { child: true }) }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 listed embedded raw',
    '200 listed embedded raw',
  ]),
  row('GET', '/core/v2/pages/{child}?_embed', { item: other(G, 'private', { child: true }) }, [
    '200 unembedded no-raw',
    '200 unembedded no-raw',
    '200 unembedded no-raw',
    '200 unembedded no-raw',
    '200 embedded no-raw',
    '200 embedded no-raw',
  ]),

  row('POST', '/core/v2/pages', { body: { title: 'New' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/pages', { body: { title: 'New', status: 'publish' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/pages', { body: { title: 'New', status: 'private' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/pages', { body: { title: 'New', author: '{other}' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_edit_others',
    '403 rest_cannot_edit_others',
    '403 rest_cannot_edit_others',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/pages', { body: { title: 'New' }, viaBatch: true }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
  ]),

  row(
    'GET',
    '/core/v2/pages/{id}',
    { item: own(G, 'draft'), note: 'readable by its author, who cannot edit it' },
    signedIn('200'),
  ),
  row('GET', '/core/v2/pages/{id}', { item: own(G, 'private') }, signedIn('200')),
  row('GET', '/core/v2/pages/{id}', { item: own(G, 'trash', { trashedFrom: 'draft' }) }, signedIn('200')),
  row('GET', '/core/v2/pages/{id}', { item: other(G, 'draft') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}', { item: other(G, 'pending') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}', { item: other(G, 'publish') }, all('200')),
  row('GET', '/core/v2/pages/{id}', { item: other(G, 'private') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}', { item: other(G, 'future') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}', { item: other(G, 'trash', { trashedFrom: 'publish' }) }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}?context=edit', { item: own(G, 'draft') }, [
    null,
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}?context=edit', { item: other(G, 'publish') }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}', { item: other(G, 'publish', { password: 'secret' }) }, all('200 hidden')),
  row(
    'GET',
    '/core/v2/pages/{id}?password=secret',
    { item: other(G, 'publish', { password: 'secret' }) },
    all('200 shown'),
  ),

  row('POST', '/core/v2/pages/{id}', { item: own(G, 'draft'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/pages/{id}', { item: own(G, 'publish'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/pages/{id}', { item: own(G, 'private'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/pages/{id}', { item: other(G, 'draft'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/pages/{id}', { item: other(G, 'publish'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/pages/{id}', { item: other(G, 'private'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('PUT', '/core/v2/pages/{id}', { item: other(G, 'publish'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('PATCH', '/core/v2/pages/{id}', { item: own(G, 'draft'), body: { title: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/pages/{id}', { item: own(G, 'draft'), body: { author: '{other}' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/pages/{id}', { item: other(G, 'draft'), body: { title: 'Changed' }, viaBatch: true }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),

  row('DELETE', '/core/v2/pages/{id}', { item: own(G, 'draft') }, [
    null,
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/pages/{id}', { item: other(G, 'publish') }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/pages/{id}', { item: other(G, 'private') }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/pages/{id}?force=true', { item: other(G, 'draft') }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/pages/{id}', { item: other(G, 'trash', { trashedFrom: 'publish' }) }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '410 rest_already_trashed',
    '410 rest_already_trashed',
  ]),
  row('DELETE', '/core/v2/pages/{id}', { item: other(G, 'publish'), viaBatch: true }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),

  row('GET', '/core/v2/pages/{id}/revisions', { item: own(G, 'draft', { revised: true }) }, [
    null,
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}/revisions', { item: other(G, 'publish', { revised: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}/revisions/{revision}', { item: other(G, 'publish', { revised: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row(
    'DELETE',
    '/core/v2/pages/{id}/revisions/{revision}?force=true',
    { item: other(G, 'publish', { revised: true }) },
    [
      '401 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
      '403 rest_cannot_delete',
    ],
  ),

  row('GET', '/core/v2/pages/{id}/autosaves', { item: own(G, 'draft') }, [
    null,
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}/autosaves', { item: other(G, 'publish', { autosaved: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}/autosaves/{autosave}', { item: other(G, 'publish', { autosaved: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/pages/{id}/autosaves', { item: own(G, 'draft'), body: { content: 'Autosaved words' } }, [
    null,
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/pages/{id}/autosaves', { item: other(G, 'publish'), body: { content: 'Autosaved words' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
];

// --- categories and tags (managing terms takes manage_categories; creating a tag only edit_posts) ----------------

const C = { taxonomy: 'categories' } as const;
const T = { taxonomy: 'tags' } as const;
const terms: Row[] = [
  row('GET', '/core/v2/categories', {}, all('200')),
  row('GET', '/core/v2/categories?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/categories?context=edit&include={term}', { term: C }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 listed',
    '200 listed',
  ]),
  row('GET', '/core/v2/categories?context=embed&include={term}', { term: C }, all('200 listed')),
  row('GET', '/core/v2/categories?post={id}', { item: own(P, 'draft') }, signedIn('200')),
  row('GET', '/core/v2/categories?post={id}', { item: other(P, 'draft') }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/categories?post={id}', { item: other(P, 'publish') }, all('200')),
  row('POST', '/core/v2/categories', { body: { name: '{unique}' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/categories', { body: { name: '{unique}' }, viaBatch: true }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
  ]),
  row('GET', '/core/v2/categories/{term}', { term: C }, all('200')),
  row('GET', '/core/v2/categories/{term}?context=edit', { term: C }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/categories/{term}', { term: C, body: { description: 'Changed' } }, [
    '401 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '200',
    '200',
  ]),
  row('PUT', '/core/v2/categories/{term}', { term: C, body: { description: 'Changed' } }, [
    '401 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '200',
    '200',
  ]),
  row('PATCH', '/core/v2/categories/{term}', { term: C, body: { description: 'Changed' } }, [
    '401 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/categories/{term}?force=true', { term: C }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/categories/{term}', { term: C, note: 'terms cannot be trashed' }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '501 rest_trash_not_supported',
    '501 rest_trash_not_supported',
  ]),
  row('DELETE', '/core/v2/categories/1?force=true', { note: 'the default category' }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
  ]),

  row('GET', '/core/v2/tags', {}, all('200')),
  row('GET', '/core/v2/tags?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/tags?context=edit&include={term}', { term: T }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 listed',
    '200 listed',
  ]),
  row('POST', '/core/v2/tags', { body: { name: '{unique}' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
    '201',
    '201',
  ]),
  row('GET', '/core/v2/tags/{term}', { term: T }, all('200')),
  row('GET', '/core/v2/tags/{term}?context=edit', { term: T }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/tags/{term}', { term: T, body: { description: 'Changed' } }, [
    '401 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '200',
    '200',
  ]),
  row('PUT', '/core/v2/tags/{term}', { term: T, body: { description: 'Changed' } }, [
    '401 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '200',
    '200',
  ]),
  row('PATCH', '/core/v2/tags/{term}', { term: T, body: { description: 'Changed' } }, [
    '401 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '403 rest_cannot_update',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/tags/{term}?force=true', { term: T }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
];

// --- media (uploading takes upload_files; an unattached image is neither published nor private for edit rights) ---

const OWN_IMAGE = { owner: 'own' } as const;
const OTHER_IMAGE = { owner: 'other' } as const;
const EDITORS = (code: string, ok: string): Cells => [
  `401 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  ok,
  ok,
];
const media: Row[] = [
  row('GET', '/core/v2/media', {}, all('200')),
  row('GET', '/core/v2/media?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/media?include={id}', { media: OTHER_IMAGE }, all('200 listed')),
  row('GET', '/core/v2/media?context=embed&include={id}', { media: OTHER_IMAGE }, all('200 listed no-raw')),
  row('GET', '/core/v2/media?context=edit&include={id}', { media: OWN_IMAGE }, [
    null,
    '403 rest_forbidden_context',
    '200 listed raw',
    '200 listed raw',
    '200 listed raw',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/media?context=edit&include={id}', { media: OTHER_IMAGE }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 unlisted no-raw counted',
    '200 unlisted no-raw counted',
    '200 listed raw',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/media?context=edit&include={id}&_embed', { media: OTHER_IMAGE }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 unlisted no-raw counted',
    '200 unlisted no-raw counted',
    '200 listed raw',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/media?status=private', {}, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200',
    '200',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/media', { upload: true, note: 'contributors cannot upload' }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
    '201',
  ]),
  row('GET', '/core/v2/media/{id}', { media: OTHER_IMAGE }, all('200')),
  row('GET', '/core/v2/media/{id}?context=edit', { media: OWN_IMAGE }, [
    null,
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/media/{id}?context=edit', { media: OTHER_IMAGE }, EDITORS('rest_forbidden_context', '200')),
  row('POST', '/core/v2/media/{id}', { media: OWN_IMAGE, body: { alt_text: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/media/{id}',
    { media: OTHER_IMAGE, body: { alt_text: 'Changed' } },
    EDITORS('rest_cannot_edit', '200'),
  ),
  row(
    'PUT',
    '/core/v2/media/{id}',
    { media: OTHER_IMAGE, body: { alt_text: 'Changed' } },
    EDITORS('rest_cannot_edit', '200'),
  ),
  row('PATCH', '/core/v2/media/{id}', { media: OWN_IMAGE, body: { alt_text: 'Changed' } }, [
    null,
    '403 rest_cannot_edit',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/media/{id}', { media: OWN_IMAGE, note: 'attachments cannot be trashed' }, [
    null,
    '403 rest_cannot_delete',
    '501 rest_trash_not_supported',
    '501 rest_trash_not_supported',
    '501 rest_trash_not_supported',
    '501 rest_trash_not_supported',
  ]),
  row('DELETE', '/core/v2/media/{id}?force=true', { media: OWN_IMAGE }, [
    null,
    '403 rest_cannot_delete',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/media/{id}?force=true', { media: OTHER_IMAGE }, EDITORS('rest_cannot_delete', '200')),
  row(
    'POST',
    '/core/v2/media/{id}/post-process',
    { media: OTHER_IMAGE, body: { action: 'create-image-subsizes' } },
    EDITORS('rest_cannot_edit', '200'),
  ),
  row('POST', '/core/v2/media/{id}/edit', { media: OTHER_IMAGE, body: { src: '{src}', rotation: 90 } }, [
    '401 rest_cannot_edit_image',
    '403 rest_cannot_edit_image',
    '403 rest_cannot_edit_image',
    '403 rest_cannot_edit',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/media/{id}/edit', { media: OWN_IMAGE, body: { src: '{src}', rotation: 90 } }, [
    null,
    '403 rest_cannot_edit_image',
    '403 rest_cannot_edit_image',
    '201',
    '201',
    '201',
  ]),
  row(
    'GET',
    '/core/v2/media/{id}/history',
    { media: OWN_IMAGE, localOnly: 'an extension: WordPress has no such route' },
    [null, '403 rest_cannot_read', '200', '200', '200', '200'],
  ),
  row(
    'GET',
    '/core/v2/media/{id}/history',
    { media: OTHER_IMAGE, localOnly: 'an extension: WordPress has no such route' },
    EDITORS('rest_cannot_read', '200'),
  ),
];

// --- users (self-service for everyone; others' details and management for administrators) -----------------------

const SELF = { user: 'self' } as const;
const OTHER_PUBLISHED = { user: 'other', withPublishedPost: true } as const;
const FRESH = { user: 'fresh' } as const;
const ADMIN_ONLY = (code: string, ok: string): Cells => [
  `401 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  ok,
];
const users: Row[] = [
  row('GET', '/core/v2/users', {}, all('200')),
  row('GET', '/core/v2/users?context=edit', {}, ADMIN_ONLY('rest_forbidden_context', '200')),
  row('GET', '/core/v2/users?roles=subscriber', {}, ADMIN_ONLY('rest_user_cannot_view', '200')),
  row('GET', '/core/v2/users?capabilities=edit_posts', {}, ADMIN_ONLY('rest_user_cannot_view', '200')),
  row('GET', '/core/v2/users?orderby=email', {}, ADMIN_ONLY('rest_forbidden_orderby', '200')),
  row('GET', '/core/v2/users?who=authors', {}, [
    '401 rest_forbidden_who',
    '403 rest_forbidden_who',
    '200',
    '200',
    '200',
    '200',
  ]),
  row(
    'GET',
    '/core/v2/users?include={user}',
    { users: FRESH, note: 'only users with published posts are listed to those who cannot list users' },
    ['200 unlisted', '200 unlisted', '200 unlisted', '200 unlisted', '200 unlisted', '200 listed'],
  ),
  row('GET', '/core/v2/users?include={user}', { users: OTHER_PUBLISHED }, all('200 listed')),
  row(
    'GET',
    '/core/v2/users?context=edit&include={user}',
    { users: OTHER_PUBLISHED },
    ADMIN_ONLY('rest_forbidden_context', '200 listed'),
  ),
  row('GET', '/core/v2/users?context=embed&include={user}', { users: OTHER_PUBLISHED }, all('200 listed')),
  row(
    'POST',
    '/core/v2/users',
    { body: { username: '{unique}', email: '{unique}@example.test', password: 'Long-enough-1' } },
    ADMIN_ONLY('rest_cannot_create_user', '201'),
  ),
  row('GET', '/core/v2/users/{user}', { users: SELF }, signedIn('200')),
  row('GET', '/core/v2/users/{user}?context=edit', { users: SELF }, signedIn('200')),
  row('GET', '/core/v2/users/{user}', { users: OTHER_PUBLISHED }, all('200')),
  row(
    'GET',
    '/core/v2/users/{user}?context=edit',
    { users: OTHER_PUBLISHED },
    ADMIN_ONLY('rest_forbidden_context', '200'),
  ),
  row('GET', '/core/v2/users/{user}', { users: FRESH }, ADMIN_ONLY('rest_user_cannot_view', '200')),
  row('POST', '/core/v2/users/{user}', { users: SELF, body: { locale: 'en_US' } }, signedIn('200')),
  row('PUT', '/core/v2/users/{user}', { users: SELF, body: { locale: 'en_US' } }, signedIn('200')),
  row(
    'PATCH',
    '/core/v2/users/{user}',
    { users: FRESH, body: { locale: 'en_US' } },
    ADMIN_ONLY('rest_cannot_edit', '200'),
  ),
  row(
    'POST',
    '/core/v2/users/{user}',
    { users: FRESH, body: { locale: 'en_US' } },
    ADMIN_ONLY('rest_cannot_edit', '200'),
  ),
  // Anonymous: the body is not read (docs/compatibility.md), so the general refusal.
  row('POST', '/core/v2/users/{user}', { users: FRESH, body: { roles: ['editor'] } }, [
    '401 rest_cannot_edit',
    ...ADMIN_ONLY('rest_cannot_edit_roles', '200').slice(1),
  ] as Cells),
  row('POST', '/core/v2/users/{user}', { users: SELF, body: { roles: ['administrator'] } }, [
    null,
    '403 rest_cannot_edit_roles',
    '403 rest_cannot_edit_roles',
    '403 rest_cannot_edit_roles',
    '403 rest_cannot_edit_roles',
    '200',
  ]),
  row(
    'DELETE',
    '/core/v2/users/{user}?force=true&reassign={other}',
    { users: FRESH },
    ADMIN_ONLY('rest_user_cannot_delete', '200'),
  ),
  row(
    'DELETE',
    '/core/v2/users/{user}?reassign={other}',
    { users: FRESH, note: 'users cannot be trashed' },
    ADMIN_ONLY('rest_user_cannot_delete', '501 rest_trash_not_supported'),
  ),
  row('GET', '/core/v2/users/me', {}, ['401 rest_not_logged_in', '200', '200', '200', '200', '200']),
  row('POST', '/core/v2/users/me', { body: { locale: 'en_US' } }, [
    '404 rest_user_invalid_id',
    '200',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('PUT', '/core/v2/users/me', { body: { locale: 'en_US' } }, [
    '404 rest_user_invalid_id',
    '200',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('PATCH', '/core/v2/users/me', { body: { locale: 'en_US' } }, [
    '404 rest_user_invalid_id',
    '200',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/users/me?reassign={other}', { note: 'without force, so nobody is deleted' }, [
    '404 rest_user_invalid_id',
    '403 rest_user_cannot_delete',
    '403 rest_user_cannot_delete',
    '403 rest_user_cannot_delete',
    '403 rest_user_cannot_delete',
    '501 rest_trash_not_supported',
  ]),
];

// --- application passwords (one's own: everyone; someone else's: administrators) --------------------------------

const SELF_AP = { user: 'self', applicationPassword: true } as const;
const OTHER_AP = { user: 'other', applicationPassword: true } as const;
const FRESH_AP = { user: 'fresh', applicationPassword: true } as const;
const applicationPasswords: Row[] = [
  row('GET', '/core/v2/users/{user}/application-passwords', { users: SELF }, signedIn('200')),
  row(
    'GET',
    '/core/v2/users/{user}/application-passwords',
    { users: OTHER_PUBLISHED },
    ADMIN_ONLY('rest_cannot_list_application_passwords', '200'),
  ),
  row('GET', '/core/v2/users/me/application-passwords', {}, [
    '401 rest_not_logged_in',
    '200',
    '200',
    '200',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/users/{user}/application-passwords',
    { users: SELF, body: { name: 'From the table' } },
    signedIn('201'),
  ),
  row(
    'POST',
    '/core/v2/users/{user}/application-passwords',
    { users: FRESH, body: { name: 'From the table' } },
    ADMIN_ONLY('rest_cannot_create_application_passwords', '201'),
  ),
  row(
    'DELETE',
    '/core/v2/users/{user}/application-passwords',
    { users: FRESH_AP },
    ADMIN_ONLY('rest_cannot_delete_application_passwords', '200'),
  ),
  row(
    'DELETE',
    '/core/v2/users/{user}/application-passwords',
    {
      users: SELF_AP,
      asFreshCaller: true,
      note: 'the caller is a new user of the role: this revokes the password they sign in with',
    },
    signedIn('200'),
  ),
  row('GET', '/core/v2/users/{user}/application-passwords/introspect', { users: SELF }, signedIn('200')),
  row('GET', '/core/v2/users/{user}/application-passwords/introspect', { users: OTHER_PUBLISHED }, [
    '401 rest_cannot_introspect_app_password_for_non_authenticated_user',
    '403 rest_cannot_introspect_app_password_for_non_authenticated_user',
    '403 rest_cannot_introspect_app_password_for_non_authenticated_user',
    '403 rest_cannot_introspect_app_password_for_non_authenticated_user',
    '403 rest_cannot_introspect_app_password_for_non_authenticated_user',
    '403 rest_cannot_introspect_app_password_for_non_authenticated_user',
  ]),
  row('GET', '/core/v2/users/me/application-passwords/introspect', {}, [
    '401 rest_not_logged_in',
    '200',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/users/{user}/application-passwords/{uuid}', { users: SELF_AP }, signedIn('200')),
  row(
    'GET',
    '/core/v2/users/{user}/application-passwords/{uuid}',
    { users: OTHER_AP },
    ADMIN_ONLY('rest_cannot_read_application_password', '200'),
  ),
  row(
    'POST',
    '/core/v2/users/{user}/application-passwords/{uuid}',
    { users: SELF_AP, body: { name: 'Renamed' } },
    signedIn('200'),
  ),
  row(
    'PUT',
    '/core/v2/users/{user}/application-passwords/{uuid}',
    { users: OTHER_AP, body: { name: 'Renamed' } },
    ADMIN_ONLY('rest_cannot_edit_application_password', '200'),
  ),
  row(
    'PATCH',
    '/core/v2/users/{user}/application-passwords/{uuid}',
    { users: OTHER_AP, body: { name: 'Renamed' } },
    ADMIN_ONLY('rest_cannot_edit_application_password', '200'),
  ),
  row(
    'POST',
    '/core/v2/users/{user}/application-passwords/{uuid}',
    { users: OTHER_AP, body: { name: 'Renamed' } },
    ADMIN_ONLY('rest_cannot_edit_application_password', '200'),
  ),
  row('DELETE', '/core/v2/users/{user}/application-passwords/{uuid}', { users: SELF_AP }, signedIn('200')),
  row(
    'DELETE',
    '/core/v2/users/{user}/application-passwords/{uuid}',
    { users: OTHER_AP },
    ADMIN_ONLY('rest_cannot_delete_application_password', '200'),
  ),
];

// --- menus, menu items and menu locations (reading takes edit_posts or edit_theme_options; writing edit_theme_options) ---

const MENU = { taxonomy: 'menus' } as const;
const MENU_ITEM = { taxonomy: 'menu-items' } as const;
const READERS = (code: string): Cells => [`401 ${code}`, `403 ${code}`, '200', '200', '200', '200'];
const MANAGERS = (code: string, success: string): Cells => [
  `401 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  success,
];
const menuRows: Row[] = [
  row('GET', '/core/v2/menu-items', {}, READERS('rest_cannot_view')),
  row('GET', '/core/v2/menu-items?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
  ]),
  row('GET', '/core/v2/menu-items?context=edit&include={term}', { term: MENU_ITEM }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/menu-items?context=embed&include={term}', { term: MENU_ITEM }, [
    '401 rest_cannot_view',
    '403 rest_cannot_view',
    '200 listed no-raw',
    '200 listed no-raw',
    '200 listed no-raw',
    '200 listed no-raw',
  ]),
  row(
    'GET',
    '/core/v2/menu-items/{term}/autosaves?context=edit',
    { term: { ...MENU_ITEM, autosaved: true } },
    MANAGERS('rest_cannot_read', '200 raw'),
  ),
  row(
    'POST',
    '/core/v2/menu-items',
    { body: { title: '{unique}', url: 'https://example.com/' } },
    MANAGERS('rest_cannot_create', '201'),
  ),
  row(
    'POST',
    '/core/v2/menu-items',
    { body: { title: '{unique}', url: 'https://example.com/' }, viaBatch: true },
    MANAGERS('rest_cannot_create', '201'),
  ),
  row('GET', '/core/v2/menu-items/{term}', { term: MENU_ITEM }, READERS('rest_cannot_view')),
  row(
    'GET',
    '/core/v2/menu-items/{term}?context=edit',
    { term: MENU_ITEM },
    MANAGERS('rest_forbidden_context', '200 raw'),
  ),
  row(
    'POST',
    '/core/v2/menu-items/{term}',
    { term: MENU_ITEM, body: { description: 'Changed' } },
    MANAGERS('rest_cannot_edit', '200'),
  ),
  row(
    'PUT',
    '/core/v2/menu-items/{term}',
    { term: MENU_ITEM, body: { description: 'Changed' } },
    MANAGERS('rest_cannot_edit', '200'),
  ),
  row(
    'PATCH',
    '/core/v2/menu-items/{term}',
    { term: MENU_ITEM, body: { description: 'Changed' } },
    MANAGERS('rest_cannot_edit', '200'),
  ),
  row('DELETE', '/core/v2/menu-items/{term}?force=true', { term: MENU_ITEM }, MANAGERS('rest_cannot_delete', '200')),
  row(
    'DELETE',
    '/core/v2/menu-items/{term}',
    { term: MENU_ITEM, note: 'menu items cannot be trashed' },
    MANAGERS('rest_cannot_delete', '501 rest_trash_not_supported'),
  ),
  // Autosaves of a menu item take what editing it takes (edit_theme_options).
  row('GET', '/core/v2/menu-items/{term}/autosaves', { term: MENU_ITEM }, MANAGERS('rest_cannot_read', '200')),
  row(
    'POST',
    '/core/v2/menu-items/{term}/autosaves',
    { term: MENU_ITEM, body: { title: 'Changed' } },
    MANAGERS('rest_cannot_edit', '200'),
  ),
  row(
    'GET',
    '/core/v2/menu-items/{term}/autosaves/{autosave}',
    { term: { ...MENU_ITEM, autosaved: true } },
    MANAGERS('rest_cannot_read', '200'),
  ),
  row('GET', '/core/v2/menus', {}, READERS('rest_cannot_view')),
  row('GET', '/core/v2/menus?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
  ]),
  row('GET', '/core/v2/menus?context=edit&include={term}', { term: MENU }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 listed',
  ]),
  row('POST', '/core/v2/menus', { body: { name: '{unique}' } }, MANAGERS('rest_cannot_create', '201')),
  row('GET', '/core/v2/menus/{term}', { term: MENU }, READERS('rest_cannot_view')),
  row('GET', '/core/v2/menus/{term}?context=edit', { term: MENU }, MANAGERS('rest_forbidden_context', '200')),
  row(
    'POST',
    '/core/v2/menus/{term}',
    { term: MENU, body: { description: 'Changed' } },
    MANAGERS('rest_cannot_update', '200'),
  ),
  row(
    'PUT',
    '/core/v2/menus/{term}',
    { term: MENU, body: { description: 'Changed' } },
    MANAGERS('rest_cannot_update', '200'),
  ),
  row(
    'PATCH',
    '/core/v2/menus/{term}',
    { term: MENU, body: { description: 'Changed' } },
    MANAGERS('rest_cannot_update', '200'),
  ),
  row('DELETE', '/core/v2/menus/{term}?force=true', { term: MENU }, MANAGERS('rest_cannot_delete', '200')),
  row('GET', '/core/v2/menu-locations', {}, MANAGERS('rest_cannot_view', '200')),
  row(
    'GET',
    '/core/v2/menu-locations/primary',
    { note: 'no theme, so no location' },
    MANAGERS('rest_cannot_view', '404 rest_menu_location_invalid'),
  ),
];

// --- reusable blocks (reading takes edit_posts, creating publish_posts; WordPress 6.1 maps four block capabilities of
// an item's own check to names no role has: nobody deletes their own unpublished block, nor reads, edits or deletes
// someone else's private one) ---------------------------------------------------------------------------------------

const B = 'blocks';
/** A row about one's own block: only authors and up make blocks. */
const OWN_BLOCK = (author: string, editor: string, administrator: string): Cells => [
  null,
  null,
  null,
  author,
  editor,
  administrator,
];
const blocks: Row[] = [
  row('GET', '/core/v2/blocks', {}, all('200')),
  row(
    'GET',
    '/core/v2/blocks?include={id}',
    { item: other(B, 'publish'), note: 'those who may not read it are not given it, yet it is counted' },
    ['200 unlisted counted', '200 unlisted counted', '200 listed', '200 listed', '200 listed', '200 listed'],
  ),
  row('GET', '/core/v2/blocks?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/blocks?context=edit&include={id}', { item: other(B, 'publish') }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200 unlisted counted',
    '200 unlisted counted',
    '200 listed raw',
    '200 listed raw',
  ]),
  row('GET', '/core/v2/blocks?status=private&include={id}', { item: other(B, 'private') }, [
    `400 ${FORBIDDEN_STATUS}`,
    `400 ${FORBIDDEN_STATUS}`,
    '200 unlisted counted',
    '200 unlisted counted',
    '200 unlisted counted',
    '200 unlisted counted',
  ]),
  row('POST', '/core/v2/blocks', { body: { title: 'New block', content: 'Shared text', status: 'publish' } }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
    '201',
  ]),
  row('POST', '/core/v2/blocks', { body: { title: 'New block', status: 'publish' }, viaBatch: true }, [
    '401 rest_cannot_create',
    '403 rest_cannot_create',
    '403 rest_cannot_create',
    '201',
    '201',
    '201',
  ]),
  row('GET', '/core/v2/blocks/{id}', { item: other(B, 'publish') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/blocks/{id}', { item: own(B, 'draft') }, OWN_BLOCK('200', '200', '200')),
  row('GET', '/core/v2/blocks/{id}', { item: other(B, 'draft') }, [
    '401 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '403 rest_forbidden',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/blocks/{id}', { item: other(B, 'private') }, [
    '401 rest_forbidden',
    ...Array<string>(5).fill('403 rest_forbidden'),
  ] as Cells),
  row('GET', '/core/v2/blocks/{id}?context=edit', { item: other(B, 'publish') }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/blocks/{id}?context=edit', { item: own(B, 'publish') }, OWN_BLOCK('200', '200', '200')),
  row('POST', '/core/v2/blocks/{id}', { item: other(B, 'publish'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row(
    'PUT',
    '/core/v2/blocks/{id}',
    { item: own(B, 'publish'), body: { title: 'Changed' } },
    OWN_BLOCK('200', '200', '200'),
  ),
  row('PATCH', '/core/v2/blocks/{id}', { item: other(B, 'private'), body: { title: 'Changed' } }, [
    '401 rest_cannot_edit',
    ...Array<string>(5).fill('403 rest_cannot_edit'),
  ] as Cells),
  row('DELETE', '/core/v2/blocks/{id}', { item: other(B, 'publish') }, [
    '401 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '403 rest_cannot_delete',
    '200',
    '200',
  ]),
  row('DELETE', '/core/v2/blocks/{id}?force=true', { item: own(B, 'publish') }, OWN_BLOCK('200', '200', '200')),
  row(
    'DELETE',
    '/core/v2/blocks/{id}',
    { item: own(B, 'draft') },
    OWN_BLOCK('403 rest_cannot_delete', '403 rest_cannot_delete', '403 rest_cannot_delete'),
  ),
  row('GET', '/core/v2/blocks/{id}/revisions', { item: other(B, 'publish', { revised: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row(
    'GET',
    '/core/v2/blocks/{id}/revisions/{revision}',
    { item: own(B, 'publish', { revised: true }) },
    OWN_BLOCK('200', '200', '200'),
  ),
  row(
    'DELETE',
    '/core/v2/blocks/{id}/revisions/{revision}?force=true',
    { item: other(B, 'publish', { revised: true }), note: 'WordPress 6.1 lets nobody delete a revision' },
    ['401 rest_cannot_delete', ...Array<string>(5).fill('403 rest_cannot_delete')] as Cells,
  ),
  row('GET', '/core/v2/blocks/{id}/autosaves', { item: other(B, 'publish') }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('POST', '/core/v2/blocks/{id}/autosaves', { item: other(B, 'publish'), body: { content: 'Autosaved' } }, [
    '401 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '403 rest_cannot_edit',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/blocks/{id}/autosaves/{autosave}', { item: other(B, 'publish', { autosaved: true }) }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
];

// --- the block editor's theme, global styles, patterns and templates (a classic theme here, a block theme on the
// reference: the answers differ, who may have them does not) --------------------------------------------------------

const THEME_OPTIONS = (code: string, ok = '200'): Cells => [
  `401 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  `403 ${code}`,
  ok,
];
const EDITING = (code: string): Cells => [`401 ${code}`, `403 ${code}`, '200', '200', '200', '200'];
/** Sends the title the record already has, so that the reference's own styles stay as they are. */
const UNCHANGED_STYLES = { title: 'Custom Styles' };
const editorRows: Row[] = [
  row('GET', '/core/v2/themes?status=active', {}, EDITING('rest_cannot_view_active_theme')),
  row('GET', '/core/v2/themes', {}, THEME_OPTIONS('rest_cannot_view_themes')),
  row('GET', '/core/v2/themes/{theme}', {}, EDITING('rest_cannot_view_active_theme')),
  row('GET', '/core/v2/global-styles/themes/{theme}', {}, THEME_OPTIONS('rest_cannot_manage_global_styles')),
  row('GET', '/core/v2/global-styles/themes/{theme}/variations', {}, THEME_OPTIONS('rest_cannot_manage_global_styles')),
  row('GET', '/core/v2/global-styles/{styles}', {}, THEME_OPTIONS('rest_cannot_view')),
  row('GET', '/core/v2/global-styles/{styles}?context=edit', {}, THEME_OPTIONS('rest_forbidden_context')),
  row('POST', '/core/v2/global-styles/{styles}', { body: UNCHANGED_STYLES }, THEME_OPTIONS('rest_cannot_edit')),
  row('PUT', '/core/v2/global-styles/{styles}', { body: UNCHANGED_STYLES }, THEME_OPTIONS('rest_cannot_edit')),
  row('PATCH', '/core/v2/global-styles/{styles}', { body: UNCHANGED_STYLES }, THEME_OPTIONS('rest_cannot_edit')),
  row('GET', '/core/v2/block-patterns/patterns', {}, EDITING('rest_cannot_view')),
  row('GET', '/core/v2/block-patterns/categories', {}, EDITING('rest_cannot_view')),
  row('GET', '/core/v2/templates', {}, THEME_OPTIONS('rest_cannot_manage_templates')),
  row('GET', '/core/v2/templates/lookup?slug=front-page', {}, THEME_OPTIONS('rest_cannot_manage_templates')),
  row(
    'GET',
    '/core/v2/templates/{theme}//permission-table-none',
    { note: 'no such template' },
    THEME_OPTIONS('rest_cannot_manage_templates', '404 rest_template_not_found'),
  ),
];

// --- post types, statuses and taxonomies (edit contexts take editing some type, or assigning the taxonomy's terms) ---

const EDIT_CONTEXT = (code: string): Cells => [`401 ${code}`, `403 ${code}`, '200', '200', '200', '200'];
const THEME_EDIT_CONTEXT: Cells = [
  '401 rest_forbidden_context',
  ...Array<string>(4).fill('403 rest_forbidden_context'),
  '200',
] as Cells;
const LISTED_NAMESPACE = 'WordPress names it with a wp- prefix (the compat tool compares it)';
const descriptions: Row[] = [
  row('GET', '/core/v2/types', {}, all('200')),
  row(
    'GET',
    '/core/v2/types?context=edit',
    { note: 'lists only the types the caller may edit' },
    EDIT_CONTEXT('rest_cannot_view'),
  ),
  row('GET', '/core/v2/types/post?context=edit', {}, EDIT_CONTEXT('rest_forbidden_context')),
  row('GET', '/core/v2/types/page?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/types/nav_menu_item?context=edit', {}, THEME_EDIT_CONTEXT),
  row('GET', '/core/v2/types/revision', { note: 'a type not shown in REST' }, [
    '401 rest_cannot_read_type',
    ...Array<string>(5).fill('403 rest_cannot_read_type'),
  ] as Cells),
  row('GET', '/core/v2/statuses', { note: 'anonymous callers and subscribers see only publish' }, all('200')),
  row('GET', '/core/v2/statuses?context=edit', {}, EDIT_CONTEXT('rest_cannot_view')),
  row('GET', '/core/v2/statuses/publish?context=edit', {}, all('200')),
  row('GET', '/core/v2/statuses/draft', {}, EDIT_CONTEXT('rest_cannot_read_status')),
  row('GET', '/core/v2/statuses/inherit', { note: 'an internal status' }, [
    '401 rest_cannot_read_status',
    ...Array<string>(5).fill('403 rest_cannot_read_status'),
  ] as Cells),
  row('GET', '/core/v2/taxonomies', {}, all('200')),
  row(
    'GET',
    '/core/v2/taxonomies?context=edit',
    { note: 'lists only the taxonomies whose terms the caller may assign' },
    EDIT_CONTEXT('rest_cannot_view'),
  ),
  row('GET', '/core/v2/taxonomies/category?context=edit', {}, EDIT_CONTEXT('rest_forbidden_context')),
  row('GET', '/core/v2/taxonomies/nav_menu?context=edit', {}, THEME_EDIT_CONTEXT),
  row('GET', '/core/v2/taxonomies/post_format', { note: 'a taxonomy not shown in REST' }, [
    '401 rest_forbidden',
    ...Array<string>(5).fill('403 rest_forbidden'),
  ] as Cells),
  row('GET', '/site-health/v1', { localOnly: LISTED_NAMESPACE }, all('200')),
  row('GET', '/block-editor/v1', { localOnly: LISTED_NAMESPACE }, all('200')),
];

// --- site settings and search ------------------------------------------------------------------------------

/** Sends the value the setting already has, so that the reference's own settings stay as they are. */
const UNCHANGED_SETTING = { default_ping_status: 'open' };
const siteRows: Row[] = [
  row('GET', '/core/v2/settings', {}, ADMIN_ONLY('rest_forbidden', '200')),
  row('POST', '/core/v2/settings', { body: UNCHANGED_SETTING }, ADMIN_ONLY('rest_forbidden', '200')),
  row('PUT', '/core/v2/settings', { body: UNCHANGED_SETTING }, ADMIN_ONLY('rest_forbidden', '200')),
  row('PATCH', '/core/v2/settings', { body: UNCHANGED_SETTING }, ADMIN_ONLY('rest_forbidden', '200')),
  row('GET', '/core/v2/search?search={word}', { item: other(P, 'publish') }, all('200 listed')),
  row('GET', '/core/v2/search?search={word}', { item: own(P, 'draft'), note: 'published items only, whoever asks' }, [
    null,
    '200 unlisted',
    '200 unlisted',
    '200 unlisted',
    '200 unlisted',
    '200 unlisted',
  ]),
  row('GET', '/core/v2/search?search={word}', { item: other(P, 'private') }, all('200 unlisted')),
  row(
    'GET',
    '/core/v2/search?search={word}',
    { item: other(G, 'publish', { password: 'secret' }), note: 'anonymous searches skip protected items' },
    ['200 unlisted', '200 listed', '200 listed', '200 listed', '200 listed', '200 listed'],
  ),
  row('GET', '/core/v2/search?type=term', {}, all('200')),
];

// --- extensions of ours (no WordPress counterpart: the cells are the rules docs/history.md and docs/projections.md state) ---

const EXTENSION = 'an extension: WordPress has no such route';
const extensions: Row[] = [
  row('GET', '/core/v2/posts/{id}/history', { item: own(P, 'draft'), localOnly: EXTENSION }, [
    null,
    '403 rest_cannot_read',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}/history', { item: own(P, 'publish'), localOnly: EXTENSION }, [
    null,
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}/history', { item: other(P, 'publish'), localOnly: EXTENSION }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}/history', { item: own(G, 'draft'), localOnly: EXTENSION }, [
    null,
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/pages/{id}/history', { item: other(G, 'publish'), localOnly: EXTENSION }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/blocks/{id}/history', { item: other('blocks', 'publish'), localOnly: EXTENSION }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/blocks/{id}/revisions/{revision}/restore',
    { item: other('blocks', 'publish', { revised: true }), localOnly: EXTENSION },
    ['401 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '200', '200'],
  ),
  row('GET', '/core/v2/posts/{id}?as_of=2034-01-01T00:00:00', { item: own(P, 'draft'), localOnly: EXTENSION }, [
    null,
    '403 rest_cannot_read',
    '200',
    '200',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/posts/{id}?as_of=2034-01-01T00:00:00', { item: other(P, 'publish'), localOnly: EXTENSION }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/posts/{id}/revisions/{revision}/restore',
    { item: own(P, 'draft', { revised: true }), localOnly: EXTENSION },
    [null, '403 rest_cannot_edit', '200', '200', '200', '200'],
  ),
  row(
    'POST',
    '/core/v2/posts/{id}/revisions/{revision}/restore',
    { item: other(P, 'publish', { revised: true }), localOnly: EXTENSION },
    ['401 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '200', '200'],
  ),
  row(
    'POST',
    '/core/v2/pages/{id}/revisions/{revision}/restore',
    { item: own(G, 'draft', { revised: true }), localOnly: EXTENSION },
    [null, '403 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '200', '200'],
  ),
  row(
    'POST',
    '/core/v2/pages/{id}/revisions/{revision}/restore',
    { item: other(G, 'publish', { revised: true }), localOnly: EXTENSION },
    ['401 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '200', '200'],
  ),
  row('GET', '/audit/v1', { localOnly: EXTENSION }, all('200')),
  row('GET', '/audit/v1/events', { localOnly: EXTENSION }, ADMIN_ONLY('rest_forbidden', '200')),
  // follow=false: the feed ends once it reaches the end of the log, so an allowed request has a whole answer too.
  row('GET', '/audit/v1/stream?follow=false', { localOnly: EXTENSION }, ADMIN_ONLY('rest_forbidden', '200')),
  row('GET', '/projections/v1', { localOnly: EXTENSION }, all('200')),
  row('GET', '/hooks/v1', { localOnly: EXTENSION }, all('200')),
  row('GET', '/hooks/v1/webhooks', { localOnly: EXTENSION }, ADMIN_ONLY('rest_forbidden', '200')),
  row(
    'POST',
    '/hooks/v1/webhooks',
    { body: { url: 'https://hooks.example.test/in', active: false }, localOnly: EXTENSION },
    ADMIN_ONLY('rest_forbidden', '201'),
  ),
  // A webhook that does not exist: the rule is judged before the webhook is looked for.
  ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map((method) =>
    row(
      method,
      '/hooks/v1/webhooks/999999',
      { localOnly: EXTENSION },
      ADMIN_ONLY('rest_forbidden', '404 rest_webhook_invalid_id'),
    ),
  ),
  row(
    'GET',
    '/hooks/v1/webhooks/999999/deliveries',
    { localOnly: EXTENSION },
    ADMIN_ONLY('rest_forbidden', '404 rest_webhook_invalid_id'),
  ),
  row(
    'POST',
    '/hooks/v1/webhooks/999999/deliveries/msg_none/redeliver',
    { localOnly: EXTENSION },
    ADMIN_ONLY('rest_forbidden', '404 rest_webhook_invalid_id'),
  ),
];

// --- comments (reading follows the post; writing takes a signed-in user; status, author and IP take moderate_comments) ---

const PUBLISHED_POST = { type: 'posts', owner: 'other', status: 'publish' } as const;
const THEIRS = { post: 'other', author: 'other' } as const;
const MODERATORS = (code: string): Cells => [`401 ${code}`, `403 ${code}`, `403 ${code}`, `403 ${code}`, '200', '200'];
const commentRows: Row[] = [
  row('GET', '/core/v2/comments', {}, all('200')),
  row('GET', '/core/v2/comments?post={id}', { item: PUBLISHED_POST }, all('200')),
  row('GET', '/core/v2/comments?post={id}', { item: { type: 'posts', owner: 'other', status: 'private' } }, [
    '401 rest_cannot_read_post',
    '403 rest_cannot_read_post',
    '403 rest_cannot_read_post',
    '403 rest_cannot_read_post',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/comments?context=edit', {}, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row('GET', '/core/v2/comments?status=hold', {}, [
    '401 rest_forbidden_param',
    '403 rest_forbidden_param',
    '200',
    '200',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/comments',
    {
      item: PUBLISHED_POST,
      body: { post: '{id}', content: '{unique}' },
      note: 'anonymous comments are refused, as WordPress refuses them by default',
    },
    ['401 rest_comment_login_required', '201', '201', '201', '201', '201'],
  ),
  row(
    'POST',
    '/core/v2/comments',
    { item: { type: 'posts', owner: 'other', status: 'draft' }, body: { post: '{id}', content: '{unique}' } },
    [
      '401 rest_comment_login_required',
      '403 rest_comment_draft_post',
      '403 rest_comment_draft_post',
      '403 rest_comment_draft_post',
      '403 rest_comment_draft_post',
      '403 rest_comment_draft_post',
    ],
  ),
  row(
    'POST',
    '/core/v2/comments',
    { item: PUBLISHED_POST, body: { post: '{id}', content: '{unique}', status: 'hold' } },
    [
      '401 rest_comment_login_required',
      '403 rest_comment_invalid_status',
      '403 rest_comment_invalid_status',
      '403 rest_comment_invalid_status',
      '201',
      '201',
    ],
  ),
  row('GET', '/core/v2/comments/{comment}', { comment: THEIRS }, all('200')),
  row('GET', '/core/v2/comments/{comment}', { comment: { ...THEIRS, status: 'hold' } }, [
    '401 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '403 rest_cannot_read',
    '200',
    '200',
  ]),
  row(
    'GET',
    '/core/v2/comments/{comment}',
    { comment: { post: 'other', author: 'own', status: 'hold' } },
    signedIn('200'),
  ),
  row('GET', '/core/v2/comments/{comment}?context=edit', { comment: THEIRS }, [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ]),
  row(
    'POST',
    '/core/v2/comments/{comment}',
    { comment: THEIRS, body: { content: 'Changed' } },
    MODERATORS('rest_cannot_edit'),
  ),
  row(
    'PUT',
    '/core/v2/comments/{comment}',
    { comment: THEIRS, body: { content: 'Changed' } },
    MODERATORS('rest_cannot_edit'),
  ),
  row(
    'PATCH',
    '/core/v2/comments/{comment}',
    { comment: THEIRS, body: { content: 'Changed' } },
    MODERATORS('rest_cannot_edit'),
  ),
  row(
    'POST',
    '/core/v2/comments/{comment}',
    {
      comment: { post: 'own', author: 'other' },
      body: { content: 'Changed' },
      note: 'editing comments follows editing the post',
    },
    [null, '403 rest_cannot_edit', '403 rest_cannot_edit', '200', '200', '200'],
  ),
  row(
    'POST',
    '/core/v2/comments/{comment}',
    {
      comment: { post: 'other', author: 'own' },
      body: { content: 'Changed' },
      note: 'writing a comment does not make it editable',
    },
    [null, '403 rest_cannot_edit', '403 rest_cannot_edit', '403 rest_cannot_edit', '200', '200'],
  ),
  row('DELETE', '/core/v2/comments/{comment}', { comment: THEIRS }, MODERATORS('rest_cannot_delete')),
  row('DELETE', '/core/v2/comments/{comment}?force=true', { comment: THEIRS }, MODERATORS('rest_cannot_delete')),
  row(
    'POST',
    '/core/v2/comments',
    { item: PUBLISHED_POST, body: { post: '{id}', content: '{unique}', author: '{other}' } },
    [
      '401 rest_comment_login_required',
      '403 rest_comment_invalid_author',
      '403 rest_comment_invalid_author',
      '403 rest_comment_invalid_author',
      '201',
      '201',
    ],
  ),
];

// --- authentication ------------------------------------------------------------------------------------------

const authentication: Row[] = [
  row(
    'GET',
    '/core/v2/posts',
    {
      wrongPassword: true,
      note: 'deliberately unlike WordPress 6.1.9, which answers as if anonymous (200)',
      localOnly: 'a deliberate difference: WordPress 6.1.9 ignores failed credentials',
    },
    signedIn('401 incorrect_password'),
  ),
];

export interface Section {
  title: string;
  rows: readonly Row[];
}

export const SECTIONS: readonly Section[] = [
  { title: 'Discovery', rows: discovery },
  { title: 'Posts, their revisions and autosaves', rows: posts },
  { title: 'Pages, their revisions and autosaves', rows: pages },
  { title: 'Reusable blocks, their revisions and autosaves', rows: blocks },
  { title: 'The block editor: theme, global styles, patterns, templates', rows: editorRows },
  { title: 'Categories and tags', rows: terms },
  { title: 'Menus, menu items and menu locations', rows: menuRows },
  { title: 'Site settings and search', rows: siteRows },
  { title: 'Media', rows: media },
  { title: 'Post types, statuses and taxonomies', rows: descriptions },
  { title: 'Users', rows: users },
  { title: 'Application passwords', rows: applicationPasswords },
  { title: 'Comments', rows: commentRows },
  { title: 'Extensions of ours', rows: extensions },
  { title: 'Authentication', rows: authentication },
];

export const TABLE: readonly Row[] = SECTIONS.flatMap((section) => section.rows);

export const FIXTURE_DATES = { future: FUTURE_DATE };
