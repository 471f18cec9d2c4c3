/** BlobStore in memory, for tests: nothing survives the process. */
import type { BlobStore } from '../../ports/blobStore';
import { assertSafeBlobKey } from '../../ports/blobStore';

export function createMemoryBlobStore(): BlobStore {
  const blobs = new Map<string, Buffer>();
  return {
    async putNew(key, data) {
      assertSafeBlobKey(key);
      if (blobs.has(key)) return false;
      blobs.set(key, Buffer.from(data));
      return true;
    },
    async get(key) {
      if (!blobs.has(key)) return null;
      return Buffer.from(blobs.get(key)!);
    },
    async has(key) {
      return blobs.has(key);
    },
    async delete(key) {
      blobs.delete(key);
    },
  };
}
