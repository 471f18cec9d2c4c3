/**
 * Reading a live WordPress 6.1 site over its REST API: HTTP Basic with an application password, `context=edit`,
 * collections paged by `X-WP-TotalPages`. Every request goes through the product's outbound client
 * (src/adapters/http/outboundClient.ts), which is told to allow the operator's host and nothing else besides public
 * addresses, with bounds on time and size. Every answer is checked: JSON, and the shape of each item (ajv schemas
 * of the fields the import uses), so a site that is not WordPress, refuses the credentials, or answers something
 * malformed stops the import with an error naming the request and the item, before anything is written.
 */
import Ajv from 'ajv';
import type { JSONSchemaType, ValidateFunction } from 'ajv';
import { createOutboundHttp } from '../../adapters/http/outboundClient';
import { parseAllowedHosts } from '../../adapters/http/destinations';
import type { HttpFetcher, HttpResponse } from '../../ports/httpFetcher';

/** Bad input, refused credentials, an unreachable or malformed source: named, nothing guessed. */
export class WordPressImportError extends Error {}

const text = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const ints = { type: 'array', items: int } as const;
const raw = { type: 'object', properties: { raw: text }, required: ['raw'] } as const;

export interface WpUser {
  id: number;
  username: string;
  name: string;
  first_name: string;
  last_name: string;
  email: string;
  url: string;
  description: string;
  nickname: string;
  slug: string;
  roles: string[];
  registered_date: string;
  locale: string;
}

export interface WpTerm {
  id: number;
  name: string;
  slug: string;
  description: string;
  parent?: number;
}

export interface WpPost {
  id: number;
  type: string;
  date: string | null;
  date_gmt: string | null;
  modified_gmt: string;
  slug: string;
  status: string;
  password: string;
  title: { raw: string };
  content: { raw: string };
  excerpt?: { raw: string };
  author: number;
  featured_media: number;
  comment_status: string;
  ping_status: string;
  template: string;
  sticky?: boolean;
  format?: string;
  categories?: number[];
  tags?: number[];
  parent?: number;
  menu_order?: number;
}

/** A revision or an autosave (same shape). */
export interface WpRevision {
  id: number;
  author: number;
  parent: number;
  date_gmt: string;
  slug: string;
  title: { raw: string };
  content: { raw: string };
  excerpt: { raw: string };
}

export interface WpMedia {
  id: number;
  date_gmt: string;
  slug: string;
  status: string;
  author: number;
  title: { raw: string };
  caption: { raw: string };
  description: { raw: string };
  alt_text: string;
  comment_status: string;
  ping_status: string;
  post: number | null;
  source_url: string;
  mime_type: string;
}

interface WpIndex {
  name: string;
  url: string;
  namespaces: string[];
}

const USER: JSONSchemaType<WpUser> = {
  type: 'object',
  properties: {
    id: int,
    username: text,
    name: text,
    first_name: text,
    last_name: text,
    email: text,
    url: text,
    description: text,
    nickname: text,
    slug: text,
    roles: { type: 'array', items: text },
    registered_date: text,
    locale: text,
  },
  required: [
    'id',
    'username',
    'name',
    'first_name',
    'last_name',
    'email',
    'url',
    'description',
    'nickname',
    'slug',
    'roles',
    'registered_date',
    'locale',
  ],
};

const TERM: JSONSchemaType<WpTerm> = {
  type: 'object',
  properties: { id: int, name: text, slug: text, description: text, parent: { ...int, nullable: true } },
  required: ['id', 'name', 'slug', 'description'],
} as unknown as JSONSchemaType<WpTerm>;

