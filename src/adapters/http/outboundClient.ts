/**
 * The product's one outbound HTTP client (the HttpFetcher port). A URL given by a user must not reach the
 * server's own network, so every hop is checked twice: before connecting (the URL's host resolved here and every
 * address judged by src/adapters/http/destinations.ts) and at connect time (the socket's `lookup` judges what it
 * is about to connect to, so a name whose DNS answer changes in between, rebinding, cannot get through).
 * Redirects are followed by hand, each hop checked again; the whole exchange is bounded in time, redirects and
 * answer size; only http(s) URLs without a user name or password are fetched, and no cookies are sent. Any port
 * is allowed: with the server's own network refused by address, a port limit would only keep out public services
 * on other ports (which anyone can reach directly anyway), not protect anything behind the server.
 *
 * Written on node:http rather than taking request-filtering-agent: that agent judges addresses at connect time
 * but allows by address only (no host names or ports), counts IPv4-compatible IPv6 as public, and leaves
 * redirects, time and size to the caller anyway.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { HttpFetcher, HttpResponse, OutboundInit } from '../../ports/httpFetcher';
import { OutboundError } from '../../ports/httpFetcher';
import { isAllowedDestination, isAllowedName } from './destinations';
import type { AllowedHost } from './destinations';

export interface ResolvedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** Every address a host name resolves to. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundClientOptions {
  /** Destinations allowed besides public addresses (OUTBOUND_ALLOWED_HOSTS). */
  allowedHosts?: readonly AllowedHost[];
  /** How names are resolved, before connecting and at connect time; the system's resolver when not given. */
  resolve?: Resolver;
  /** Bound on a whole exchange, redirects included (ms). */
  timeoutMs?: number;
  /** Most bytes of answer accepted. */
  maxBytes?: number;
  /** Most redirects followed. */
  maxRedirects?: number;
  userAgent?: string;
}

export const OUTBOUND_DEFAULTS = { timeoutMs: 5_000, maxBytes: 1024 * 1024, maxRedirects: 5 } as const;

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that carry credentials: not sent on to another origin. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);
/** Headers the client sets itself: the host is the URL's and the framing the body's. */
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/** A hop's destination, as judged: the URL, its bare host name (no brackets) and its effective port. */
interface Hop {
  url: URL;
  hostname: string;
  port: number;
}

