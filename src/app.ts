/**
 * createApp(site): the HTTP edge. Koa turns requests into RestRequests (body parsing, method override,
 * authentication before routing) and RestResults into responses with WordPress's headers. Anonymous GETs of
 * cacheable routes are answered from the shared response cache when it holds them (src/http/responseCache.ts),
 * before koa makes a context. Tests drive it through `app.callback()`; main.ts listens with it.
 */
import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Site } from './site';
import { buildDispatcher } from './api';
import { authenticateRequest, parseBasic, passwordHashesHeld } from './rest/authenticate';
import { RestError, restError } from './rest/errors';
import { answerableError } from './rest/domainErrors';
import { errorResult } from './rest/dispatch';
import type { Dispatcher } from './rest/dispatch';
import { parseQuery } from './rest/query';
import { parseJsonBody } from './rest/jsonBody';
import { serializeBody } from './rest/serialized';
import type { RestRequest, RestResult } from './rest/route';
import { invalidJsonpCallback, jsonpBody, jsonpCallback } from './rest/jsonp';
import { refusalOf } from './health/readModelWatch';
import type { Judgement } from './health/readModelWatch';
import {
  BodyGate,
  DEFAULT_BODY_LIMITS,
  bodyKind,
  bodyTooLarge,
  bodyToFile,
  busy,
  declaredOver,
  discardUnread,
  defaultBodyDir,
  hasBody,
  limitFor,
  parseMultipartToDisk,
  readSmallBody,
  removeBodyFiles,
} from './http/requestBodies';
import type { BodyLimits } from './http/requestBodies';
import { createResponseCache } from './http/responseCache';
import { OPERATIONAL_PATHS, operationalRoutes, sitePages } from './http/outsideRoutes';
import { compileTrustedProxies, serveClientAddress } from './http/clientAddress';
import type { ResponseCache, WrittenAnswer } from './http/responseCache';
import type { Authenticated } from './rest/authenticate';
import { CORS_FIXED_HEADERS, corsPolicy } from './http/cors';
import { Dialects, namespacesOfPaths } from './http/dialect';
import { isDependencyUnavailable } from './ports/unavailable';
import { OUTAGE_HEADERS, outageError } from './http/outage';
import type { ApiDialect } from './http/dialect';
import { logger } from './logger';

/** Retry-After while the read model is rebuilt from the log, and while it does not match the log (an operator's matter). */
const REBUILDING_RETRY_AFTER_SECONDS = 5;
const MISMATCH_RETRY_AFTER_SECONDS = 30;

export interface App {
  koa: Koa;
  dispatcher: Dispatcher;
  /** The shared response cache; null when configured off. */
  responseCache: ResponseCache | null;
  callback(): ReturnType<Koa['callback']>;
}

