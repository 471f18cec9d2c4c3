/**
 * Two dialects of one API. The interface's own (`core`) is served at the site root with its namespace names
 * (`core/v2`, `contact-form/v1`, …); WordPress's (`wordpress`) is the same API under `/wp-json/` with WordPress's
 * names (`wp/v2`, `contact-form-7/v1`, …), and at `?rest_route=/wp/v2/…` on the site root. There is one router and
 * one set of handlers: a dialect is a name mapping at the HTTP edge.
 *
 * - Request side (routed, batchPaths): the path, and a batch's sub-request paths, are mapped to the interface's
 *   names before dispatch. In the wordpress dialect the interface's own names of renamed namespaces route nowhere,
 *   as in WordPress.
 * - Answer side (answer): handlers build every URL from `site.apiRoot` in the interface's names. A wordpress answer
 *   gets those URLs mapped in its `Link` and `Location` headers, in the JSON body's `"href"` members (every `_links`
 *   and `_embedded` link, schema links), in the headers of batch and `_envelope` answers, and, in the index,
 *   namespace indexes and OPTIONS answers, in namespace names and route keys.
 *
 * Why rewrite at the edge rather than thread a per-request API root through the presenters: an item is presented
 * once and its JSON kept and shared by every reader (src/rest/serialized.ts, the presentation cache); a second
 * root would need a second presentation per item and a root parameter in every presenter. The body is mapped only
 * where JSON structure puts a URL: a member named `href` (a `"` opening a member name can only follow `{` or `,`,
 * and a `"` inside a string is always escaped), whose value starts with the API root followed by one of the API's
 * namespaces. Text that merely mentions an API URL (a post's content, a title) is never a member name and is left
 * as written. The core dialect costs nothing: its answers are not looked at. The shared response cache keys on the
 * raw URL, which names the dialect (`/wp-json/…` or `?rest_route=/wp/v2/…`), so each dialect's answer is kept apart.
 */
import type { RestRequest, RestResult } from '../rest/route';
import { rawBody, serializeBody } from '../rest/serialized';

export const API_DIALECTS = ['core', 'wordpress'] as const;
export type ApiDialect = (typeof API_DIALECTS)[number];

/** The interface's namespaces that WordPress names otherwise; every other namespace has one name in both. */
export const WORDPRESS_NAMES: ReadonlyMap<string, string> = new Map([
  ['core/v2', 'wp/v2'],
  ['contact-form/v1', 'contact-form-7/v1'],
  ['site-health/v1', 'wp-site-health/v1'],
  ['block-editor/v1', 'wp-block-editor/v1'],
]);
const INTERFACE_NAMES = new Map([...WORDPRESS_NAMES].map(([core, wordpress]) => [wordpress, core]));

/** Where WordPress serves its API under the site URL. */
const WORDPRESS_ROOT = 'wp-json/';

/**
 * Prefixed to a path that names a route in the other dialect's names: no route pattern (anchored at `/`) matches
 * it, so the dispatcher answers `rest_no_route` as for any unknown path.
 */
const NOWHERE = '/\u0000';

export interface DialectSettings {
  /** The site URL without a trailing slash. */
  siteUrl: string;
  /** Which root the site advertises in its discovery `Link` header (API_DIALECT). */
  advertised: ApiDialect;
}

export interface Routed {
  /** The route path in the interface's names. */
  path: string;
  dialect: ApiDialect;
}

export class Dialects {
  /** The root the site advertises: `Link: <…>; rel="https://api.w.org/"`. */
  readonly advertisedRoot: string;
  private readonly coreRoot: string;
  private readonly wordpressRoot: string;
  private readonly advertised: ApiDialect;
  private readonly corePathRoot: string;
  private readonly wordpressPathRoot: string;
  /** Every API URL in a header value: the root, then a namespace of the API or nothing. */
  private readonly urlInHeader: RegExp;
  /** What every `"href"` member whose value is an API URL starts with, as bytes of JSON. */
  private readonly hrefNeedle: Buffer;
  /** Each namespace's name after the root in bytes, and what replaces the root and the name (the root alone last). */
  private readonly hrefNames: { name: Buffer; replacement: Buffer }[];

