/**
 * createApp(site): the HTTP edge. Koa turns requests into RestRequests (body parsing, method override,
 * authentication before routing) and RestResults into responses with WordPress's headers. Tests drive it
 * through `app.callback()`; main.ts listens with it.
 */
import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import type { Site } from './site';
import { buildDispatcher } from './api';
import { authenticateRequest } from './access/authenticate';
import { serveAuthorizationPage } from './authorize/handler';
import type { Actor } from './access/capabilities';
import { RestError, restError } from './rest/errors';
import { errorResult } from './rest/dispatch';
import type { Dispatcher } from './rest/dispatch';
import { parseQuery } from './rest/query';
import { serializeBody } from './rest/serialized';
import type { RestRequest, RestResult } from './rest/route';
import { invalidJsonpCallback, jsonpBody, jsonpCallback } from './rest/jsonp';
import { operationalResponse } from './health/endpoints';
import { parseMultipart, serveUpload } from './resources/media/http';
import { serveEmbedPage } from './resources/oembed/local';

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const OPERATIONAL_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface App {
  koa: Koa;
  dispatcher: Dispatcher;
  callback(): ReturnType<Koa['callback']>;
}

export function createApp(site: Site): App {
  const koa = new Koa({ proxy: true });
  const dispatcher = buildDispatcher(site);
  const apiRootPath = new URL(site.apiRoot).pathname;

  // Operational endpoints (/healthz, /readyz, /metrics) outside the API, and request durations by route.
  koa.use(async (ctx, next) => {
    const started = performance.now();
    if (OPERATIONAL_PATHS.has(ctx.path)) {
      const answer = await operationalResponse(site, ctx.method, ctx.path);
      if (answer) {
        ctx.status = answer.status;
        ctx.type = answer.type;
        ctx.body = answer.body;
        return;
      }
    }
    await next();
    site.metrics.observeRequest(ctx.method, ctx.path, ctx.status, (performance.now() - started) / 1000);
  });

  koa.use(async (ctx) => {
    if (await serveAuthorizationPage(site, ctx)) return;
    // Uploaded files, read-only (src/resources/media/http.ts).
    const upload = await serveUpload(site, ctx.method, ctx.path);
    if (upload) {
      ctx.status = upload.status;
      ctx.type = upload.type;
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = upload.body;
      return;
    }
    // The embed view an oEmbed frame shows (src/resources/oembed/local.ts).
    const embed = await serveEmbedPage(site, ctx.method, ctx.path);
    if (embed) {
      ctx.status = embed.status;
      ctx.type = embed.type;
      ctx.set(embed.headers);
      ctx.body = embed.body;
      return;
    }
    const requestId = (ctx.get('x-request-id') || randomUUID()).slice(0, 100);
    let result: RestResult;
    let signedIn = false;
    let jsonp: string | null = null;
    try {
      const rest = await toRestRequest(ctx, requestId, apiRootPath);
      jsonp = jsonpCallback(rest.query);
      const refusal = invalidJsonpCallback(rest.query);
      if (refusal) {
        jsonp = null;
        respond(ctx, refusal, site.apiRoot, false);
        return;
      }
      const authenticated = await authenticateRequest(site, ctx, requestId);
      const actor: Actor | null = authenticated?.actor ?? null;
      signedIn = actor !== null;
      result = await dispatcher.dispatch({ ...rest, actor });
    } catch (error) {
      if (error instanceof RestError) result = errorResult(error);
      else {
        console.error(`[${requestId}] ${ctx.method} ${ctx.url}`, error);
        result = errorResult(restError('internal_server_error', 'There has been a critical error on this site.', 500));
      }
    }
    respond(ctx, result, site.apiRoot, signedIn, jsonp);
  });

  return { koa, dispatcher, callback: () => koa.callback() };
}

async function toRestRequest(ctx: Koa.Context, requestId: string, apiRootPath: string): Promise<Omit<RestRequest, 'actor'>> {
  const query = parseQuery(ctx.querystring);
  // Method override: `?_method=` or the header replace the real method, as WordPress allows.
  const override = (typeof query._method === 'string' ? query._method : '') || ctx.get('x-http-method-override');
  const method = (override || ctx.method).toUpperCase();
  let path = ctx.path;
  if (apiRootPath !== '/' && path.startsWith(apiRootPath)) path = `/${path.slice(apiRootPath.length)}`;
  // `?rest_route=/core/v2/posts` addresses a route without pretty URLs.
  if (typeof query.rest_route === 'string' && (path === '/' || path === '')) path = query.rest_route;

  const rawBody = ctx.method === 'GET' || ctx.method === 'HEAD' ? Buffer.alloc(0) : await readBody(ctx);
  const type = (ctx.get('content-type') || '').toLowerCase();
  let json: Record<string, unknown> | null = null;
  let form: Record<string, unknown> | null = null;
  let files: RestRequest['files'];
  let invalidJson = false;
  if (rawBody.length > 0 && /^application\/([\w.+-]+\+)?json\b/.test(type)) {
    try {
      // PHP's json_decode refuses malformed UTF-8 (json_error_code 5) where decoding would substitute U+FFFD.
      if (!isUtf8(rawBody)) throw new Error('malformed UTF-8');
      const parsed: unknown = JSON.parse(rawBody.toString('utf8'));
      // A JSON body that is not an object carries no parameters (WordPress reads only objects).
      json = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      invalidJson = true;
    }
  } else if (rawBody.length > 0 && type.startsWith('application/x-www-form-urlencoded')) {
    form = parseQuery(rawBody.toString('utf8'));
  } else if (rawBody.length > 0 && type.startsWith('multipart/form-data')) {
    // Media uploads: fields are form params, files go to `files` (an unreadable body carries neither).
    const parsed = await parseMultipart(rawBody, ctx.get('content-type')).catch(() => null);
    if (parsed) {
      form = parsed.fields;
      files = parsed.files;
    }
  }
  return {
    method,
    path,
    query,
    rawQuery: ctx.querystring,
    json,
    form,
    invalidJson,
    rawBody,
    files,
    headers: ctx.headers as Record<string, string | string[] | undefined>,
    requestId,
    ip: ctx.ip,
  };
}

async function readBody(ctx: Koa.Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw restError('rest_request_too_large', 'The request body is too large.', 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function respond(ctx: Koa.Context, result: RestResult, apiRoot: string, signedIn: boolean, jsonp: string | null = null): void {
  ctx.status = result.status;
  ctx.set('Content-Type', 'application/json; charset=UTF-8');
  ctx.set('X-Robots-Tag', 'noindex');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Access-Control-Expose-Headers', 'X-WP-Total, X-WP-TotalPages, Link');
  ctx.set('Access-Control-Allow-Headers', 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type');
  // A response's own Link header replaces the discovery link, as PHP's header() replaces by default.
  ctx.set('Link', `<${apiRoot}>; rel="https://api.w.org/"`);
  if (signedIn) {
    ctx.set('Expires', 'Wed, 11 Jan 1984 05:00:00 GMT');
    ctx.set('Cache-Control', 'no-cache, must-revalidate, max-age=0');
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  // Koa itself leaves the body out of HEAD responses while keeping the GET headers.
  ctx.body = result.status === 204 || result.body === null || result.body === undefined ? '' : serializeBody(result.body);
  // The body is a string, or the UTF-8 of cached JSON (src/rest/serialized.ts).
  if (jsonp !== null && ctx.body !== '') {
    ctx.set('Content-Type', 'application/javascript; charset=UTF-8');
    ctx.body = jsonpBody(jsonp, String(ctx.body));
  }
  ctx.status = result.status;
}