export function createApp(site: Site): App {
  // Koa never reads X-Forwarded-For itself: ctx.ip believes it only through the trusted proxies.
  const koa = new Koa({ proxy: false });
  serveClientAddress(koa, compileTrustedProxies(site.settings.trustedProxies ?? []));
  // A client that leaves before the end of its answer (a large list, an upload, a live feed) is no fault here: not
  // logged. Neither are the refusals koa answered itself (404, exposed client errors), as koa's own handler skips
  // them. Anything else is logged as every other failure is, one JSON line.
  koa.on('error', (error: unknown) => {
    const { code, status, expose } = (error ?? {}) as { code?: unknown; status?: unknown; expose?: unknown };
    if (CLIENT_GONE.has(code as string) || status === 404 || expose === true) return;
    logger.error({ err: error }, 'koa could not answer a request');
  });
  const dispatcher = buildDispatcher(site);
  // The core and wordpress dialects of the API (src/http/dialect.ts) and CORS (src/http/cors.ts).
  const namespaces = namespacesOfPaths(dispatcher.routes.map((route) => route.path));
  const dialects = new Dialects(
    { siteUrl: site.settings.siteUrl, advertised: site.settings.apiDialect ?? 'core' },
    namespaces,
  );
  const cors = corsPolicy(site.settings.corsAllowedOrigins ?? null);
  // The pages outside the API (authorization, audit, uploads, embeds): src/http/outsideRoutes.ts.
  const pages = sitePages(site, namespaces);
  const fixedHeaders = apiHeaders(dialects.advertisedRoot);
  const responseCache = createResponseCache(site.readModelVersion, {
    entries: site.caches.budget.entries('responses'),
    bytes: site.caches.budget.bytes('responses'),
  });
  if (responseCache) {
    countCacheUse(site, responseCache);
    site.caches.watch('responses', () => responseCache.size);
  }
  site.caches.watch('passwordHashes', () => passwordHashesHeld(site.readModel));
  const limits: BodyLimits = { ...DEFAULT_BODY_LIMITS, ...site.settings.bodyLimits };
  const bodies: BodyEdge = {
    site,
    dispatcher,
    limits,
    gate: new BodyGate(limits),
    dir: site.settings.bodyDir ?? defaultBodyDir(),
  };

  // The operational endpoints (/healthz, /readyz, /metrics) first: answered whatever the read model's state, untimed.
  // Their router is consulted for their paths only: its dispatch on every API request cost several µs of CPU each.
  // Then the read-model gate, the response cache and request durations by route; an API request is answered here.
  // A request for a page outside the API goes on to the pages' router, and one no page answers to the API.
  const operational = operationalRoutes(site);
  koa.use((ctx, next) => {
    if (OPERATIONAL_PATHS.includes(ctx.path)) return operational(ctx, async () => served(ctx, performance.now(), next));
    return served(ctx, performance.now(), next);
  });
  koa.use(pages.routes);
  koa.use((ctx) => {
    allowOrigin(ctx);
    return serveApi(ctx);
  });

  const observe = (ctx: Koa.Context, started: number, status: number) =>
    site.metrics.observeRequest(ctx.method, ctx.path, status, (performance.now() - started) / 1000);

  /** The origin's CORS headers, on the response before any API answer (cached ones too) is written over them. */
  const allowOriginOf = (req: IncomingMessage, res: ServerResponse): void => {
    const lines = cors.originHeaders(req.headers.origin);
    if (lines !== null) for (let i = 0; i < lines.length; i += 2) res.setHeader(lines[i]!, lines[i + 1]!);
  };
  const allowOrigin = (ctx: Koa.Context): void => allowOriginOf(ctx.req, ctx.res);

  /** Whether answeredFromCache asked the cache for this request (it did not hold it): koa does not ask again. */
  const cacheAsked = (url: string, path: string): boolean =>
    responseCache !== null && PLAIN_TARGET.test(url) && !OPERATIONAL_PATHS.includes(path);
  /**
   * An anonymous GET or HEAD the response cache holds is answered before koa makes a context for it (the cache
   * writes the whole answer itself), when the read model is trusted and koa would read the request target as this
   * plain path and query (parseurl's fast case). The operational paths never reach the cache. Anything else, and
   * every miss, is koa's.
   */
  const answeredFromCache = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url!;
    if (!PLAIN_TARGET.test(url)) return false;
    const judgement = site.readModelWatch.latest();
    if (judgement === null || refusalOf(judgement) !== null) return false;
    const started = performance.now();
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (OPERATIONAL_PATHS.includes(path)) return false;
    if (!pages.isPage(path)) allowOriginOf(req, res);
    if (!responseCache!.serve(req, res)) return false;
    site.metrics.observeRequest(req.method!, path, res.statusCode, (performance.now() - started) / 1000);
    return true;
  };
  const callback = (): ReturnType<Koa['callback']> => {
    const handle = koa.callback();
    if (responseCache === null) return handle;
    return (req, res) =>
      answeredFromCache(req as IncomingMessage, res as ServerResponse) ? ANSWERED : handle(req, res);
  };

  const served = async (ctx: Koa.Context, started: number, next: Koa.Next): Promise<void> => {
    // Nothing is answered from a read model that cannot be trusted (unbuilt, wiped, another log's, ahead of the
    // store): not even a cached answer, which may be from before a wipe. Known at once after the first judgement.
    const known = site.readModelWatch.latest();
    const judgement = known ?? (await site.readModelWatch.current());
    if (refusalOf(judgement) !== null) return refuse(ctx, started, judgement);
    // Judged before koa, the judgement was the same there: answeredFromCache asked the cache when it could.
    return servedNow(ctx, started, next, known !== null && cacheAsked(ctx.url, ctx.path));
  };

  const refuse = (ctx: Koa.Context, started: number, judgement: Judgement): void => {
    allowOrigin(ctx);
    const unbuilt = judgement.verdict?.state === 'unbuilt';
    ctx.status = 503;
    ctx.set('Retry-After', String(unbuilt ? REBUILDING_RETRY_AFTER_SECONDS : MISMATCH_RETRY_AFTER_SECONDS));
    ctx.type = 'application/json; charset=UTF-8';
    ctx.body = JSON.stringify({
      code: 'rest_read_model_unavailable',
      message: unbuilt
        ? 'The site is rebuilding its read model from its event log. Try again shortly.'
        : "The site's read model does not match its event log; it is not served until that is settled.",
      data: { status: 503 },
    });
    observe(ctx, started, 503);
  };

  const servedNow = async (ctx: Koa.Context, started: number, next: Koa.Next, asked: boolean): Promise<void> => {
    const outside = pages.isPage(ctx.path);
    if (!outside && !asked) allowOrigin(ctx);
    if (!asked && responseCache?.serve(ctx.req, ctx.res)) {
      ctx.respond = false;
      observe(ctx, started, ctx.res.statusCode);
      return;
    }
    await (outside ? next().catch((error: unknown) => outsideFailed(ctx, error)) : serveApi(ctx));
    observe(ctx, started, ctx.status);
  };

  /** A page outside the API that failed: an outage answers 503 with Retry-After; anything else is koa's 500. */
  const outsideFailed = (ctx: Koa.Context, error: unknown): void => {
    if (!isDependencyUnavailable(error)) throw error;
    logger.warn({ method: ctx.method, url: ctx.url }, error.message);
    ctx.status = 503;
    ctx.set(OUTAGE_HEADERS);
    ctx.body = outageError(error, null).toJSON();
  };

  const serveApi = async (ctx: Koa.Context): Promise<void> => {
    // Read before anything of the read model is: an answer is kept only if nothing changed while it was computed.
    const cacheVersion = responseCache?.admit(ctx.req) ?? null;
    const requestId = (ctx.get('x-request-id') || randomUUID()).slice(0, 100);
    // A request that may write: when it started and what it appended (its read-your-writes bound, its outage answer).
    const inFlight = ctx.method === 'GET' || ctx.method === 'HEAD' ? null : site.requests.begin(requestId);
    // What the answer depends on besides the result, as far as the request got before any error.
    const state: ApiState = { method: ctx.method, signedIn: false, jsonp: null, dialect: 'core', request: null };
    const failed = (error: unknown): RestResult => {
      const refusal = answerableError(error);
      if (refusal !== null) return errorResult(refusal);
      if (isDependencyUnavailable(error)) {
        // An outage is no fault of this process: one line, no stack.
        logger.warn({ requestId, method: ctx.method, url: ctx.url }, error.message);
        return { ...errorResult(outageError(error, inFlight)), headers: { ...OUTAGE_HEADERS } };
      }
      logger.error({ requestId, method: ctx.method, url: ctx.url, err: error }, 'request failed');
      return errorResult(restError('internal_server_error', 'There has been a critical error on this site.', 500));
    };
    const parsedAndAnswered = async (): Promise<RestResult | null> => {
      const rest = await toRestRequest(ctx, requestId, dialects, state, bodies);
      state.method = rest.method;
      state.request = rest;
      if (state.dialect === 'wordpress') dialects.batchPaths(rest);
      state.jsonp = jsonpCallback(rest.query);
      const refusal = invalidJsonpCallback(rest.query);
      if (refusal) {
        respond(ctx, refusal, fixedHeaders, false, null);
        return null;
      }
      // A request with a body was authenticated before the body was read (withBody).
      const found =
        ctx.state.authenticated !== undefined
          ? (ctx.state.authenticated as Authenticated | null)
          : await authenticateRequest(site, ctx, requestId);
      rest.actor = found?.actor ?? null;
      state.signedIn = rest.actor !== null;
      return dispatcher.dispatch(rest);
    };
    const answer = (result: RestResult | null): void => {
      inFlight?.end();
      if (result === null) return;
      if (state.dialect === 'wordpress' && state.request !== null) result = dialects.answer(result, state.request);
      if (result.stream) {
        respondStream(ctx, result, result.stream, fixedHeaders, state.signedIn);
        return;
      }
      const written = respond(ctx, result, fixedHeaders, state.signedIn, state.jsonp);
      if (
        cacheVersion !== null &&
        state.method === 'GET' &&
        !state.signedIn &&
        result.cacheable === true &&
        written.status === 200
      ) {
        responseCache!.keep(ctx.req, cacheVersion, written);
      }
    };
    let result: RestResult | null;
    try {
      result = await parsedAndAnswered();
    } catch (error) {
      result = failed(error);
    }
    answer(result);
  };

  return { koa, dispatcher, responseCache, callback };
}