  /** `namespaces`: every namespace of the API's routes, in the interface's names (the first two path segments). */
  constructor(
    settings: DialectSettings,
    private readonly namespaces: readonly string[],
  ) {
    this.coreRoot = `${settings.siteUrl}/`;
    this.wordpressRoot = `${settings.siteUrl}/${WORDPRESS_ROOT}`;
    this.advertisedRoot = settings.advertised === 'wordpress' ? this.wordpressRoot : this.coreRoot;
    this.corePathRoot = new URL(this.coreRoot).pathname;
    this.wordpressPathRoot = new URL(this.wordpressRoot).pathname.slice(0, -1);
    this.advertised = settings.advertised;
    // The most common first; a name counts only when followed by `/`, `?`, `#` or the end, so none is a prefix of another.
    const unique = [...new Set(['core/v2', ...namespaces, ...WORDPRESS_NAMES.keys()])];
    const names = unique.map(escapeRegExp).join('|');
    this.urlInHeader = new RegExp(`${escapeRegExp(this.coreRoot)}(?:(${names})(?=[/?#>"]|$)|(?=[>"]|$))`, 'g');
    this.hrefNeedle = Buffer.from(`"href":"${this.coreRoot}`);
    this.hrefNames = [
      ...unique.map((name) => ({ name: Buffer.from(name), replacement: Buffer.from(this.wordpressUrl(name)) })),
      { name: Buffer.alloc(0), replacement: Buffer.from(this.wordpressRoot) },
    ];
  }

  /**
   * The route path and dialect of a request: its URL path (koa's `ctx.path`) and its `rest_route` parameter. Under
   * `/wp-json/` it is the wordpress dialect; on the site root, `?rest_route=` in WordPress's names is the wordpress
   * dialect, in the interface's names the core one, and in names both share the advertised one.
   */
  routed(requestPath: string, restRoute: unknown): Routed {
    const urlPath = this.endsTrimmed(requestPath);
    const wp = this.wordpressPathRoot;
    if (urlPath.startsWith(wp) && (urlPath.length === wp.length || urlPath.charCodeAt(wp.length) === 47) /* / */) {
      return { path: this.toInterface(urlPath.slice(wp.length) || '/'), dialect: 'wordpress' };
    }
    let path = urlPath;
    const root = this.corePathRoot;
    if (root !== '/' && path.startsWith(root)) path = `/${path.slice(root.length)}`;
    // `?rest_route=/core/v2/posts` addresses a route without pretty URLs.
    if (typeof restRoute === 'string' && (path === '/' || path === '')) {
      const dialect = this.dialectOfRoute(restRoute);
      return { path: dialect === 'wordpress' ? this.toInterface(restRoute) : restRoute, dialect };
    }
    return { path, dialect: 'core' };
  }

  /**
   * The URL path as WordPress reads a request's: it trims the slashes at both ends of the path, and again after the
   * site's own path, before it matches `wp-json/…`. Repeated slashes there count as one, so a client whose configured
   * site URL ends in a slash (`SITE_URL//wp-json/wp/v2/posts`) or that doubles the last one (`…/posts//`) reaches
   * the route; repeated slashes inside a route path stay, and route nowhere, as in WordPress. Most paths have none,
   * and are returned after three character tests.
   */
  private endsTrimmed(urlPath: string): string {
    let path = urlPath;
    if (path.charCodeAt(1) === 47 /* / */) path = path.replace(/^\/+/, '/');
    const root = this.corePathRoot;
    if (root !== '/' && path.charCodeAt(root.length) === 47 && path.startsWith(root))
      path = root + path.slice(root.length).replace(/^\/+/, '');
    const end = path.length - 1;
    if (end > 1 && path.charCodeAt(end) === 47 && path.charCodeAt(end - 1) === 47) path = path.replace(/\/+$/, '/');
    return path;
  }

  /** A wordpress-dialect batch's sub-request paths, in the interface's names (the body is the request's own). */
  batchPaths(request: RestRequest): void {
    if (request.path.replace(/\/$/, '').toLowerCase() !== '/batch/v1') return;
    for (const params of [request.json, request.form]) {
      const requests = params?.requests;
      if (!Array.isArray(requests)) continue;
      for (const sub of requests) {
        if (sub !== null && typeof sub === 'object' && typeof (sub as { path?: unknown }).path === 'string') {
          (sub as { path: string }).path = this.toInterface((sub as { path: string }).path);
        }
      }
    }
  }

