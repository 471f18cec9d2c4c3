/**
 * oEmbed data from other sites, for the proxy route: a provider of the allow-list is asked at its endpoint;
 * any other URL, when discovery is on, is fetched and its `<link rel="alternate" type="application/json+oembed">`
 * followed. Answers (found or not) are kept for a while, per URL and size, as WordPress keeps them a day.
 */
import type { Clock } from '../../ports/clock';
import type { HttpFetcher } from '../../ports/httpFetcher';
import { providerFor, OEMBED_PROVIDERS } from './providers';
import type { OEmbedProvider } from './providers';
import type { CacheSize } from '../../caches/budget';

export interface RemoteRequest {
  url: string;
  maxwidth?: number;
  maxheight?: number;
  discover: boolean;
}

export interface RemoteEmbeds {
  /** The provider's data, or null when nothing answered with any. */
  lookup(request: RemoteRequest): Promise<Record<string, unknown> | null>;
  /** The answers kept now. */
  held(): CacheSize;
}

export interface RemoteEmbedOptions {
  fetcher: HttpFetcher;
  clock: Clock;
  providers?: readonly OEmbedProvider[];
  /** How long an answer is kept (default a day). */
  ttlMs?: number;
  /** Answers kept at most (the site's cache budget, `remoteEmbeds`); the oldest go first. */
  maxEntries: number;
}

export function createRemoteEmbeds(options: RemoteEmbedOptions): RemoteEmbeds {
  const providers = options.providers ?? OEMBED_PROVIDERS;
  const ttl = options.ttlMs ?? 24 * 60 * 60 * 1000;
  const { maxEntries } = options;
  const cache = new Map<string, { until: number; data: Record<string, unknown> | null }>();

  const fetchJson = async (endpoint: string): Promise<Record<string, unknown> | null> => {
    try {
      const response = await options.fetcher.request(endpoint);
      if (response.status < 200 || response.status >= 300) return null;
      const data: unknown = JSON.parse(response.body);
      return data !== null &&
        typeof data === 'object' &&
        !Array.isArray(data) &&
        typeof (data as { type?: unknown }).type === 'string'
        ? (data as Record<string, unknown>)
        : null;
    } catch {
      return null;
    }
  };

  const withSize = (endpoint: string, request: RemoteRequest, withUrl: boolean): string => {
    const target = new URL(endpoint);
    if (withUrl) target.searchParams.set('url', request.url);
    if (withUrl) target.searchParams.set('format', 'json');
    if (request.maxwidth !== undefined) target.searchParams.set('maxwidth', String(request.maxwidth));
    if (request.maxheight !== undefined) target.searchParams.set('maxheight', String(request.maxheight));
    return target.toString();
  };

  const discover = async (request: RemoteRequest): Promise<Record<string, unknown> | null> => {
    let page: string;
    let pageUrl: string;
    try {
      const response = await options.fetcher.request(request.url);
      if (response.status < 200 || response.status >= 300) return null;
      page = response.body;
      // A relative link is relative to where the page was found, after redirects.
      pageUrl = response.url;
    } catch {
      return null;
    }
    const endpoint = discoveredEndpoint(page, pageUrl);
    return endpoint ? fetchJson(withSize(endpoint, request, false)) : null;
  };

  return {
    held: () => ({ entries: cache.size }),
    async lookup(request) {
      const key = JSON.stringify([request.url, request.maxwidth ?? null, request.maxheight ?? null, request.discover]);
      const now = options.clock.now();
      const kept = cache.get(key);
      if (kept && kept.until > now) return kept.data;
      const provider = providerFor(request.url, providers);
      const data = provider
        ? await fetchJson(withSize(provider.endpoint, request, true))
        : request.discover
          ? await discover(request)
          : null;
      cache.delete(key);
      cache.set(key, { until: now + ttl, data });
      while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      return data;
    },
  };
}

/** The JSON oEmbed endpoint a page announces in a `<link>` element, resolved against the page's URL. */
export function discoveredEndpoint(html: string, pageUrl: string): string | null {
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const attributes = new Map<string, string>();
    for (const m of tag.matchAll(/([\w:-]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
      attributes.set(m[1]!.toLowerCase(), decodeEntities(m[3] ?? m[4] ?? m[5] ?? ''));
    }
    const rel = (attributes.get('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rel.includes('alternate') || (attributes.get('type') ?? '').toLowerCase() !== 'application/json+oembed')
      continue;
    const href = attributes.get('href');
    if (!href) continue;
    try {
      const resolved = new URL(href, pageUrl);
      if (resolved.protocol === 'http:' || resolved.protocol === 'https:') return resolved.toString();
    } catch {
      // An unusable href: look for another.
    }
  }
  return null;
}

const decodeEntities = (text: string): string =>
  text.replace(
    /&(amp|quot|#39|lt|gt);/g,
    (_, name: string) => ({ amp: '&', quot: '"', '#39': "'", lt: '<', gt: '>' })[name]!,
  );