/** Socket errors of a client that went away before its answer was written. */
const CLIENT_GONE: ReadonlySet<string> = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** A request target koa reads at once as path and query (parseurl's fast case): no `#`, no white space. */
const PLAIN_TARGET = /^\/[^#\s\u00a0\ufeff]*$/;
const ANSWERED: Promise<void> = Promise.resolve();

/** Hits and misses of the response cache, and what it holds, on /metrics. */
function countCacheUse(site: Site, cache: ResponseCache): void {
  const { registry } = site.metrics;
  const hits = registry.counter(
    'palimpsest_response_cache_hits_total',
    'Anonymous GET and HEAD requests answered from the shared response cache.',
  );
  const misses = registry.counter(
    'palimpsest_response_cache_misses_total',
    'Anonymous GET and HEAD requests the shared response cache could not answer.',
  );
  const entries = registry.gauge(
    'palimpsest_response_cache_entries',
    'Answers the shared response cache holds (some may be of an older read-model version).',
  );
  const bytes = registry.gauge('palimpsest_response_cache_bytes', 'Bytes the shared response cache holds.');
  // Counted as plain numbers by the cache (no label lookup per request), carried over at each scrape.
  let counted = { hits: 0, misses: 0 };
  registry.collect(() => {
    hits.inc(cache.hits - counted.hits);
    misses.inc(cache.misses - counted.misses);
    counted = { hits: cache.hits, misses: cache.misses };
    entries.set(cache.size.entries);
    bytes.set(cache.size.bytes);
  });
}

/** The method, signed-in state and JSONP callback an API answer is written with (see respond). */
interface ApiState {
  method: string;
  signedIn: boolean;
  jsonp: string | null;
  /** The dialect the request was asked in (src/http/dialect.ts), and the request once parsed. */
  dialect: ApiDialect;
  request: RestRequest | null;
}

/** The body of a GET or HEAD (never read). */
const NO_BODY = Buffer.alloc(0);

/** The RestRequest of an API request (its actor still null), its body read and parsed for a method that has one. */
function toRestRequest(
  ctx: Koa.Context,
  requestId: string,
  dialects: Dialects,
  state: ApiState,
  bodies: BodyEdge,
): Promise<RestRequest> {
  const query = parseQuery(ctx.querystring);
  // Method override: `?_method=` or the header replace the real method, as WordPress allows.
  const override = (typeof query._method === 'string' ? query._method : '') || ctx.get('x-http-method-override');
  const method = (override || ctx.method).toUpperCase();
  // The path under the API root, in the interface's names, and the dialect it was asked in (`?rest_route=` included).
  const { path, dialect } = dialects.routed(ctx.path, query.rest_route);
  state.dialect = dialect;
  const request: RestRequest = {
    method,
    path,
    query,
    rawQuery: ctx.querystring,
    json: null,
    form: null,
    invalidJson: false,
    rawBody: NO_BODY,
    files: undefined,
    headers: ctx.headers as Record<string, string | string[] | undefined>,
    requestId,
    ip: ctx.ip,
    actor: null,
  };
  return ctx.method === 'GET' || ctx.method === 'HEAD' ? Promise.resolve(request) : withBody(ctx, request, bodies);
}

/** What reading bodies takes: the routes (which admit anonymous callers), the limits, the gate and the files' directory. */
interface BodyEdge {
  site: Site;
  dispatcher: Dispatcher;
  limits: BodyLimits;
  gate: BodyGate;
  dir: string;
}

/**
 * The request with its body read within its limit and parsed. The caller is authenticated first (the outcome is
 * kept in ctx.state.authenticated), so that no body is read for bad credentials, nor for an anonymous caller where
 * no endpoint admits one. A declared length over the limit, or a full gate, is refused before a byte is read; after
 * every such refusal at most a small budget of the rest is read and dropped (discardUnread).
 */
async function withBody(ctx: Koa.Context, request: RestRequest, bodies: BodyEdge): Promise<RestRequest> {
  if (!hasBody(ctx.req)) return request;
  const { limits, gate, dir } = bodies;
  const anonymous = parseBasic(ctx.get('authorization') || undefined) === null;
  const refuse = (error: RestError): never => {
    discardUnread(ctx.req, limits.anonymous);
    throw error;
  };
  if (anonymous) {
    ctx.state.authenticated = null;
    if (!bodies.dispatcher.admitsAnonymousBody(request.method, request.path)) {
      discardUnread(ctx.req, limits.anonymous);
      request.bodyWithheld = true;
      return request;
    }
  } else {
    try {
      ctx.state.authenticated = await authenticateRequest(bodies.site, ctx, request.requestId);
    } catch (error) {
      // Bad credentials or a throttled sign-in: refused without reading the body.
      discardUnread(ctx.req, limits.anonymous);
      throw error;
    }
  }
  const type = ctx.get('content-type') || '';
  const kind = bodyKind(type);
  const limit = limitFor(limits, kind, anonymous);
  const declared = declaredOver(ctx.req, limit);
  if (declared !== null) refuse(bodyTooLarge(kind, limit, declared));
  const release = gate.enter(anonymous);
  if (!release) {
    ctx.set('Retry-After', '1');
    refuse(busy());
  }
  const files: { filepath: string }[] = [];
  // The slot and the files are held until the answer is sent.
  ctx.res.once('close', () => {
    release!();
    void removeBodyFiles(files);
  });
  try {
    if (kind === 'multipart') {
      // Media uploads: fields are form params, files go to `files` (an unreadable body carries neither).
      const parsed = await parseMultipartToDisk(ctx, limit, dir);
      if (parsed) {
        files.push(...Object.values(parsed.files));
        request.form = parsed.fields;
        request.multipartFields = parsed.fieldLists;
        request.files = parsed.files;
      }
      return request;
    }
    if (kind === 'raw') {
      const file = await bodyToFile(ctx.req, limit, dir);
      files.push(file);
      if (file.size > 0) request.rawFile = file;
      return request;
    }
    // Bytes, not koa-body's UTF-8 text and qs names: WordPress's JSON and form readings need them (requestBodies.ts).
    const rawBody = await readSmallBody(ctx.req, limit, kind);
    request.rawBody = rawBody;
    if (rawBody.length > 0 && kind === 'json') {
      const parsed = parseJsonBody(rawBody);
      if ('params' in parsed) request.json = parsed.params;
      else request.invalidJson = true;
    } else if (rawBody.length > 0) request.form = parseQuery(rawBody.toString('utf8'));
    return request;
  } catch (error) {
    if (error instanceof RestError && error.status === 413) refuse(error);
    throw error;
  }
}

/** The header lines every API answer starts with, flat (name, value, …). */
function apiHeaders(apiRoot: string): readonly string[] {
  return [
    'Content-Type',
    'application/json; charset=UTF-8',
    'X-Robots-Tag',
    'noindex',
    'X-Content-Type-Options',
    'nosniff',
    ...CORS_FIXED_HEADERS,
    // A response's own Link header replaces the discovery link, as PHP's header() replaces by default.
    'Link',
    `<${apiRoot}>; rel="https://api.w.org/"`,
  ];
}

const SIGNED_IN_HEADERS = [
  'Expires',
  'Wed, 11 Jan 1984 05:00:00 GMT',
  'Cache-Control',
  'no-cache, must-revalidate, max-age=0',
];
/** Statuses whose answers have no body (and, as koa sends them, no Content-Type or Content-Length). */
const EMPTY_STATUSES = new Set([204, 205, 304]);

/**
 * Writes the answer: the fixed headers, the result's own (one of the same name, in any case, replaces an earlier one
 * in its place, as setting a header twice does), Content-Length and the body, in one writeHead and one end. Returns
 * what was written, for the response cache. Koa's own response step is skipped; headers an earlier step set on the
 * response (Retry-After) stay first.
 */
function respond(
  ctx: Koa.Context,
  result: RestResult,
  fixedHeaders: readonly string[],
  signedIn: boolean,
  jsonp: string | null,
): WrittenAnswer {
  const status = result.status;
  const headers = [...fixedHeaders];
  if (signedIn) headers.push(...SIGNED_IN_HEADERS);
  // Own names only: nothing inherited becomes a header.
  if (result.headers)
    for (const name in result.headers)
      if (Object.hasOwn(result.headers, name)) setHeader(headers, name, result.headers[name]!);
  let body: Buffer;
  if (EMPTY_STATUSES.has(status)) {
    removeHeader(headers, 'content-type');
    body = Buffer.alloc(0);
  } else {
    const serialized = result.body === null || result.body === undefined ? '' : serializeBody(result.body);
    // The body is a string, or the UTF-8 of cached JSON (src/rest/serialized.ts).
    if (jsonp !== null && serialized !== '') {
      setHeader(headers, 'Content-Type', 'application/javascript; charset=UTF-8');
      body = Buffer.from(jsonpBody(jsonp, String(serialized)), 'utf8');
    } else body = typeof serialized === 'string' ? Buffer.from(serialized, 'utf8') : serialized;
    setHeader(headers, 'Content-Length', String(body.length));
  }
  // Through koa's setter: the status line's reason as koa gives it, and the status the duration metric reads.
  ctx.status = status;
  ctx.respond = false;
  const res: ServerResponse = ctx.res;
  res.writeHead(status, headers);
  // A HEAD answer has the GET's headers and no body.
  res.end(ctx.method === 'HEAD' ? undefined : body);
  return { status, headers, body };
}

/**
 * Sends a streamed answer (a live feed) through koa: koa writes it as it comes and destroys it when the answer ends
 * or the client goes. Such answers are never kept by the response cache nor compressed; the socket is not timed out
 * (the feed sends its own heartbeats). A HEAD answer has the headers only.
 */
function respondStream(
  ctx: Koa.Context,
  result: RestResult,
  stream: Readable,
  fixedHeaders: readonly string[],
  signedIn: boolean,
): void {
  const headers = [...fixedHeaders];
  if (signedIn) headers.push(...SIGNED_IN_HEADERS);
  if (result.headers)
    for (const name in result.headers)
      if (Object.hasOwn(result.headers, name)) setHeader(headers, name, result.headers[name]!);
  ctx.status = result.status;
  for (let i = 0; i < headers.length; i += 2) ctx.set(headers[i]!, headers[i + 1]!);
  if (ctx.method === 'HEAD') {
    stream.destroy();
    return;
  }
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.compress = false;
  ctx.body = stream;
}

function setHeader(headers: string[], name: string, value: string): void {
  const lower = name.toLowerCase();
  for (let i = 0; i < headers.length; i += 2) {
    // Names are ASCII tokens: only one of the same length can be the same name (no lower-cased copy of the others).
    if (headers[i]!.length === lower.length && headers[i]!.toLowerCase() === lower) {
      headers[i] = name;
      headers[i + 1] = String(value);
      return;
    }
  }
  headers.push(name, String(value));
}

function removeHeader(headers: string[], lowerName: string): void {
  for (let i = headers.length - 2; i >= 0; i -= 2) if (headers[i]!.toLowerCase() === lowerName) headers.splice(i, 2);
}
