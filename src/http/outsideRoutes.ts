/**
 * The routes outside the REST dispatcher, as @koa/router routers: the operational endpoints (/healthz, /readyz,
 * /metrics, src/health/endpoints.ts) and the pages under the site's path (the authorization page, the audit page,
 * uploaded files, embed views). Paths match exactly as written: case-sensitive, no trailing slash added or dropped.
 * A page that finds the request is not its own (no such upload, no such embeddable item, an API namespace under
 * /audit/) passes it on with `next()`, and the REST API answers it.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import type { Site } from '../site';
import { operationalResponse } from '../health/endpoints';
import { AUTHORIZE_PATH, serveAuthorizationPage } from '../authorize/handler';
import { AUDIT_PAGE_PATH, auditPagePaths, serveAuditPage } from '../auditPage/handler';
import { serveUpload } from '../resources/media/http';
import { UPLOADS_PATH } from '../resources/media/present';
import { serveEmbedPage } from '../resources/oembed/local';

const ROUTER_OPTIONS = { strict: true, sensitive: true } as const;
const EMBED_SUFFIX = '/embed/';

/** A path as a regular expression that matches it literally (the site's path may hold `.`, `(`, `+`…). */
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export const OPERATIONAL_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

/** GET and HEAD of /healthz, /readyz and /metrics; every other request goes on. */
export function operationalRoutes(site: Site): Koa.Middleware {
  const router = new Router(ROUTER_OPTIONS);
  router.get([...OPERATIONAL_PATHS], async (ctx, next) => {
    const answer = await operationalResponse(site, ctx.method, ctx.path);
    if (!answer) return next();
    ctx.status = answer.status;
    ctx.type = answer.type;
    ctx.body = answer.body;
  });
  return router.routes() as Koa.Middleware;
}

export interface Pages {
  /** Whether a path may be a page's (every request of another path is the API's). */
  isPage(path: string): boolean;
  /** The pages' router: a request no page answers goes on to the next middleware. */
  routes: Koa.Middleware;
}

/** The pages under the site's path; `apiNamespaces` are the API's, some of which may sit under /audit/. */
export function sitePages(site: Site, apiNamespaces: readonly string[]): Pages {
  const sitePath = new URL(site.settings.siteUrl).pathname.replace(/\/$/, '');
  const authorizePath = `${sitePath}${AUTHORIZE_PATH}`;
  const uploadsPrefix = `${sitePath}${UPLOADS_PATH}`;
  // Every path under /audit/ but the API's own audit/v1 routes.
  const isAuditPage = auditPagePaths(sitePath, apiNamespaces);
  const router = new Router(ROUTER_OPTIONS);
  router.all(new RegExp(`^${literal(authorizePath)}$`), (ctx) => serveAuthorizationPage(site, ctx));
  router.all(new RegExp(`^${literal(`${sitePath}${AUDIT_PAGE_PATH}`)}(?:/|$)`), (ctx, next) => {
    if (!isAuditPage(ctx.path)) return next();
    serveAuditPage(ctx, sitePath);
  });
  // Uploaded files, read-only (src/resources/media/http.ts).
  router.all(new RegExp(`^${literal(uploadsPrefix)}`), async (ctx, next) => {
    const upload = await serveUpload(site, ctx.method, ctx.path, ctx.headers);
    if (!upload) return next();
    ctx.status = upload.status;
    ctx.set(upload.headers);
    // Koa streams the file and destroys the stream when the answer ends or the client goes; a HEAD sends no body.
    if (upload.body !== null) ctx.body = upload.body;
  });
  // The embed view an oEmbed frame shows (src/resources/oembed/local.ts).
  router.get(new RegExp(`${literal(EMBED_SUFFIX)}$`), async (ctx, next) => {
    const embed = await serveEmbedPage(site, ctx.method, ctx.path);
    if (!embed) return next();
    ctx.status = embed.status;
    ctx.type = embed.type;
    ctx.set(embed.headers);
    ctx.body = embed.body;
  });
  return {
    isPage: (path) =>
      path === authorizePath || path.startsWith(uploadsPrefix) || path.endsWith(EMBED_SUFFIX) || isAuditPage(path),
    routes: router.routes() as Koa.Middleware,
  };
}
