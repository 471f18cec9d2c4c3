/**
 * The request pipeline, in WordPress's order (which decides which error a client gets):
 * match route and method (rest_no_route) -> JSON body (rest_invalid_json) -> merge params -> validate args
 * (rest_missing_callback_param, rest_invalid_param) -> permission (401/403) -> handler -> Allow header,
 * `_embed`, `_fields`, `_envelope`.
 *
 * It knows nothing about HTTP: koa (app.ts) and batch (batch.ts) both call it with a RestRequest.
 */
import { validateArgs } from './args/routeArgs';
import { AdmissionWindow } from '../core/admissionWindow';
import type { ArgSchema, ArgsResult } from './args/schema';
import { applyFields } from './schema';
import { describeRoute } from './discovery';
import { parseQuery } from './query';
import { RestError, authorizationStatus, restError } from './errors';
import { answerableError } from './domainErrors';
import { jsonErrorOf } from './jsonErrors';
import type { Endpoint, HandlerContext, Method, RestRequest, RestResult, RouteDefinition } from './route';
import { deepFreeze } from '../core/deepFreeze';
import { CacheBudget } from '../caches/budget';
import type { CacheSize } from '../caches/budget';

/**
 * Runs a request's `serve` (the whole pipeline; the guard may give it the request with another request id) or answers
 * for it: how safe retries wrap requests. `endpoint`: the one the request matched, null when none (or none the guard
 * may wrap).
 */
export type RequestGuard = (
  request: RestRequest,
  endpoint: Endpoint | null,
  serve: (request: RestRequest) => Promise<RestResult>,
) => Promise<RestResult>;

interface CompiledRoute {
  definition: RouteDefinition;
  pattern: RegExp;
  /** The lower-cased literal start of the path every match has (see literalPrefix). */
  prefix: string;
}

export interface Matched {
  route: RouteDefinition;
  endpoint: Endpoint;
  captures: Record<string, string>;
}

/** A request that matched, validated and passed its permission check: ready to run. */
export interface Prepared {
  matched: Matched;
  ctx: HandlerContext;
  /** The merged parameters before validation, for judging the route's other endpoints. */
  input: Record<string, unknown>;
}

/** The endpoint a request matched, as judged before its handler ran: its validated params and the memo its rules used. */
interface JudgedEndpoint {
  endpoint: Endpoint;
  params: Record<string, unknown>;
  memo?: Map<string, unknown>;
}

/**
 * The validated args an endpoint keeps by path and raw query string. Once they have been emptied for being full, a
 * URL is kept only when seen again within the window: at 100,000 posts read at random, keeping every item URL only
 * filled the map with entries promoted to the old generation and thrown away at the next emptying.
 */
interface ValidatedArgsKept {
  byUrl: Map<string, Record<string, unknown>>;
  /** Set when the map was first emptied for being full. */
  full: boolean;
  seenOnce: AdmissionWindow;
}

const noRoute = () => restError('rest_no_route', 'No route was found matching the URL and request method.', 404);

/**
 * The plain characters a route pattern starts with, lower-cased: a path the pattern matches starts with them in some
 * case. Only ASCII letters, digits, `/`, `-` and `_` are taken (up to the first other character), since a
 * case-insensitive pattern without the `u` flag matches an ASCII character only with one of the same letter.
 */
export function literalPrefix(path: string): string {
  const match = /^[A-Za-z0-9/_-]*/.exec(path)![0];
  // A quantifier or an alternation after the last plain character makes it optional.
  const next = path.charAt(match.length);
  const prefix = next === '?' || next === '*' || next === '{' || next === '|' ? match.slice(0, -1) : match;
  return path.includes('|') ? '' : prefix.toLowerCase();
}

