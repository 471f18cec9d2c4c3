/**
 * BlobStore: where uploaded files live, by key. A key is a relative path of plain segments
 * (`2024/05/photo.jpg`); anything that could leave the store's root (`..`, absolute paths, backslashes,
 * control characters) is refused, so a key taken from a URL can be used as is once `isSafeBlobKey` says yes.
 * Blobs are immutable once written: an upload never overwrites another file (`putNew`). Several processes may
 * share one store (a directory on a shared volume, or an S3 bucket): `putNew` is atomic across them. A store that
 * cannot be reached or does not answer throws DependencyUnavailableError('media store') (src/ports/unavailable.ts),
 * which the HTTP edge answers 503 with Retry-After.
 */
import type { Readable } from 'node:stream';

/** A file on local disk whose bytes are to be stored (an upload the HTTP edge streamed to a temporary file). */
export interface BlobFile {
  path: string;
  size: number;
}

/** What is stored: bytes in memory, or a file streamed into the store without being read whole. */
export type BlobBody = Buffer | BlobFile;

/** What a reader needs to answer conditional and range requests. */
export interface BlobInfo {
  size: number;
  /** A strong validator of the blob's bytes, quoted as in an ETag header (`"…"`); the same on every process. */
  etag: string;
  lastModified: Date;
}

export interface BlobListing extends BlobInfo {
  key: string;
}

/** Inclusive byte range of a read. */
export interface BlobRange {
  start: number;
  end: number;
}

export interface BlobStore {
  /** Writes the blob only if the key is free; false when it is taken (atomic, also across processes). */
  putNew(key: string, body: BlobBody): Promise<boolean>;
  /** The blob's bytes, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  has(key: string): Promise<boolean>;
  /** Size, validator and date of the blob, or null when there is none. */
  stat(key: string): Promise<BlobInfo | null>;
  /**
   * The blob's bytes (or the range of them) as a stream, or null when there is none, or when `etag` is given and the
   * blob is no longer the one it names (deleted and written again since it was looked at).
   */
  read(key: string, options?: { range?: BlobRange; etag?: string }): Promise<Readable | null>;
  /** Removes the blob; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Every blob of the store with a safe key, in no particular order (for the orphan sweep). */
  list(): AsyncIterable<BlobListing>;
  /** Releases connections, if the adapter holds any. */
  close?(): Promise<void>;
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Whether `key` is a relative path of safe segments (letters, digits, `.`, `_`, `-`; none starting with a dot). */
export function isSafeBlobKey(key: string): boolean {
  if (key.length === 0 || key.length > 1024) return false;
  return key.split('/').every((segment) => SEGMENT.test(segment) && !segment.includes('..'));
}

export function assertSafeBlobKey(key: string): void {
  if (!isSafeBlobKey(key)) throw new Error(`unsafe blob key: ${JSON.stringify(key)}`);
}

export const isBlobFile = (body: BlobBody): body is BlobFile => !Buffer.isBuffer(body);

export const blobSize = (body: BlobBody): number => (isBlobFile(body) ? body.size : body.length);
