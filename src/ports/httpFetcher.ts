/**
 * Outgoing HTTP GETs (oEmbed's proxy asks other sites for their embeds). A port, so that tests use a fake
 * and no domain code touches the network directly.
 */
export interface HttpResponse {
  status: number;
  /** The Content-Type header, lower-cased, or "". */
  contentType: string;
  /** The body as text (UTF-8). */
  body: string;
}

export interface HttpFetcher {
  /** Fetches `url`; rejects on network failures, time-outs and bodies over the adapter's limit. */
  get(url: string): Promise<HttpResponse>;
}