export function createOutboundHttp(options: OutboundClientOptions = {}): HttpFetcher {
  const allowed = options.allowedHosts ?? [];
  const resolve = options.resolve ?? systemResolver;
  const maxRedirects = options.maxRedirects ?? OUTBOUND_DEFAULTS.maxRedirects;
  const userAgent = options.userAgent ?? 'palimpsest';

  const refuseUnlessAllowed = (hop: Hop, addresses: readonly ResolvedAddress[]): void => {
    if (addresses.length === 0) throw new OutboundError('network', `${hop.hostname} did not resolve`);
    for (const { address } of addresses) {
      if (!isAllowedDestination(allowed, hop.hostname, hop.port, address))
        throw new OutboundError('address', `${hop.url.host} is not a reachable destination`);
    }
  };

  /** The check before connecting: a literal address as it is, a name by everything it resolves to now. */
  const checkBeforeConnecting = async (hop: Hop, signal: AbortSignal): Promise<void> => {
    if (isAllowedName(allowed, hop.hostname, hop.port)) return;
    const family = net.isIP(hop.hostname);
    const addresses =
      family !== 0 ? [{ address: hop.hostname, family }] : await abortable(resolve(hop.hostname), signal);
    refuseUnlessAllowed(hop, addresses);
  };

  /**
   * The socket's own lookup: resolves again and judges what the socket will connect to. Node calls it for names
   * only; a literal address was judged before connecting and cannot change.
   */
  const lookupAtConnect = (hop: Hop) =>
    ((hostname: string, lookupOptions: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
      resolve(hostname).then(
        (all) => {
          const wanted =
            lookupOptions.family === 4 || lookupOptions.family === 6
              ? all.filter((a) => a.family === lookupOptions.family)
              : all;
          try {
            refuseUnlessAllowed(hop, wanted);
          } catch (error) {
            callback(error);
            return;
          }
          if (lookupOptions.all) callback(null, wanted);
          else callback(null, wanted[0]!.address, wanted[0]!.family);
        },
        (error) => callback(error),
      );
    }) as unknown as net.LookupFunction;

  /** One request and its answer's head; the body is left on the stream. */
  const exchange = (
    hop: Hop,
    method: string,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
    signal: AbortSignal,
  ) =>
    new Promise<http.IncomingMessage>((resolveResponse, reject) => {
      const transport = hop.url.protocol === 'https:' ? https : http;
      const request = transport.request({
        method,
        hostname: hop.hostname,
        port: hop.port,
        path: `${hop.url.pathname}${hop.url.search}`,
        headers: {
          'user-agent': userAgent,
          ...headers,
          ...(body ? { 'content-length': String(body.byteLength) } : {}),
        },
        // A connection of its own, never pooled: a kept socket would skip the next hop's connect-time check.
        agent: false,
        lookup: lookupAtConnect(hop),
        signal,
        ...(hop.url.protocol === 'https:' && net.isIP(hop.hostname) === 0 ? { servername: hop.hostname } : {}),
      });
      request.once('response', resolveResponse);
      request.once('error', reject);
      request.end(body);
    });

  const readBody = (response: http.IncomingMessage, maxBytes: number, signal: AbortSignal) =>
    new Promise<Buffer>((resolveBody, reject) => {
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > maxBytes) {
        response.destroy();
        reject(new OutboundError('size', `answer larger than ${maxBytes} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          response.destroy();
          reject(new OutboundError('size', `answer larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.once('end', () => resolveBody(Buffer.concat(chunks)));
      response.once('error', reject);
      response.once('close', () => {
        if (!response.complete)
          reject(signal.aborted ? signal.reason : new OutboundError('network', 'the answer was cut short'));
      });
    });

  return {
    async request(url, init: OutboundInit = {}): Promise<HttpResponse> {
      const timeoutMs = init.timeoutMs ?? options.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
      const maxBytes = init.maxBytes ?? options.maxBytes ?? OUTBOUND_DEFAULTS.maxBytes;
      const deadline = new AbortController();
      const timer = setTimeout(
        () => deadline.abort(new OutboundError('timeout', `no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const signal = deadline.signal;
      let method = (init.method ?? 'GET').toUpperCase();
      let body = typeof init.body === 'string' ? Buffer.from(init.body) : init.body;
      let headers = Object.fromEntries(
        Object.entries(init.headers ?? {})
          .map(([name, value]) => [name.toLowerCase(), value])
          .filter(([name]) => !OWN_HEADERS.has(name!)),
      );
      try {
        let hop = hopOf(url);
        for (let redirects = 0; ; redirects++) {
          await checkBeforeConnecting(hop, signal);
          const response = await exchange(hop, method, headers, body, signal);
          const location = response.headers.location;
          if (REDIRECTS.has(response.statusCode ?? 0) && location) {
            response.destroy();
            if (redirects >= maxRedirects) throw new OutboundError('redirects', `more than ${maxRedirects} redirects`);
            const next = hopOf(location, hop.url);
            // As browsers do: a 303, or a 301/302 after a POST, asks for the new place with a GET.
            if (
              response.statusCode === 303
                ? method !== 'HEAD'
                : (response.statusCode === 301 || response.statusCode === 302) && method === 'POST'
            ) {
              method = 'GET';
              body = undefined;
              headers = withoutHeaders(headers, (name) => name === 'content-type');
            }
            if (next.url.origin !== hop.url.origin)
              headers = withoutHeaders(headers, (name) => CREDENTIAL_HEADERS.has(name));
            hop = next;
            continue;
          }
          const bytes = method === 'HEAD' ? Buffer.alloc(0) : await readBody(response, maxBytes, signal);
          const responseHeaders = headersOf(response);
          return {
            status: response.statusCode ?? 0,
            url: hop.url.toString(),
            headers: responseHeaders,
            contentType: (responseHeaders['content-type'] ?? '').toLowerCase(),
            bytes,
            body: bytes.toString('utf8'),
          };
        }
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof OutboundError) throw error;
        throw new OutboundError('network', error instanceof Error ? error.message : String(error));
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The hop to `location` (relative to `base`), refusing any scheme but http(s) and URLs carrying credentials. */
function hopOf(location: string, base?: URL): Hop {
  let url: URL;
  try {
    url = new URL(location, base);
  } catch {
    throw new OutboundError('url', 'not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundError('url', `${url.protocol} URLs are not fetched`);
  if (url.username || url.password) throw new OutboundError('url', 'URLs with a user name or password are not fetched');
  // The WHATWG parser has already turned every numeric form of an IPv4 address (2130706433, 0x7f.1, 0177.0.0.1,
  // 127.1) into dotted decimal and IPv6 into its compressed form, so what is judged is what is connected to.
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { url, hostname, port };
}

function headersOf(response: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function withoutHeaders(headers: Record<string, string>, drop: (name: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop(name)));
}

/** The promise, or the signal's reason as soon as it aborts (a name lookup cannot itself be cancelled). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
