/**
 * The vocabulary of the comparison: a step is one request, declared as data, sent the same way to the
 * reference WordPress and to palimpsest. Strings in a step may name values that differ per side:
 *
 * - `{ns}`: the content namespace path, `/wp/v2` or `/core/v2` (for paths inside batch bodies);
 * - `{site}`: the side's site URL (for URLs of the site's own items, as oEmbed takes them);
 * - `{marker}`: a word unique to the run, put in every title so lists can be narrowed to this run's items;
 * - `{symbol}`: an id captured earlier in the sequence (or a role name, for that user's id). A string that is
 *   exactly one `{symbol}` becomes the number itself, so `author: '{editor}'` sends an integer.
 */

export type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
export const ROLES: readonly Role[] = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];

/** Who sends a step: a role's user, nobody, or Basic credentials that must fail. */
export type Caller = Role | 'anonymous' | 'wrong-password' | 'unknown-user';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/** What an id refers to; ids of different kinds come from different sequences, so they are mapped apart. */
export type IdKind = 'content' | 'user' | 'term';

export type QueryValue = string | number | boolean | null | QueryValue[] | { [key: string]: QueryValue };

export interface Step {
  /** Unique and readable: `area.what.detail`. */
  name: string;
  method: HttpMethod;
  /** Under the content namespace (`/posts/{p1}`), or under the API root when `root` is set (`/`, `/batch/v1`). */
  path: string;
  root?: boolean;
  /** Encoded as PHP does (`a[]=1&a[]=2`, `a[k]=v`); `null` sends the bare key (`?_embed`). */
  query?: Record<string, QueryValue>;
  /** A JSON body. */
  body?: unknown;
  /** A urlencoded form body. */
  form?: Record<string, string>;
  /** A body sent verbatim (for malformed JSON). */
  raw?: { contentType: string; data: string };
  /** An upload of one of the tool's generated images (see images.ts), raw or as a multipart form. */
  upload?: Upload;
  headers?: Record<string, string>;
  /** Default: anonymous. */
  as?: Caller;
  /** symbol -> dotted path into the response body (`id`, `0.id`, `responses.0.body.id`). */
  capture?: Record<string, string>;
  /** symbol -> dotted path to a string in the response (a URL each side writes its own way), for later `{symbol}`. */
  captureText?: Record<string, string>;
  /**
   * symbol -> dotted path to a URL in the response whose last segment is an id (a link such as the active theme's
   * `wp:user-global-styles`), for later `{symbol}` in paths. What it names is never deleted afterwards.
   */
  captureUrlId?: Record<string, string>;
  /** Kind of the captured ids (default content). */
  captureKind?: IdKind;
  /**
   * How bodies are compared: `item` (default: key sets everywhere, values of the fields that must agree),
   * `index` (an API index: top-level keys, namespaces, the set of routes, and each posts/pages route in full),
   * `route` (every value except human-readable text: an OPTIONS route description, or the descriptions of
   * post types, statuses and taxonomies).
   */
  compare?: 'item' | 'index' | 'route';
}

/** The images the tool generates (deterministically) to upload. */
export type ImageName = 'jpeg' | 'png';

/**
 * A file sent to the media route. `raw`: the bytes are the body, with `Content-Type` and
 * `Content-Disposition: attachment; filename=...` unless overridden (`null` leaves the header out), and
 * `Content-MD5` when `md5` is set (`wrong`: a hash of other bytes). `multipart`: a form with the file under
 * `file` and the given text fields. `image: null` sends no bytes at all.
 */
export interface Upload {
  mode: 'raw' | 'multipart';
  image: ImageName | null;
  /** May use `{marker}`. */
  filename: string;
  contentType?: string | null;
  disposition?: string | null;
  md5?: 'right' | 'wrong';
  fields?: Record<string, string>;
}

/** One side's outcome of a step. */
export interface Outcome {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, the text when it is not JSON, or null for no body. */
  body: unknown;
  /** Set when the step could not be sent (an id it needs was not captured on this side). */
  skipped?: string;
}

export type DifferenceKind = 'skipped' | 'status' | 'code' | 'header' | 'keys' | 'type' | 'length' | 'value' | 'routes';

export interface Difference {
  kind: DifferenceKind;
  /** Where: `status`, `header Link`, or a JSON path into the body such as `$[0].title.rendered`. */
  at: string;
  reference: unknown;
  palimpsest: unknown;
}
