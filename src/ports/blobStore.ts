/**
 * BlobStore: where uploaded files live, by key. A key is a relative path of plain segments
 * (`2024/05/photo.jpg`); anything that could leave the store's root (`..`, absolute paths, backslashes,
 * control characters) is refused, so a key taken from a URL can be used as is once `isSafeBlobKey` says yes.
 * Blobs are immutable once written: an upload never overwrites another file (`putNew`).
 */
export interface BlobStore {
  /** Writes the blob only if the key is free; false when it is taken (atomic, also across processes). */
  putNew(key: string, data: Buffer): Promise<boolean>;
  /** The blob's bytes, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  has(key: string): Promise<boolean>;
  /** Removes the blob; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
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
