/**
 * CORS as WordPress sends it on REST answers, so a browser front end on another origin can use the API.
 *
 * Every API answer carries the request-independent lines (CORS_FIXED_HEADERS: the headers a client may send and
 * read, and `Vary: Origin`), whether or not the request had an Origin. A request with an allowed Origin also gets
 * that origin echoed, the methods and `Access-Control-Allow-Credentials: true` (originHeaders). Preflights need
 * nothing of their own: an OPTIONS request is answered by the route's description, with these headers, as
 * WordPress does.
 *
 * Three deliberate differences from WordPress 6.1 (docs/compatibility.md): `X-HTTP-Method-Override` is an allowed
 * request header (WordPress accepts the override but leaves it out of the list, so a browser cannot send it
 * cross-origin), `Allow` is exposed (the block editor reads it to decide what the user may do), and so is
 * `Retry-After` (sent with the 429 of throttled sign-ins and the 503 of a busy or unavailable site, which WordPress
 * does not have: a page on another origin could read the status but not how long to wait). `Idempotency-Key` and
 * `Idempotent-Replayed`, palimpsest's own safe retries, are allowed and exposed likewise.
 * No library: the `cors` middlewares of the ecosystem answer preflights themselves (with 204) and are koa or
 * express middleware; WordPress answers preflights through the route, which this keeps.
 */

/** The header lines every API answer carries, flat (name, value, …). */
export const CORS_FIXED_HEADERS: readonly string[] = [
  'Access-Control-Expose-Headers',
  'X-WP-Total, X-WP-TotalPages, Link, Allow, Retry-After, Idempotent-Replayed',
  'Access-Control-Allow-Headers',
  'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override, Idempotency-Key',
  'Vary',
  'Origin',
];

const ALLOWED_METHODS = 'OPTIONS, GET, POST, PUT, PATCH, DELETE';

/** Characters a header value may be written with (Node refuses others): an Origin outside them is not echoed. */
const WRITABLE = /^[\x21-\x7e]+$/;

export interface CorsPolicy {
  /** The origin-dependent header lines for a request's Origin header, or null when there are none to send. */
  originHeaders(origin: string | undefined): readonly string[] | null;
}

/**
 * `allowed`: the origins that may read answers (exact `scheme://host[:port]`, compared without case); null lets any
 * origin, as WordPress does.
 */
export function corsPolicy(allowed: readonly string[] | null): CorsPolicy {
  const allowedSet = allowed === null ? null : new Set(allowed.map((origin) => origin.toLowerCase()));
  return {
    originHeaders(origin) {
      if (origin === undefined || origin === '' || !WRITABLE.test(origin)) return null;
      if (allowedSet !== null && !allowedSet.has(origin.toLowerCase())) return null;
      return [
        'Access-Control-Allow-Origin',
        origin,
        'Access-Control-Allow-Methods',
        ALLOWED_METHODS,
        'Access-Control-Allow-Credentials',
        'true',
      ];
    },
  };
}

/**
 * `CORS_ALLOWED_ORIGINS` parsed: a comma- or space-separated list of origins, each `scheme://host[:port]` without
 * a path; empty or `*` for any origin. Returns null for any origin, or an error message.
 */
export function parseAllowedOrigins(value: string | undefined): { origins: string[] | null } | { error: string } {
  const items = (value ?? '').split(/[\s,]+/).filter((item) => item !== '');
  if (items.length === 0 || (items.length === 1 && items[0] === '*')) return { origins: null };
  const origins: string[] = [];
  for (const item of items) {
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      return { error: `"${item}" is not an origin (scheme://host[:port])` };
    }
    if (
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.pathname !== '/' ||
      url.search !== '' ||
      url.hash !== '' ||
      url.username !== ''
    ) {
      return { error: `"${item}" is not an origin (scheme://host[:port], without a path)` };
    }
    origins.push(url.origin);
  }
  return { origins };
}