/** `(?P<id>[\d]+)` as WordPress writes it, compiled to a JavaScript named group, anchored, case-insensitive. */
export function compileRoutePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/\(\?P</g, '(?<')}$`, 'i');
}

export class Dispatcher {
  private readonly compiled: CompiledRoute[];
  /** Per endpoint: the validated args of anonymous bodiless requests, by path and raw query string. */
  private readonly validatedArgs = new WeakMap<Endpoint, ValidatedArgsKept>();
  /** The same, listed, for what they hold (held). */
  private readonly validatedArgsKept: ValidatedArgsKept[] = [];
  private readonly validatedArgsBound: number;
  /** Per args object: whether its outcome for an anonymous request depends on the input alone. */
  private readonly reusableArgs = new WeakMap<Record<string, ArgSchema>, boolean>();

  constructor(
    readonly routes: readonly RouteDefinition[],
    private readonly options: {
      apiRoot: string;
      guard?: RequestGuard;
      /**
       * Validated args kept per endpoint (default: the default cache budget's `validatedArgs`, src/caches/budget.ts);
       * emptied when full, 0 keeps none.
       */
      validatedArgsKept?: number;
    },
  ) {
    this.validatedArgsBound = options.validatedArgsKept ?? CacheBudget.defaults('memory').entries('validatedArgs');
    this.compiled = routes.map((definition) => ({
      definition,
      pattern: compileRoutePattern(definition.path),
      prefix: literalPrefix(definition.path),
    }));
  }

  /** Finds the route whose pattern matches the path, and the endpoint serving the method (HEAD uses GET). */
  match(
    path: string,
    method: string,
  ): { route: RouteDefinition; captures: Record<string, string>; endpoint: Endpoint | null } | null {
    const wanted = (method === 'HEAD' ? 'GET' : method) as Method;
    let firstPathMatch: { route: RouteDefinition; captures: Record<string, string> } | null = null;
    // Routes whose literal start the path lacks are passed over without running their pattern.
    const lowerPath = path.toLowerCase();
    for (const { definition, pattern, prefix } of this.compiled) {
      if (!lowerPath.startsWith(prefix)) continue;
      const m = pattern.exec(path);
      if (!m) continue;
      const captures = { ...(m.groups ?? {}) };
      const endpoint = definition.endpoints.find((e) => e.methods.includes(wanted));
      if (endpoint) return { route: definition, captures, endpoint };
      firstPathMatch ??= { route: definition, captures };
    }
    return firstPathMatch ? { ...firstPathMatch, endpoint: null } : null;
  }

  /**
   * Whether the body of a caller without credentials is worth reading: the route has an endpoint for the method
   * and its rule may let such a caller through. Otherwise the answer is a refusal whatever the body says, and the
   * body is not read (src/app.ts).
   */
  admitsAnonymousBody(method: string, path: string): boolean {
    if (method === 'OPTIONS') return false;
    const endpoint = this.match(normalisePath(path), method)?.endpoint;
    return endpoint !== null && endpoint !== undefined && endpoint.signedInOnly !== true;
  }

  /** Everything before the handler: matching, parsing, validation and permission. */
  async prepare(request: RestRequest): Promise<Prepared | RestError> {
    const found = this.match(normalisePath(request.path), request.method);
    if (!found?.endpoint) return noRoute();
    if (request.invalidJson) {
      return restError('rest_invalid_json', 'Invalid JSON body passed.', 400, jsonErrorOf(request.rawBody));
    }
    const { endpoint, captures } = found;
    // Precedence, lowest first: URL captures < query < form body < JSON body (defaults come from validation).
    const input: Record<string, unknown> = { ...captures, ...request.query, ...request.form, ...request.json };
    const validated = this.validate(endpoint, input, request);
    // An unread body's parameters are unknown: its caller gets the rule's refusal, judged on the rest (as OPTIONS does).
    if ('error' in validated && !request.bodyWithheld) return validated.error;
    const params = 'error' in validated ? input : { ...input, ...validated.values };
    const ctx: HandlerContext = { request, params, actor: request.actor, memo: new Map() };
    const verdict = await this.permit(endpoint, ctx);
    if (verdict !== true) return verdict;
    // A rule marked signedInOnly never lets an anonymous caller through; were it to, the handler still gets no unread body.
    if (request.bodyWithheld) return withheldBodyRefusal();
    return { matched: found as Matched, ctx, input };
  }

  /**
   * Runs a prepared request's handler, turning thrown refusals (RestErrors, and domain errors as domainErrors.ts
   * answers them) into error results.
   */
  async execute(prepared: Prepared): Promise<RestResult> {
    let result: RestResult;
    try {
      result = await prepared.matched.endpoint.handle(prepared.ctx);
    } catch (error) {
      const refusal = answerableError(error);
      if (refusal === null) throw error;
      result = errorResult(refusal);
    }
    const { route, endpoint } = prepared.matched;
    return this.withAllow(result, route, prepared.input, prepared.ctx.request, {
      endpoint,
      params: prepared.ctx.params,
      memo: prepared.ctx.memo,
    });
  }

  /** A request refused before its handler. Once a route matched, WordPress still says which methods are allowed. */
  refused(request: RestRequest, error: RestError): Promise<RestResult> {
    const result = errorResult(error);
    const found = this.match(normalisePath(request.path), request.method);
    if (!found?.endpoint) return Promise.resolve(result);
    const input: Record<string, unknown> = { ...found.captures, ...request.query, ...request.form, ...request.json };
    return this.withAllow(result, found.route, input, request);
  }

  /**
   * The whole pipeline for one request, with the response-shaping globals (`_embed`, `_fields`, `_envelope`)
   * applied, as served over HTTP. The result is marked `cacheable` when the endpoint that answered is, and so is
   * every endpoint an `_embed` asked (the response-shaping globals are pure functions of the URL).
   */
  dispatch(request: RestRequest, options: { embed?: boolean } = {}): Promise<RestResult> {
    if (request.method === 'OPTIONS') return this.options_(request);
    return this.guarded(request, (guarded) => this.answerUnguarded(guarded, options));
  }

  /**
   * `serve` for the request, through the guard when one is set and the request carries an `Idempotency-Key` (safe
   * retries: src/resources/idempotency/guard.ts); batch sub-requests pass through it one by one. `batch`: only
   * endpoints that allow batches are guarded.
   */
  guarded(
    request: RestRequest,
    serve: (request: RestRequest) => Promise<RestResult>,
    batch = false,
  ): Promise<RestResult> {
    const guard = this.options.guard;
    if (guard === undefined || request.headers['idempotency-key'] === undefined) return serve(request);
    const endpoint = this.match(normalisePath(request.path), request.method)?.endpoint ?? null;
    return guard(request, batch && endpoint?.allowBatch !== true ? null : endpoint, serve);
  }

  private async answerUnguarded(request: RestRequest, options: { embed?: boolean }): Promise<RestResult> {
    const prepared = await this.prepare(request);
    const result = prepared instanceof RestError ? await this.refused(request, prepared) : await this.execute(prepared);
    return this.shaped(request, prepared, result, options);
  }

  /** The response-shaping globals applied to an answer. */
  private async shaped(
    request: RestRequest,
    prepared: Prepared | RestError,
    result: RestResult,
    options: { embed?: boolean },
  ): Promise<RestResult> {
    const tally: EmbedTally = {
      cacheable:
        !(prepared instanceof RestError) && prepared.matched.endpoint.cacheable === true && result.cacheable !== false,
    };
    const isError = result.status >= 400;
    // A streamed answer is sent as it is made: nothing to embed, pick or wrap.
    if (result.stream) return result;
    const linksBesideFields = !(prepared instanceof RestError) && prepared.matched.endpoint.linksBesideFields === true;
    if (!isError && options.embed !== false && request.query._embed !== undefined) {
      const body = await this.embed(result.body, request, tally);
      return this.finished(request, { ...result, body }, tally, isError, linksBesideFields);
    }
    return this.finished(request, result, tally, isError, linksBesideFields);
  }

  private finished(
    request: RestRequest,
    result: RestResult,
    tally: EmbedTally,
    isError: boolean,
    linksBesideFields = false,
  ): RestResult {
    if (!isError && request.query._fields !== undefined) {
      const body = applyFields(result.body, fieldList(request.query._fields));
      const links = linksBesideFields ? linksOf(result.body) : undefined;
      result = { ...result, body: links === undefined ? body : { ...(body as object), _links: links } };
    }
    if (request.query._envelope !== undefined) {
      result = {
        status: 200,
        body: { body: result.body, status: result.status, headers: phpMap(envelopeHeaders(result.headers ?? {})) },
        headers: {},
      };
    }
    return tally.cacheable
      ? { ...result, cacheable: true }
      : result.cacheable === true
        ? { ...result, cacheable: false }
        : result;
  }

  /**
   * OPTIONS: the route's description with its schema, and the methods the caller may use (no `Allow` header when
   * there are none). WordPress answers OPTIONS before matching an endpoint, so no endpoint's defaults are added to
   * the request its rules judge: a comments list rule sees no `status=approve` and refuses those who may not choose
   * a status.
   */
  private async options_(request: RestRequest): Promise<RestResult> {
    const found = this.match(normalisePath(request.path), 'GET') ?? this.match(normalisePath(request.path), 'POST');
    const route = found?.route ?? this.compiled.find((c) => c.pattern.test(normalisePath(request.path)))?.definition;
    if (!route) return errorResult(noRoute());
    const body: Record<string, unknown> = { ...describeRoute(route, this.options.apiRoot) };
    if (route.schema) body.schema = route.schema;
    const input = { ...(found?.captures ?? {}), ...request.query };
    const memo = new Map<string, unknown>();
    const methods: string[] = [];
    for (const endpoint of route.endpoints) {
      if (request.actor === null && endpoint.signedInOnly === true) continue;
      // Each endpoint's rule sees the request as that endpoint would have validated it; one whose args it would refuse
      // (a create without its required `name`) is still judged, on the request as sent, as WordPress judges them all.
      const validated = validateArgs(endpoint.args, input, { request });
      const params = 'error' in validated ? input : { ...input, ...sentOnly(validated.values, input) };
      const ctx: HandlerContext = { request, params, actor: request.actor, memo };
      if ((await this.permitOrFalse(endpoint, ctx)) === true) methods.push(...endpoint.methods);
    }
    // A caller allowed nothing gets no Allow header at all, as from WordPress (an empty one would say the same).
    return withAllowHeader({ status: 200, body }, methods.join(', '));
  }

  /**
   * validateArgs, reusing an earlier outcome where the input is the same and nothing else can change it: an
   * anonymous request without a body, whose input is then exactly its path's captures and its raw query string,
   * on an endpoint whose args have no `validate` rule beyond ones that look at the value and the caller only.
   * Only successes are kept (deeply frozen, so no handler can change them for the next request).
   */
  private validate(endpoint: Endpoint, input: Record<string, unknown>, request: RestRequest): ArgsResult {
    if (
      request.rawQuery === undefined ||
      request.actor !== null ||
      request.json !== null ||
      request.form !== null ||
      !this.argsReusable(endpoint.args)
    ) {
      return validateArgs(endpoint.args, input, { request });
    }
    const key = `${request.path}?${request.rawQuery}`;
    const bound = this.validatedArgsBound;
    let kept = this.validatedArgs.get(endpoint);
    if (kept === undefined) {
      kept = { byUrl: new Map(), full: false, seenOnce: new AdmissionWindow(bound) };
      this.validatedArgs.set(endpoint, kept);
      this.validatedArgsKept.push(kept);
    }
    const hit = kept.byUrl.get(key);
    if (hit !== undefined) return { values: hit };
    const validated = validateArgs(endpoint.args, input, { request });
    if ('values' in validated && bound > 0 && (!kept.full || kept.seenOnce.admits(key))) {
      if (kept.byUrl.size >= bound) {
        kept.byUrl.clear();
        kept.full = true;
      }
      kept.byUrl.set(key, deepFreeze(validated.values));
    }
    return validated;
  }

  /** The validated args kept now, over the endpoints that keep any. */
  validatedArgsHeld(): CacheSize {
    let entries = 0;
    for (const kept of this.validatedArgsKept) entries += kept.byUrl.size;
    return { entries, instances: this.validatedArgsKept.length };
  }

  private argsReusable(args: Record<string, ArgSchema>): boolean {
    let reusable = this.reusableArgs.get(args);
    if (reusable === undefined) {
      reusable = Object.values(args).every(
        (arg) => arg.validate === undefined || arg.validateDependsOnCallerOnly === true,
      );
      this.reusableArgs.set(args, reusable);
    }
    return reusable;
  }

  /** The endpoint's rule on the request: true, or the refusal. */
  private async permit(endpoint: Endpoint, ctx: HandlerContext): Promise<true | RestError> {
    try {
      return verdictOf(await endpoint.permission(ctx), ctx);
    } catch (error) {
      const refusal = answerableError(error);
      if (refusal !== null) return refusal;
      throw error;
    }
  }

  /** Whether the rule lets the request through; any refusal or failure of the rule is a no. */
  private async permitOrFalse(endpoint: Endpoint, ctx: HandlerContext): Promise<boolean> {
    try {
      return (await this.permit(endpoint, ctx)) === true;
    } catch {
      return false;
    }
  }

  private async withAllow(
    result: RestResult,
    route: RouteDefinition,
    input: Record<string, unknown>,
    request: RestRequest,
    matched?: JudgedEndpoint,
  ): Promise<RestResult> {
    return withAllowHeader(result, await this.allowHeader(route, input, request, matched));
  }

  /**
   * WordPress lists in `Allow` the route's methods whose permission rule the caller passes, the matched one
   * included, judged once the request was answered (so an item just deleted allows nothing, and the header is
   * left out). Errors after routing get it too.
   */
  private async allowHeader(
    route: RouteDefinition,
    input: Record<string, unknown>,
    request: RestRequest,
    matched?: JudgedEndpoint,
  ): Promise<string> {
    // A fresh memo after a write: the handler may have changed what the rules look at. A read changed
    // nothing, so the rules reuse what the request already loaded (on Redis, the item's round trip).
    const safe = request.method === 'GET' || request.method === 'HEAD';
    const memo = safe && matched?.memo ? matched.memo : new Map<string, unknown>();
    const methods: string[] = [];
    // Endpoint after endpoint, in order: a rule may rely on what an earlier one put in the memo.
    for (const endpoint of route.endpoints) {
      // Judging it could only build a refusal (an anonymous reader of a post would pay for the update and delete
      // rules and the validation of their args on every new URL).
      if (request.actor === null && endpoint.signedInOnly === true) continue;
      // A read's own endpoint passed its rule before the handler ran, on these params and this memo, and the read
      // changed nothing the rule looks at: judging it again gives the same verdict (a first touch of a post paid
      // for its read rule twice).
      if (safe && matched?.endpoint === endpoint) {
        methods.push(...endpoint.methods);
        continue;
      }
      let params = matched?.endpoint === endpoint ? matched.params : undefined;
      if (!params) {
        // Judge the endpoint on the request as it would have validated it. After a read, with its own defaults (a
        // read's defaults are the ones WordPress's request carries). After a write, on what was sent only: the
        // request WordPress judges carries the write's defaults, not this endpoint's (a comments list's rule then
        // finds no `status=approve` and refuses those who may not choose one).
        const validated = this.validate(endpoint, input, request);
        params =
          'error' in validated ? input : { ...input, ...(safe ? validated.values : sentOnly(validated.values, input)) };
      }
      const ctx: HandlerContext = { request, params, actor: request.actor, memo };
      if (await this.permitOrFalse(endpoint, ctx)) methods.push(...endpoint.methods);
    }
    return methods.join(', ');
  }

  /** `_embed`: dispatches each embeddable link of this API in the embed context, as the same caller. */
  private async embed(body: unknown, request: RestRequest, tally: EmbedTally): Promise<unknown> {
    const wanted = request.query._embed;
    const rels =
      typeof wanted === 'string' && wanted !== '' && wanted !== '1' && wanted !== 'true' ? fieldList(wanted) : null;
    const cache = new Map<string, Promise<unknown>>();
    const shared = new Map<string, unknown>();
    const embedOne = async (item: unknown): Promise<unknown> => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
      const links = (item as { _links?: Record<string, { href: string; embeddable?: boolean }[]> })._links;
      if (!links) return item;
      // Every rel of every item is fetched at once; identical hrefs within the response are fetched once.
      const chosen = Object.entries(links).filter(([rel]) => !rels || rels.includes(rel));
      const fetched = await Promise.all(
        chosen.map(([, entries]) =>
          Promise.all(
            entries.map((link) => {
              if (!link.embeddable || !link.href.startsWith(this.options.apiRoot)) return Promise.resolve(null);
              let pending = cache.get(link.href);
              if (!pending) {
                pending = this.fetchEmbedded(link.href, request, shared, tally);
                cache.set(link.href, pending);
              }
              return pending;
            }),
          ),
        ),
      );
      const embedded: Record<string, unknown[]> = {};
      chosen.forEach(([rel], i) => {
        const results = fetched[i]!;
        // As WordPress: a rel is left out when every one of its embeds is empty (no link of ours, or an empty list).
        if (results.some((r) => r !== null && !(Array.isArray(r) && r.length === 0)))
          embedded[rel] = results.map((r) => r ?? []);
      });
      return Object.keys(embedded).length > 0 ? { ...item, _embedded: embedded } : item;
    };
    return Array.isArray(body) ? Promise.all(body.map(embedOne)) : embedOne(body);
  }

  private async fetchEmbedded(
    href: string,
    parent: RestRequest,
    shared: Map<string, unknown>,
    tally: EmbedTally,
  ): Promise<unknown> {
    const url = new URL(href);
    const path = decodeURIComponent(url.pathname.slice(new URL(this.options.apiRoot).pathname.length - 1));
    const query = { ...parseQuery(url.search.slice(1)), context: 'embed' };
    const rawQuery = `${url.search.slice(1)}\u0000context=embed`;
    const request: RestRequest = {
      ...parent,
      method: 'GET',
      path,
      query,
      rawQuery,
      shared,
      json: null,
      form: null,
      invalidJson: false,
      rawBody: undefined,
      files: undefined,
    };
    const result = await this.answerEmbedded(request, tally);
    // A link to a route this API does not have (comments, media) embeds nothing, as an empty collection would.
    if (result.status === 404 && (result.body as { code?: unknown } | null)?.code === 'rest_no_route') return null;
    return result.body;
  }

  /**
   * An embedded request's status and body, as `dispatch` would give them. Only the body is embedded, so the
   * `Allow` header (a permission check per endpoint of the route) is not worked out; an href carrying its own
   * response-shaping globals takes the whole pipeline.
   */
  private async answerEmbedded(request: RestRequest, tally: EmbedTally): Promise<RestResult> {
    if (request.query._fields !== undefined || request.query._envelope !== undefined) {
      const result = await this.dispatch(request, { embed: false });
      if (result.cacheable !== true) tally.cacheable = false;
      return result;
    }
    const prepared = await this.prepare(request);
    if (prepared instanceof RestError) {
      // Refused before any handler ran (no route is as pure as can be); judged by the endpoint it was meant for.
      const endpoint = this.match(normalisePath(request.path), request.method)?.endpoint;
      if (endpoint && endpoint.cacheable !== true) tally.cacheable = false;
      return errorResult(prepared);
    }
    if (prepared.matched.endpoint.cacheable !== true) tally.cacheable = false;
    try {
      const result = await prepared.matched.endpoint.handle(prepared.ctx);
      if (result.cacheable === false) tally.cacheable = false;
      return result;
    } catch (error) {
      const refusal = answerableError(error);
      if (refusal === null) throw error;
      return errorResult(refusal);
    }
  }
}

/** Whether every endpoint that contributed to one response so far is cacheable (Endpoint.cacheable). */
interface EmbedTally {
  cacheable: boolean;
}

/** A map as PHP serialises an associative array: an empty one is `[]`. */
export function phpMap<T extends Record<string, unknown>>(map: T): T | [] {
  return Object.keys(map).length === 0 ? [] : map;
}

function verdictOf(verdict: boolean | RestError, ctx: HandlerContext): true | RestError {
  if (verdict === true) return true;
  if (verdict instanceof RestError) return verdict;
  return restError(
    'rest_forbidden',
    'Sorry, you are not allowed to do that.',
    authorizationStatus(ctx.actor?.id ?? null),
  );
}

/** The `_links` of an answer's body, when it is an object that has them. */
function linksOf(body: unknown): unknown {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as { _links?: unknown })._links
    : undefined;
}

/** The validated values of the args the request sent (without the defaults of those it did not). */
function sentOnly(values: Record<string, unknown>, input: Record<string, unknown>): Record<string, unknown> {
  const sent: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values))
    if (input[key] !== undefined && input[key] !== null) sent[key] = value;
  return sent;
}

const withAllowHeader = (result: RestResult, allow: string): RestResult =>
  allow === '' ? result : { ...result, headers: { ...(result.headers ?? {}), Allow: allow } };

export function errorResult(error: RestError): RestResult {
  return { status: error.status, body: error.toJSON(), headers: {} };
}

/** WordPress sets the collection totals as integers, which an envelope shows as JSON numbers. */
function envelopeHeaders(headers: Record<string, string>): Record<string, string | number> {
  const out: Record<string, string | number> = { ...headers };
  for (const name of ['X-WP-Total', 'X-WP-TotalPages']) if (Object.hasOwn(out, name)) out[name] = Number(out[name]);
  return out;
}

/** The trailing slash is not part of a route (WordPress strips it). */
const withheldBodyRefusal = () => restError('rest_forbidden', 'Sorry, you are not allowed to do that.', 401);

function normalisePath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function fieldList(value: unknown): string[] {
  const list = Array.isArray(value) ? value : String(value).split(',');
  return list.map((v) => String(v).trim()).filter((v) => v !== '');
}
