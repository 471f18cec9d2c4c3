/**
 * BlobStore on the local file system, under one root directory (DATA_DIR/uploads by default). Keys map to
 * paths below the root; a key that is not safe never reaches the file system. New blobs are written to a
 * temporary file and linked into place, so a reader never sees half a file and two writers never share a name.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { BlobStore } from '../../ports/blobStore';
import { assertSafeBlobKey, isSafeBlobKey } from '../../ports/blobStore';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './privateFiles';

export function createFileBlobStore(root: string): BlobStore {
  const resolved = path.resolve(root);
  const fileOf = (key: string): string => {
    assertSafeBlobKey(key);
    const file = path.resolve(resolved, ...key.split('/'));
    // Belt and braces: the key check already rules this out.
    if (!file.startsWith(resolved + path.sep)) throw new Error(`blob key escapes the store: ${key}`);
    return file;
  };
  const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';
  return {
    async putNew(key, data) {
      const file = fileOf(key);
      // Owner only, as everything under DATA_DIR (src/adapters/files/privateFiles.ts): drafts' images are uploads too.
      await fs.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      const temporary = `${file}.${randomBytes(6).toString('hex')}.partial`;
      await fs.writeFile(temporary, data, { flag: 'wx', mode: PRIVATE_FILE_MODE });
      try {
        // link() fails when the name exists: the first writer keeps it.
        await fs.link(temporary, file);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      } finally {
        await fs.rm(temporary, { force: true });
      }
    },
    async get(key) {
      if (!isSafeBlobKey(key)) return null;
      try {
        return await fs.readFile(fileOf(key));
      } catch (error) {
        if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return null;
        throw error;
      }
    },
    async has(key) {
      if (!isSafeBlobKey(key)) return false;
      try {
        return (await fs.stat(fileOf(key))).isFile();
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },
    async delete(key) {
      await fs.rm(fileOf(key), { force: true });
    },
  };
}
