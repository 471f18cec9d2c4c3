/** BlobStore in memory, for tests: nothing survives the process. */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { BlobInfo, BlobStore } from '../../ports/blobStore';
import { assertSafeBlobKey, isBlobFile } from '../../ports/blobStore';

interface Stored extends BlobInfo {
  data: Buffer;
}

export function createMemoryBlobStore(): BlobStore {
  const blobs = new Map<string, Stored>();
  const infoOf = ({ size, etag, lastModified }: Stored): BlobInfo => ({ size, etag, lastModified });
  return {
    async putNew(key, body) {
      assertSafeBlobKey(key);
      if (blobs.has(key)) return false;
      const data = isBlobFile(body) ? await fs.readFile(body.path) : Buffer.from(body);
      // Checked again: reading the file took a turn of the event loop.
      if (blobs.has(key)) return false;
      blobs.set(key, {
        data,
        size: data.length,
        etag: `"${createHash('md5').update(data).digest('hex')}"`,
        lastModified: new Date(),
      });
      return true;
    },
    async get(key) {
      const stored = blobs.get(key);
      return stored ? Buffer.from(stored.data) : null;
    },
    async has(key) {
      return blobs.has(key);
    },
    async stat(key) {
      const stored = blobs.get(key);
      return stored ? infoOf(stored) : null;
    },
    async read(key, options = {}) {
      const stored = blobs.get(key);
      if (!stored || (options.etag !== undefined && stored.etag !== options.etag)) return null;
      const { range } = options;
      return Readable.from([range ? stored.data.subarray(range.start, range.end + 1) : stored.data]);
    },
    async delete(key) {
      blobs.delete(key);
    },
    async *list() {
      for (const [key, stored] of [...blobs]) yield { key, ...infoOf(stored) };
    },
  };
}
