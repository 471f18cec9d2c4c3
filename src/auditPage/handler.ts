/**
 * The audit page at `SITE_URL/audit/` (docs/audit.md, "The audit page"): a static HTML document, its stylesheet and
 * its ES-module scripts, read from ./static once and served from memory. The page itself holds no data: its script
 * signs in with an application password and reads the API (`/audit/v1/events`, `/audit/v1/stream`, item history
 * and `as_of`) as any other client would.
 *
 * Only the files named in FILES are served, looked up by exact name: any other path under `/audit/` (`..`, `%2e%2e`,
 * a NUL, a folder) is a 404 without ever touching the file system. Paths under `/audit/<namespace>` of the API
 * (`/audit/v1/…`) are the API's. GET and HEAD only; the page's Content-Security-Policy allows scripts, styles and
 * connections to this origin alone, so nothing the API returns can run even if it were ever written as markup.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';

/** The page's path under the site URL, without its final slash. */
export const AUDIT_PAGE_PATH = '/audit';

const MODULE_DIR = path.dirname(fileURLToPath(import.meta.url));
/** Compiled (bin/build.js, under dist/<build>/src/auditPage/), the static files are still read from the sources. */
const COMPILED = import.meta.url.endsWith('.js');
const STATIC_DIR = COMPILED
  ? path.resolve(MODULE_DIR, '../../../../src/auditPage/static')
  : path.join(MODULE_DIR, 'static');

/** The files of the page by the name they are served under ('' is the page itself), and their types. */
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'audit.css': { file: 'audit.css', type: 'text/css; charset=utf-8' },
  'audit.mjs': { file: 'audit.mjs', type: 'text/javascript; charset=utf-8' },
  'api.mjs': { file: 'api.mjs', type: 'text/javascript; charset=utf-8' },
  'dom.mjs': { file: 'dom.mjs', type: 'text/javascript; charset=utf-8' },
  'diff.mjs': { file: 'diff.mjs', type: 'text/javascript; charset=utf-8' },
  'views.mjs': { file: 'views.mjs', type: 'text/javascript; charset=utf-8' },
};

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
  // Revalidated on every load (cheap: an ETag), so a new version of the page is never mixed with an old script.
  'Cache-Control': 'no-cache',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

let assets: Map<string, Asset> | null = null;

/** The files, read once (a few kilobytes). */
function loadAssets(): Map<string, Asset> {
  if (assets) return assets;
  const loaded = new Map<string, Asset>();
  for (const [name, { file, type }] of Object.entries(FILES)) {
    const body = fs.readFileSync(path.join(STATIC_DIR, file));
    loaded.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  assets = loaded;
  return loaded;
}

/**
 * Which requests are the page's: `/audit` (redirected to `/audit/`) and every path under `/audit/` but those of an
 * API namespace under `audit/` (`/audit/v1`, `/audit/v1/…`). `apiNamespaces` are the API's namespace names.
 */
export function auditPagePaths(sitePath: string, apiNamespaces: readonly string[]): (path: string) => boolean {
  const bare = `${sitePath}${AUDIT_PAGE_PATH}`;
  const prefix = `${bare}/`;
  const apiVersions = new Set(
    apiNamespaces.filter((name) => name.startsWith('audit/')).map((name) => name.slice('audit/'.length)),
  );
  return (requestPath) => {
    if (requestPath === bare) return true;
    if (!requestPath.startsWith(prefix)) return false;
    const rest = requestPath.slice(prefix.length);
    const slash = rest.indexOf('/');
    return !apiVersions.has(slash === -1 ? rest : rest.slice(0, slash));
  };
}

/** Answers a request `auditPagePaths` found to be the page's. */
export function serveAuditPage(ctx: Koa.Context, sitePath: string): void {
  const bare = `${sitePath}${AUDIT_PAGE_PATH}`;
  const method = ctx.method;
  ctx.set(PAGE_HEADERS);
  if (method !== 'GET' && method !== 'HEAD') {
    ctx.set('Allow', 'GET, HEAD');
    plain(ctx, 405, 'Method not allowed: the audit page answers GET and HEAD only.');
    return;
  }
  if (ctx.path === bare) {
    ctx.status = 301;
    ctx.set('Location', `${bare}/`);
    ctx.body = '';
    return;
  }
  const asset = loadAssets().get(ctx.path.slice(bare.length + 1));
  if (!asset) {
    plain(ctx, 404, 'Not found.');
    return;
  }
  ctx.set('ETag', asset.etag);
  if (ctx.get('if-none-match') === asset.etag) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = asset.type;
  // Koa sends the length and, for a HEAD, no body.
  ctx.body = asset.body;
}

function plain(ctx: Koa.Context, status: number, message: string): void {
  ctx.status = status;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = message;
}
