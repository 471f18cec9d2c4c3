/**
 * Outgoing HTTP: every request the product makes to other hosts (oEmbed discovery and its proxy; later media
 * sideloads and webhooks) goes through this port, so that one adapter decides which destinations are reachable
 * (src/adapters/http/outboundClient.ts) and tests use a fake without touching the network.
 */
/** A request's method, headers, body and per-call bounds. */
export interface OutboundInit {
  /** GET when not given. */
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
  /** Sent as given; credentials (authorization, cookie) are dropped when a redirect leads to another origin. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The most bytes of answer accepted, when lower or higher than the adapter's default. */
  maxBytes?: number;
  /** The whole exchange's bound (redirects included), in ms, when other than the adapter's default. */
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  /** The URL that answered, after redirects. */
  url: string;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The Content-Type header, lower-cased, or "". */
  contentType: string;
  /** The body as received. */
  bytes: Uint8Array;
  /** The body as text (UTF-8). */
  body: string;
}

/**
 * Why a request failed. Callers answering a client must not tell these apart to it (a refused address, a closed
 * port and a time-out look the same from outside); they are for logs and tests.
 */
export type OutboundFailure =
  /** Not an http(s) URL, or one carrying a user name or password. */
  | 'url'
  /** A destination that is not a public address and not allowed by OUTBOUND_ALLOWED_HOSTS. */
  | 'address'
  /** More redirects than the limit. */
  | 'redirects'
  /** An answer over the size limit. */
  | 'size'
  /** The whole exchange took longer than its bound. */
  | 'timeout'
  /** The name did not resolve, the connection failed or broke. */
  | 'network';

export class OutboundError extends Error {
  constructor(
    readonly failure: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface HttpFetcher {
  /**
   * Sends the request, following redirects; resolves with any status (3xx too when a redirect has no Location);
   * rejects with an OutboundError (or any error, from a fake) when nothing usable came back.
   */
  request(url: string, init?: OutboundInit): Promise<HttpResponse>;
}
