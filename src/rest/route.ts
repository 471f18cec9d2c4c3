/**
 * Routes are data: a path pattern (written as WordPress writes it, which is also what the index shows), and
 * per method set an endpoint with its args, a REQUIRED permission rule and a handler. Nothing resource-specific
 * lives in the machinery that runs them (dispatch.ts).
 */
import type { Readable } from 'node:stream';
import type { Actor } from '../access/capabilities';
import type { ArgSchema } from './args/schema';
import type { RestError } from './errors';
import type { ResourceSchema } from './schema';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request, independent of HTTP: what koa parsed, or one sub-request of a batch. */
export interface RestRequest {
  method: string;
  /** The route path, e.g. `/core/v2/posts/5`, without the query string. */
  path: string;
  /** Query-string parameters (PHP-style brackets parsed). */
  query: Record<string, unknown>;
  /**
   * Names `query` exactly: the query string it was parsed from (HTTP requests), or for an `_embed`'s
   * sub-request that string followed by a NUL and what was added (no URL's query string has a NUL). With the path
   * it names the input, so work that depends on nothing else can be reused (see Dispatcher.validate). Leave it
   * out for a request whose `query` was made otherwise.
   */
  rawQuery?: string;
  /** Parsed JSON body parameters. */
  json: Record<string, unknown> | null;
  /** Parsed form (urlencoded or multipart field) parameters. */
  form: Record<string, unknown> | null;
  /** Set when a JSON body could not be parsed: WordPress reports it only once a route matched. */
  invalidJson?: boolean;
  /** The raw body, for uploads. */
  rawBody?: Buffer;
  /** Uploaded files of a multipart body. */
  files?: Record<string, UploadedFile>;
  /** Every value of each text field of a multipart body, in order (`name[]` fields post several). */
  multipartFields?: Record<string, string[]>;
  /** A raw body of a type other than JSON or a form (a file upload), streamed to a temporary file instead of `rawBody`. */
  rawFile?: UploadedFile;
  /**
   * Set when the request had a body that was not read: the caller had no credentials and no endpoint of the route
   * admits one. Only the refusal of the endpoint's permission rule can be the answer (src/rest/dispatch.ts).
   */
  bodyWithheld?: boolean;
  /** Lower-cased header names. */
  headers: Record<string, string | string[] | undefined>;
  actor: Actor | null;
  requestId: string;
  /** Client address, for audit and throttling. */
  ip?: string;
  /**
   * Shared by the sub-requests dispatched for one response (`_embed`), so that they can load what they have in
   * common together (e.g. src/resources/terms/embedBatch.ts); absent otherwise.
   */
  shared?: Map<string, unknown>;
}

export interface UploadedFile {
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
  /** The file's bytes, when it is held in memory (uploads over HTTP are on disk at `filepath`). */
  data?: Buffer;
  /** The MD5 of the bytes as hex, when computed while they were streamed. */
  md5?: string;
}

/** What a handler sees: the validated, merged parameters and the request they came from. */
export interface HandlerContext {
  request: RestRequest;
  params: Record<string, unknown>;
  actor: Actor | null;
  /** Per-request memo, so a permission rule and the handler load an item once. */
  memo: Map<string, unknown>;
}

export interface RestResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * Set by Dispatcher.dispatch when the answer came from cacheable endpoints only (see Endpoint.cacheable); a
   * handler of a cacheable endpoint sets it to false for an answer that depends on more (e.g. the event log).
   */
  cacheable?: boolean;
  /**
   * An answer sent as it is produced (a live feed): written after the headers for as long as it lasts, instead of
   * `body`; the response-shaping globals (`_embed`, `_fields`, `_envelope`) leave it as it is. Destroyed when the
   * client goes, which must release whatever it holds.
   */
  stream?: Readable;
}

/**
 * A permission rule: true to allow; false for WordPress's generic `rest_forbidden` (401 anonymous / 403
 * signed in); or a specific RestError.
 */
export type PermissionRule = (ctx: HandlerContext) => boolean | RestError | Promise<boolean | RestError>;

export interface Endpoint {
  methods: readonly Method[];
  args: Record<string, ArgSchema>;
  permission: PermissionRule;
  handle(ctx: HandlerContext): Promise<RestResult> | RestResult;
  /** Listed as `allow_batch: {v1: true}` and runnable inside /batch/v1. */
  allowBatch?: boolean;
  /** The args the index and OPTIONS list, where an interface lists fewer than are accepted (all of them if absent). */
  listedArgs?: readonly string[];
  /**
   * Its answer to an anonymous request is a pure function of the URL and the read model: no clock, no event-log read,
   * no outgoing request, no randomness, no request header. Such answers may be served from the shared response cache
   * (src/http/responseCache.ts), whose entries lapse at every change of the read model.
   */
  cacheable?: boolean;
  /**
   * Its permission rule never lets an anonymous caller through, whatever the request (it requires a capability,
   * and anonymous callers hold none). The `Allow` header and OPTIONS then leave it out for an anonymous caller
   * without validating its args or running its rule: the same header for less work. A request to the endpoint
   * itself still runs the rule, whose refusal is the answer.
   */
  signedInOnly?: boolean;
  /**
   * Its answer holds a secret shown only once (a new application password). An `Idempotency-Key` is not honoured
   * on it: the answer would be kept in the event log to be replayed (src/resources/idempotency/guard.ts).
   */
  answersSecret?: boolean;
  /**
   * Its answer's `_links` are the response's own (WordPress adds them to the response, outside its data), so
   * `_fields` keeps them whatever it names, as for the site and namespace indexes.
   */
  linksBesideFields?: boolean;
}

export interface RouteDefinition {
  /** '' for root-level routes (`/`, `/batch/v1`). */
  namespace: string;
  /** The full pattern, e.g. `/core/v2/posts/(?P<id>[\d]+)`. */
  path: string;
  endpoints: readonly Endpoint[];
  /** The resource schema, shown by OPTIONS. */
  schema?: ResourceSchema;
  /** Hide `_links.self` in the index (WordPress omits it for patterned routes anyway). */
  hideLinks?: boolean;
}

export const ok = (body: unknown, headers?: Record<string, string>): RestResult => ({ status: 200, body, headers });
/** A result not to be kept by the shared response cache, though its endpoint is cacheable. */
export const uncacheable = (result: RestResult): RestResult => ({ ...result, cacheable: false });
export const created = (body: unknown, location: string): RestResult => ({
  status: 201,
  body,
  headers: { Location: location },
});

export const allowEveryone: PermissionRule = () => true;