  /** A wordpress-dialect answer: every API URL and name the handlers wrote in the interface's names, mapped. */
  answer(result: RestResult, request: RestRequest): RestResult {
    const headers = result.headers ? this.mappedHeaders(result.headers) : result.headers;
    let body = result.body;
    if (body === null || body === undefined || typeof body !== 'object') return { ...result, headers };
    const discovery =
      request.method === 'OPTIONS' ||
      ((request.method === 'GET' || request.method === 'HEAD') && this.isIndex(request.path));
    if (request.query._envelope !== undefined) {
      const envelope = body as { body: unknown; headers: Record<string, unknown> | [] };
      body = {
        ...envelope,
        body: discovery ? this.mappedDiscovery(envelope.body) : envelope.body,
        headers: this.mappedHeaders(envelope.headers),
      };
    } else if (discovery) body = this.mappedDiscovery(body);
    else body = this.mappedBatch(body, request);
    const json = serializeBody(body);
    return {
      ...result,
      headers,
      body: rawBody(mappedNamespaceNames(this.mappedHrefs(typeof json === 'string' ? Buffer.from(json) : json))),
    };
  }

  /**
   * The JSON with every `"href"` member's API URL in WordPress's names. Worked on the bytes (the serialized JSON kept
   * for presented items is bytes already): a regular expression over the decoded text cost twenty times as much.
   */
  private mappedHrefs(json: Buffer): Buffer {
    const needle = this.hrefNeedle;
    const rootLength = this.coreRoot.length;
    let at = json.indexOf(needle);
    if (at === -1) return json;
    // Where each mapped URL starts (at its root) and which name it has; copied once into a buffer of the final size.
    const starts: number[] = [];
    const found: { name: Buffer; replacement: Buffer }[] = [];
    let size = json.length;
    while (at !== -1) {
      const after = at + needle.length;
      const before = json[at - 1];
      // A member name opens after `{` or `,` only: anywhere else `"href":"` is the end of one string and more.
      if (before === 0x7b /* { */ || before === 0x2c /* , */) {
        const names = this.hrefNames;
        for (let i = 0; i < names.length; i++) {
          if (!nameAt(json, after, names[i]!.name)) continue;
          starts.push(after - rootLength);
          found.push(names[i]!);
          size += names[i]!.replacement.length - rootLength - names[i]!.name.length;
          break;
        }
      }
      at = json.indexOf(needle, after);
    }
    if (starts.length === 0) return json;
    const out = Buffer.allocUnsafe(size);
    let from = 0;
    let written = 0;
    for (let i = 0; i < starts.length; i++) {
      written += json.copy(out, written, from, starts[i]);
      written += found[i]!.replacement.copy(out, written);
      from = starts[i]! + rootLength + found[i]!.name.length;
    }
    json.copy(out, written, from);
    return out;
  }

  private dialectOfRoute(route: string): ApiDialect {
    const name = namespaceOf(route);
    if (name === null) return this.advertised;
    if (INTERFACE_NAMES.has(name)) return 'wordpress';
    if (WORDPRESS_NAMES.has(name)) return 'core';
    return this.advertised;
  }

  /** A wordpress-dialect route path in the interface's names (WordPress's route patterns match without case). */
  private toInterface(path: string): string {
    const name = namespaceOf(path);
    if (name === null) return path;
    const core = INTERFACE_NAMES.get(name);
    if (core !== undefined) return `/${core}${path.slice(name.length + 1)}`;
    return WORDPRESS_NAMES.has(name) ? `${NOWHERE}${path}` : path;
  }

  private wordpressUrl(name: string | undefined): string {
    return name === undefined ? this.wordpressRoot : `${this.wordpressRoot}${WORDPRESS_NAMES.get(name) ?? name}`;
  }

  private mapUrls(value: string): string {
    return value.replace(this.urlInHeader, (_, name?: string) => this.wordpressUrl(name));
  }

  /** `Link` and `Location` in WordPress's names; a PHP-empty header list (`[]`) as it is. */
  private mappedHeaders<T extends Record<string, unknown> | []>(headers: T): T {
    if (Array.isArray(headers)) return headers;
    let out: Record<string, unknown> | null = null;
    for (const name in headers) {
      const lower = name.toLowerCase();
      const value = headers[name];
      if ((lower === 'link' || lower === 'location') && typeof value === 'string') {
        out ??= { ...headers };
        out[name] = this.mapUrls(value);
      }
    }
    return (out ?? headers) as T;
  }