const POST = {
  type: 'object',
  properties: {
    id: int,
    type: text,
    date: { type: ['string', 'null'] },
    date_gmt: { type: ['string', 'null'] },
    modified_gmt: text,
    slug: text,
    status: text,
    password: text,
    title: raw,
    content: raw,
    excerpt: raw,
    author: int,
    featured_media: int,
    comment_status: text,
    ping_status: text,
    template: text,
    sticky: { type: 'boolean' },
    format: text,
    categories: ints,
    tags: ints,
    parent: int,
    menu_order: int,
  },
  required: [
    'id',
    'type',
    'date',
    'date_gmt',
    'modified_gmt',
    'slug',
    'status',
    'password',
    'title',
    'content',
    'author',
    'featured_media',
    'comment_status',
    'ping_status',
    'template',
  ],
} as const;

const REVISION = {
  type: 'object',
  properties: { id: int, author: int, parent: int, date_gmt: text, slug: text, title: raw, content: raw, excerpt: raw },
  required: ['id', 'author', 'parent', 'date_gmt', 'slug', 'title', 'content', 'excerpt'],
} as const;

const MEDIA = {
  type: 'object',
  properties: {
    id: int,
    date_gmt: text,
    slug: text,
    status: text,
    author: int,
    title: raw,
    caption: raw,
    description: raw,
    alt_text: text,
    comment_status: text,
    ping_status: text,
    post: { type: ['integer', 'null'] },
    source_url: text,
    mime_type: text,
  },
  required: [
    'id',
    'date_gmt',
    'slug',
    'status',
    'author',
    'title',
    'caption',
    'description',
    'alt_text',
    'comment_status',
    'ping_status',
    'post',
    'source_url',
    'mime_type',
  ],
} as const;

const INDEX = {
  type: 'object',
  properties: { name: text, url: text, namespaces: { type: 'array', items: text } },
  required: ['name', 'url', 'namespaces'],
} as const;

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = {
  user: ajv.compile<WpUser>(USER),
  term: ajv.compile<WpTerm>(TERM),
  post: ajv.compile<WpPost>(POST),
  revision: ajv.compile<WpRevision>(REVISION),
  media: ajv.compile<WpMedia>(MEDIA),
  index: ajv.compile<WpIndex>(INDEX),
};
export type ItemKind = Exclude<keyof typeof validators, 'index'>;
type Shape<K extends ItemKind> = K extends 'user'
  ? WpUser
  : K extends 'term'
    ? WpTerm
    : K extends 'post'
      ? WpPost
      : K extends 'revision'
        ? WpRevision
        : WpMedia;

/** WordPress's REST date-time without offset, `YYYY-MM-DDTHH:MM:SS`. */
const REST_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
/** Most pages of one collection followed: 100 items a page, so a million items. */
const MAX_PAGES = 10_000;

export interface SourceOptions {
  /** The site's address (`https://old.example.org`), or its REST root (`…/wp-json`). */
  url: string;
  user: string;
  appPassword: string;
  /** The outbound client; one allowing the site's own host when not given. */
  http?: HttpFetcher;
  /** Bound on one request (ms). */
  timeoutMs?: number;
  /** Most bytes of one JSON answer. */
  maxJsonBytes?: number;
  /** Most bytes of one media file. */
  maxFileBytes?: number;
  /** Bound on fetching one media file (ms). */
  fileTimeoutMs?: number;
}

export const SOURCE_DEFAULTS = {
  timeoutMs: 30_000,
  fileTimeoutMs: 600_000,
  maxJsonBytes: 32 * 1024 * 1024,
  maxFileBytes: 256 * 1024 * 1024,
} as const;

/** The outbound client for the operator's site: its host and port allowed (it may be on a private network). */
export function sourceClient(url: URL, timeoutMs: number, maxBytes: number): HttpFetcher {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return createOutboundHttp({
    allowedHosts: parseAllowedHosts(`${url.hostname}:${port}`),
    timeoutMs,
    maxBytes,
    userAgent: 'palimpsest-import',
  });
}

