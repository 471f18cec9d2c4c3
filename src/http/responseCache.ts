/**
 * The shared response cache: what a page cache in front of WordPress gives, but exact. An anonymous GET's answer
 * from a route that declares itself cacheable (`Endpoint.cacheable`, src/rest/route.ts: its answer is a pure
 * function of the URL and the read model) is kept as written (status, header lines in order, body bytes) under the
 * raw request URL, with the read-model version it was computed at (src/projection/readModelVersion.ts). A later
 * anonymous GET or HEAD of the same URL is answered with those bytes while the version is still the same; any
 * change moves the version on, and the entry is never served again. Answers are byte for byte what the pipeline
 * writes: no header says an answer came from here.
 *
 * Anonymous means no Authorization header (the only credentials the API reads) and no method override header;
 * URLs with `_wpnonce` are never kept. Bounded by count and bytes, least recently used first out. Once an answer
 * could only be kept by pushing out one still current, a URL is kept only when asked again within the last
 * `admissionWindow` URLs that were not kept (see src/core/admissionWindow.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CHANGING } from '../projection/readModelVersion';
import type { ReadModelVersion } from '../projection/readModelVersion';
import { AdmissionWindow } from '../core/admissionWindow';

export interface ResponseCacheLimits {
  /** Most answers kept (the site's cache budget, `responses`: src/caches/budget.ts); 0 disables the cache. */
  entries: number;
  /** Most bytes kept (bodies, header lines and keys); 0 disables the cache. */
  bytes: number;
  /** URLs not kept that are remembered for admission once the cache is full (default: twice `entries`). */
  admissionWindow?: number;
}

/** An answer as app.ts writes it: `res.writeHead(status, headers)` then `res.end(body)`. */
export interface WrittenAnswer {
  status: number;
  /** Header lines in order, flat: name, value, name, value… */
  headers: string[];
  body: Buffer;
}

interface Entry extends WrittenAnswer {
  version: number;
  size: number;
}

/** Bytes an entry costs besides its body and header text (the entry, the map slot). */
const ENTRY_OVERHEAD = 200;

/** The cache for these limits, or null when they disable it. */
export function createResponseCache(version: ReadModelVersion, limits: ResponseCacheLimits): ResponseCache | null {
  return limits.entries > 0 && limits.bytes > 0 ? new ResponseCache(version, limits) : null;
}

export class ResponseCache {
  private readonly kept = new Map<string, Entry>();
  private keptBytes = 0;
  private readonly seenOnce: AdmissionWindow;
  /** Anonymous GETs and HEADs answered from the cache. */
  hits = 0;
  /** Anonymous GETs and HEADs it could not answer (nothing kept, or kept at an older version). */
  misses = 0;

  constructor(
    private readonly version: ReadModelVersion,
    private readonly limits: ResponseCacheLimits,
  ) {
    this.seenOnce = new AdmissionWindow(limits.admissionWindow ?? 2 * limits.entries);
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.kept.size, bytes: this.keptBytes };
  }

  /**
   * Answers an anonymous GET or HEAD from the cache when it holds the URL at the current version: writes the whole
   * response (a HEAD gets the GET's headers without the body) and returns true.
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || !anonymous(req)) return false;
    const key = req.url!;
    const entry = this.kept.get(key);
    if (entry === undefined) {
      this.misses += 1;
      return false;
    }
    if (entry.version !== this.version.current()) {
      this.drop(key, entry);
      // It was kept before: its new answer need not wait for a second request.
      this.seenOnce.remember(key);
      this.misses += 1;
      return false;
    }
    // Most recently used last: the first entry is the first out.
    this.kept.delete(key);
    this.kept.set(key, entry);
    this.hits += 1;
    res.writeHead(entry.status, entry.headers);
    res.end(method === 'HEAD' ? undefined : entry.body);
    return true;
  }

  /**
   * Read before computing a GET's answer: the version it may be kept at, or null when it may not be kept (not an
   * anonymous GET, a `_wpnonce` URL, or the read model changing right now).
   */
  admit(req: IncomingMessage): number | null {
    if (req.method !== 'GET' || !anonymous(req) || req.url!.includes('_wpnonce')) return null;
    const version = this.version.current();
    return version === CHANGING ? null : version;
  }

  /**
   * Keeps an admitted request's answer, if the read model has not changed since it was admitted. When it could only
   * be kept by pushing out an answer still current, it is kept only if its URL was asked (and not kept) within the
   * admission window: on a site much larger than the cache read at random (single posts by id), keeping every answer only
   * pushed another out, and each one pushed out was garbage the old generation's collector paid for.
   */
  keep(req: IncomingMessage, version: number, answer: WrittenAnswer): void {
    if (this.version.current() !== version) return;
    const key = req.url!;
    let size = ENTRY_OVERHEAD + key.length + answer.body.length;
    for (const line of answer.headers) size += line.length;
    // One answer may take a quarter of the budget at most, so a few large ones cannot flush everything else.
    if (size > this.limits.bytes / 4) return;
    const previous = this.kept.get(key);
    if (previous) this.drop(key, previous);
    else if (
      (this.kept.size >= this.limits.entries || this.keptBytes + size > this.limits.bytes) &&
      this.oldestIsCurrent(version)
    ) {
      // Pushing out an answer of an older version costs nothing; pushing out a current one waits for a second request.
      if (!this.seenOnce.admits(key)) return;
    }
    this.kept.set(key, { ...answer, body: ownBytes(answer.body), version, size });
    this.keptBytes += size;
    while (this.kept.size > this.limits.entries || this.keptBytes > this.limits.bytes) {
      const [oldestKey, oldest] = this.kept.entries().next().value as [string, Entry];
      this.drop(oldestKey, oldest);
    }
  }

  /** Whether the entry first out (the least recently used) is of this version, i.e. still served. */
  private oldestIsCurrent(version: number): boolean {
    const oldest = this.kept.values().next().value as Entry | undefined;
    return oldest !== undefined && oldest.version === version;
  }

  private drop(key: string, entry: Entry): void {
    this.kept.delete(key);
    this.keptBytes -= entry.size;
  }
}

/**
 * The body in memory of its own. An answer under 4 KB written from a string (`Buffer.from`) is a slice of Node's
 * shared 8 KB pool, and keeping the slice keeps the whole pool: the cache's byte bound counted the body and held
 * up to twice as much. A copy is made only then; an item's own JSON (a presented item the presentation cache
 * keeps, src/rest/serialized.ts) is its own memory already, and the two caches share it.
 */
function ownBytes(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}

/** No credentials, and no header that makes the request another method. */
function anonymous(req: IncomingMessage): boolean {
  const headers = req.headers;
  return headers.authorization === undefined && headers['x-http-method-override'] === undefined;
}