  /** The index (`/`), a namespace index (`/core/v2`): the namespace names, route keys and each route's `namespace`. */
  private isIndex(path: string): boolean {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    return trimmed === '/' || trimmed === '' || this.namespaces.includes(trimmed.slice(1).toLowerCase());
  }

  private mappedDiscovery(body: unknown): unknown {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
    const source = body as Record<string, unknown>;
    const out: Record<string, unknown> = { ...source };
    if (typeof source.namespace === 'string') out.namespace = wordpressName(source.namespace);
    if (Array.isArray(source.namespaces))
      out.namespaces = source.namespaces.map((name) => (typeof name === 'string' ? wordpressName(name) : name));
    if (source.routes !== null && typeof source.routes === 'object' && !Array.isArray(source.routes)) {
      const routes: Record<string, unknown> = {};
      for (const [path, route] of Object.entries(source.routes as Record<string, unknown>)) {
        routes[wordpressPath(path)] =
          route !== null &&
          typeof route === 'object' &&
          typeof (route as { namespace?: unknown }).namespace === 'string'
            ? { ...(route as object), namespace: wordpressName((route as { namespace: string }).namespace) }
            : route;
      }
      out.routes = routes;
    }
    return out;
  }

  /** A batch's answer: each sub-response's headers mapped (their bodies' links are mapped with the whole text). */
  private mappedBatch(body: object, request: RestRequest): object {
    const responses = (body as { responses?: unknown }).responses;
    if (!Array.isArray(responses) || request.path.replace(/\/$/, '').toLowerCase() !== '/batch/v1') return body;
    return {
      ...body,
      responses: responses.map((sub) =>
        sub !== null &&
        typeof sub === 'object' &&
        (sub as { headers?: unknown }).headers !== null &&
        typeof (sub as { headers?: unknown }).headers === 'object'
          ? { ...sub, headers: this.mappedHeaders((sub as { headers: Record<string, unknown> | [] }).headers) }
          : sub,
      ),
    };
  }
}

/** Whether `json` holds `name` at `at`, followed by the end of a path segment or of the string (`/`, `?`, `#`, `"`). */
/** What a `rest_namespace` member (a post type's or taxonomy's, which clients build their URLs from) starts with. */
const NAMESPACE_MEMBER = Buffer.from('"rest_namespace":"');

/**
 * The JSON with every `rest_namespace` member that names one of the interface's namespaces in WordPress's name. Only
 * the answers about post types and taxonomies have such members, so most answers pay one search of their bytes.
 */
function mappedNamespaceNames(json: Buffer): Buffer {
  if (json.indexOf(NAMESPACE_MEMBER) === -1) return json;
  let text = json.toString('utf8');
  for (const [core, wordpress] of WORDPRESS_NAMES) {
    // A member name opens after `{` or `,` only; the value is the whole name, closed by its quote.
    text = text.replace(
      new RegExp(`([{,])"rest_namespace":"${escapeRegExp(core)}"`, 'g'),
      `$1"rest_namespace":"${wordpress}"`,
    );
  }
  return Buffer.from(text, 'utf8');
}

function nameAt(json: Buffer, at: number, name: Buffer): boolean {
  const end = at + name.length;
  if (end >= json.length) return false;
  for (let i = 0; i < name.length; i++) if (json[at + i] !== name[i]) return false;
  const next = json[end];
  // The root alone (an empty name) is the whole string.
  if (name.length === 0) return next === 0x22;
  return next === 0x2f || next === 0x3f || next === 0x23 || next === 0x22;
}

/** The namespace a route path starts with (`/core/v2/posts` → `core/v2`), lower-cased; null for `/` and `/x`. */
function namespaceOf(path: string): string | null {
  const match = /^\/([^/]+\/[^/]+)/.exec(path);
  return match ? match[1]!.toLowerCase() : null;
}

const wordpressName = (name: string): string => WORDPRESS_NAMES.get(name) ?? name;

function wordpressPath(path: string): string {
  const name = namespaceOf(path);
  const renamed = name === null ? undefined : WORDPRESS_NAMES.get(name);
  return renamed === undefined ? path : `/${renamed}${path.slice(name!.length + 1)}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The namespaces of a set of route paths: their first two segments (`/core/v2/posts/…` → `core/v2`). */
export function namespacesOfPaths(paths: readonly string[]): string[] {
  const names = new Set<string>();
  for (const path of paths) {
    const name = namespaceOf(path);
    if (name !== null) names.add(name);
  }
  return [...names];
}