/** The site's address without a trailing slash or `/wp-json`; refused unless http(s) without credentials. */
export function siteAddress(given: string): URL {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new WordPressImportError(`"${given}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WordPressImportError(`"${given}": only http and https sites are imported`);
  if (url.username || url.password)
    throw new WordPressImportError(
      `"${given}": give the user with --user and the password with --app-password, not in the URL`,
    );
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/wp-json$/, '');
  return url;
}

export class WordPressSource {
  /** The site's address, as the imported events name their source. */
  readonly site: string;
  private readonly root: string;
  private readonly http: HttpFetcher;
  private readonly authorization: string;
  private readonly maxJsonBytes: number;
  private readonly maxFileBytes: number;
  private readonly fileTimeoutMs: number;

  constructor(options: SourceOptions) {
    const url = siteAddress(options.url);
    this.site = url.toString().replace(/\/$/, '');
    this.root = `${this.site}/wp-json`;
    this.maxJsonBytes = options.maxJsonBytes ?? SOURCE_DEFAULTS.maxJsonBytes;
    this.maxFileBytes = options.maxFileBytes ?? SOURCE_DEFAULTS.maxFileBytes;
    this.fileTimeoutMs = options.fileTimeoutMs ?? SOURCE_DEFAULTS.fileTimeoutMs;
    this.http =
      options.http ??
      sourceClient(url, options.timeoutMs ?? SOURCE_DEFAULTS.timeoutMs, Math.max(this.maxJsonBytes, this.maxFileBytes));
    this.authorization = `Basic ${Buffer.from(`${options.user}:${options.appPassword}`).toString('base64')}`;
  }

  /** Checks that this is a WordPress with `wp/v2`, and that the credentials are taken with the right to edit. */
  async check(): Promise<{ name: string; user: string }> {
    const { body } = await this.json('/', {}, 'the REST index');
    if (!validators.index(body))
      throw new WordPressImportError(
        `${this.root}/ is not a WordPress REST API (its index has no ${shapeError(validators.index)})`,
      );
    if (!body.namespaces.includes('wp/v2'))
      throw new WordPressImportError(
        `${this.root}/ is not a WordPress REST API with wp/v2 (namespaces: ${body.namespaces.join(', ') || 'none'})`,
      );
    // WordPress treats a refused application password as no credentials at all: ask who we are.
    const { body: me } = await this.json('/wp/v2/users/me', { context: 'edit' }, 'the signed-in user');
    const user = this.checked('user', me, 'the signed-in user');
    if (!user.roles.includes('administrator'))
      throw new WordPressImportError(
        `user "${user.username}" is not an administrator of ${this.site}: an import reads every item in edit context`,
      );
    return { name: body.name, user: user.username };
  }

  /** Every item of a collection, page by page, each checked. */
  async all<K extends ItemKind>(
    route: string,
    query: Record<string, string>,
    kind: K,
    what: string,
    progress?: (line: string) => void,
  ): Promise<Shape<K>[]> {
    const items: Shape<K>[] = [];
    for (let page = 1, pages = 1; page <= pages; page++) {
      const { body, response } = await this.json(
        route,
        { ...query, context: 'edit', per_page: '100', page: String(page) },
        `${what}, page ${page}`,
      );
      if (!Array.isArray(body))
        throw new WordPressImportError(`${what}, page ${page}: ${this.root}${route} did not answer a list`);
      const header = response.headers['x-wp-totalpages'];
      if (page === 1) {
        if (header !== undefined && !/^\d+$/.test(header))
          throw new WordPressImportError(`${what}: X-WP-TotalPages "${header.slice(0, 40)}" is not a number`);
        pages = header === undefined ? 1 : Number(header);
        if (pages > MAX_PAGES)
          throw new WordPressImportError(`${what}: ${pages} pages is more than the ${MAX_PAGES} followed`);
      }
      for (const item of body) items.push(this.checked(kind, item, `${what}, page ${page}`));
      if (pages > 1) progress?.(`${what}: page ${page} of ${pages}`);
    }
    return items;
  }

  /** A list answered whole (autosaves have no paging). */
  async list<K extends ItemKind>(route: string, kind: K, what: string): Promise<Shape<K>[]> {
    const { body } = await this.json(route, { context: 'edit' }, what);
    if (!Array.isArray(body)) throw new WordPressImportError(`${what}: ${this.root}${route} did not answer a list`);
    return body.map((item) => this.checked(kind, item, what));
  }

  /**
   * A media file's bytes, or why it could not be had (unreachable, refused, too large): the attachment is then
   * reported missing rather than stopping the import. Sent with the credentials only to the site's own origin.
   */
  async download(url: string): Promise<{ bytes: Buffer } | { missing: string }> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { missing: 'its source_url is not a URL' };
    }
    const sameOrigin = target.origin === new URL(this.site).origin;
    try {
      const response = await this.http.request(target.toString(), {
        headers: sameOrigin ? { authorization: this.authorization } : {},
        maxBytes: this.maxFileBytes,
        timeoutMs: this.fileTimeoutMs,
      });
      if (response.status !== 200) return { missing: `${url} answered ${response.status}` };
      return { bytes: Buffer.from(response.bytes) };
    } catch (error) {
      return { missing: `${url}: ${(error as Error).message}` };
    }
  }

  private checked<K extends ItemKind>(kind: K, item: unknown, what: string): Shape<K> {
    const validate = validators[kind] as ValidateFunction<Shape<K>>;
    const id =
      item && typeof item === 'object' && 'id' in item
        ? ` ${JSON.stringify((item as { id: unknown }).id).slice(0, 40)}`
        : '';
    if (!validate(item)) throw new WordPressImportError(`${what}: ${kind}${id} is malformed: ${shapeError(validate)}`);
    for (const field of ['date_gmt', 'modified_gmt', 'registered_date'] as const) {
      const value = (item as unknown as Record<string, unknown>)[field];
      if (typeof value === 'string' && !REST_DATE.test(value.replace(/(\.\d+)?(Z|[+-]00:00)?$/, '')))
        throw new WordPressImportError(
          `${what}: ${kind}${id} is malformed: ${field} "${value.slice(0, 40)}" is not a date`,
        );
    }
    return item;
  }

  private async json(
    route: string,
    query: Record<string, string>,
    what: string,
  ): Promise<{ body: unknown; response: HttpResponse }> {
    const search = new URLSearchParams(query).toString();
    const url = `${this.root}${route}${search ? `?${search}` : ''}`;
    let response: HttpResponse;
    try {
      response = await this.http.request(url, {
        headers: { authorization: this.authorization, accept: 'application/json' },
        maxBytes: this.maxJsonBytes,
      });
    } catch (error) {
      throw new WordPressImportError(`${what}: ${url}: ${(error as Error).message}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      throw new WordPressImportError(
        `${what}: ${url} answered ${response.status} with something that is not JSON (is ${this.site} a WordPress site?)`,
      );
    }
    if (response.status === 401 || response.status === 403) {
      const code = errorCode(body);
      throw new WordPressImportError(
        `${what}: ${url} answered ${response.status}${code ? ` (${code})` : ''}: the user name or application password was refused, or lacks the right to read this`,
      );
    }
    if (response.status !== 200) {
      const code = errorCode(body);
      throw new WordPressImportError(`${what}: ${url} answered ${response.status}${code ? ` (${code})` : ''}`);
    }
    return { body, response };
  }
}

const errorCode = (body: unknown): string | null =>
  body && typeof body === 'object' && typeof (body as { code?: unknown }).code === 'string'
    ? (body as { code: string }).code.slice(0, 80)
    : null;

function shapeError(validate: ValidateFunction): string {
  const [first] = validate.errors ?? [];
  if (!first) return 'an unknown shape';
  const where = first.instancePath
    ? first.instancePath.slice(1).replace(/\//g, '.')
    : ((first.params as { missingProperty?: string }).missingProperty ?? 'the item');
  return first.keyword === 'required' ? `no ${where}` : `${where} ${first.message ?? 'is wrong'}`;
}
