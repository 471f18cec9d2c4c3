/**
 * Stored files served read-only at `{SITE_URL}/wp-content/uploads/YYYY/MM/name` with their type, whatever the
 * blob store (local files or S3: the URLs stay the site's own). A path that is not a safe blob key is simply not
 * found, so no request can reach outside the uploads.
 *
 * Answers carry the store's validator (ETag) and date (Last-Modified), honour `If-None-Match` and
 * `If-Modified-Since` (304), and serve one byte range (`Range: bytes=…`, 206, or 416 when it starts past the end),
 * under `If-Range` when given; a request for several ranges gets the whole file, as HTTP allows. The bytes are
 * streamed from the store, never held whole. A store that cannot be reached throws DependencyUnavailableError,
 * which the edge answers 503 with Retry-After (src/app.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Site } from '../../site';
import type { BlobInfo, BlobRange } from '../../ports/blobStore';
import { isSafeBlobKey } from '../../ports/blobStore';
import { contentTypeOf } from './files';
import { UPLOADS_PATH } from './present';

export interface UploadResponse {
  status: number;
  headers: Record<string, string>;
  /** A stream of the file, a short text, or nothing (HEAD, 304). */
  body: Readable | string | null;
}

/** The answer to a GET/HEAD under the uploads path, or null when the path is not an upload's. */
export async function serveUpload(
  site: Site,
  method: string,
  path: string,
  headers: IncomingHttpHeaders = {},
): Promise<UploadResponse | null> {
  const base = new URL(site.settings.siteUrl).pathname.replace(/\/$/, '');
  const prefix = `${base}${UPLOADS_PATH}`;
  if (!path.startsWith(prefix) || (method !== 'GET' && method !== 'HEAD')) return null;
  let key: string;
  try {
    key = decodeURIComponent(path.slice(prefix.length));
  } catch {
    return notFound();
  }
  if (!isSafeBlobKey(key)) return notFound();
  const info = await site.blobs.stat(key);
  if (!info) return notFound();
  const validators = { ETag: info.etag, 'Last-Modified': info.lastModified.toUTCString() };
  if (notModified(headers, info)) return { status: 304, headers: validators, body: null };
  const fixed = {
    'Content-Type': contentTypeOf(key),
    'X-Content-Type-Options': 'nosniff',
    'Accept-Ranges': 'bytes',
    ...validators,
  };
  const range = method === 'GET' ? requestedRange(headers, info) : null;
  if (range === 'unsatisfiable') {
    return {
      status: 416,
      headers: { ...fixed, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Range': `bytes */${info.size}` },
      body: 'Range Not Satisfiable',
    };
  }
  if (method === 'HEAD') return { status: 200, headers: { ...fixed, 'Content-Length': String(info.size) }, body: null };
  // The blob looked at, not one written under the name since.
  const stream = await site.blobs.read(key, { etag: info.etag, ...(range ? { range } : {}) });
  if (!stream) return notFound();
  if (!range) return { status: 200, headers: { ...fixed, 'Content-Length': String(info.size) }, body: stream };
  return {
    status: 206,
    headers: {
      ...fixed,
      'Content-Length': String(range.end - range.start + 1),
      'Content-Range': `bytes ${range.start}-${range.end}/${info.size}`,
    },
    body: stream,
  };
}

const notFound = (): UploadResponse => ({
  status: 404,
  headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  body: 'Not Found',
});

const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** HTTP dates have whole seconds. */
const seconds = (date: Date): number => Math.floor(date.getTime() / 1000) * 1000;

/** Weak comparison of entity tags: equal once a `W/` prefix is set aside. */
const weakMatch = (a: string, b: string): boolean => a.replace(/^W\//, '') === b.replace(/^W\//, '');

/** Whether the client's copy is current: `If-None-Match` when sent (it then decides alone), else `If-Modified-Since`. */
export function notModified(headers: IncomingHttpHeaders, info: BlobInfo): boolean {
  const noneMatch = headerOf(headers, 'if-none-match');
  if (noneMatch !== undefined) {
    const tags = noneMatch.split(',').map((tag) => tag.trim());
    return tags.includes('*') || tags.some((tag) => weakMatch(tag, info.etag));
  }
  const since = Date.parse(headerOf(headers, 'if-modified-since') ?? '');
  return !Number.isNaN(since) && seconds(info.lastModified) <= since;
}

/**
 * The one byte range asked for, null to send the whole file (no Range, one not understood or of several ranges, or
 * an If-Range the file no longer matches), or 'unsatisfiable' when it starts past the end.
 */
export function requestedRange(headers: IncomingHttpHeaders, info: BlobInfo): BlobRange | 'unsatisfiable' | null {
  const value = headerOf(headers, 'range');
  if (value === undefined) return null;
  const ifRange = headerOf(headers, 'if-range')?.trim();
  if (ifRange) {
    // An entity tag must match strongly (a weak one never does); a date must be the file's exactly.
    const matches =
      ifRange.startsWith('"') || ifRange.startsWith('W/')
        ? ifRange === info.etag
        : Date.parse(ifRange) === seconds(info.lastModified);
    if (!matches) return null;
  }
  const match = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(value.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const size = info.size;
  if (match[1] === '') {
    // The last N bytes.
    const length = Number(match[2]);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(match[1]);
  // A last byte before the first is not a range at all.
  if (match[2] !== '' && Number(match[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1) };
}
