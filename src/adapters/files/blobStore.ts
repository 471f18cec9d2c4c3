/**
 * BlobStore on the local file system, under one root directory (DATA_DIR/uploads by default, or BLOB_STORE's
 * `file:///path`). Keys map to paths below the root; a key that is not safe never reaches the file system. New
 * blobs are streamed to a hidden temporary file beside their place and linked into place, so a reader never sees
 * half a file and two writers never share a name (link() fails on an existing name, also across processes on one
 * volume).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { BlobInfo, BlobListing, BlobStore } from '../../ports/blobStore';
import { assertSafeBlobKey, isBlobFile, isSafeBlobKey } from '../../ports/blobStore';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './privateFiles';

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;
const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR', 'EISDIR'].includes(errorCode(error) ?? '');

/**
 * A validator from what the file system says of the file: its inode, size and modification time, the same on every
 * process that sees the volume. A name deleted and written again gets another inode or time, so another validator.
 */
const infoOf = (stats: fs.Stats): BlobInfo => ({
  size: stats.size,
  etag: `"${stats.ino.toString(16)}-${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`,
  lastModified: stats.mtime,
});

export function createFileBlobStore(root: string): BlobStore {
  const resolved = path.resolve(root);
  const fileOf = (key: string): string => {
    assertSafeBlobKey(key);
    const file = path.resolve(resolved, ...key.split('/'));
    // Belt and braces: the key check already rules this out.
    if (!file.startsWith(resolved + path.sep)) throw new Error(`blob key escapes the store: ${key}`);
    return file;
  };
  const stat = async (key: string): Promise<BlobInfo | null> => {
    if (!isSafeBlobKey(key)) return null;
    try {
      const stats = await fsp.stat(fileOf(key));
      return stats.isFile() ? infoOf(stats) : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };
  return {
    async putNew(key, body) {
      const file = fileOf(key);
      // Owner only, as everything under DATA_DIR (src/adapters/files/privateFiles.ts): drafts' images are uploads too.
      await fsp.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      // Hidden (a name no key can have), so it is never served while it is written.
      const temporary = path.join(
        path.dirname(file),
        `.${path.basename(file)}.${randomBytes(6).toString('hex')}.partial`,
      );
      try {
        if (isBlobFile(body))
          await pipeline(
            fs.createReadStream(body.path),
            fs.createWriteStream(temporary, { flags: 'wx', mode: PRIVATE_FILE_MODE }),
          );
        else await fsp.writeFile(temporary, body, { flag: 'wx', mode: PRIVATE_FILE_MODE });
        // link() fails when the name exists: the first writer keeps it.
        await fsp.link(temporary, file);
        return true;
      } catch (error) {
        if (errorCode(error) === 'EEXIST') return false;
        throw error;
      } finally {
        await fsp.rm(temporary, { force: true });
      }
    },
    async get(key) {
      if (!isSafeBlobKey(key)) return null;
      try {
        return await fsp.readFile(fileOf(key));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async has(key) {
      return (await stat(key)) !== null;
    },
    stat,
    async read(key, options = {}) {
      if (!isSafeBlobKey(key)) return null;
      let handle: fsp.FileHandle;
      try {
        handle = await fsp.open(fileOf(key), 'r');
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      try {
        // The open file is the one read, whatever happens to the name meanwhile.
        const stats = await handle.stat();
        if (!stats.isFile() || (options.etag !== undefined && infoOf(stats).etag !== options.etag)) {
          await handle.close();
          return null;
        }
        const range = options.range ? { start: options.range.start, end: options.range.end } : {};
        return handle.createReadStream({ ...range, autoClose: true }) as unknown as Readable;
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
    },
    async delete(key) {
      await fsp.rm(fileOf(key), { force: true });
    },
    list() {
      return walk(resolved, '');
    },
  };
}

/** The files below `dir` whose keys are safe (temporary files are hidden, so never listed). */
async function* walk(dir: string, prefix: string): AsyncGenerator<BlobListing> {
  let entries: fs.Dirent[];
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for (const entry of entries) {
    const key = `${prefix}${entry.name}`;
    if (!isSafeBlobKey(key)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full, `${key}/`);
    else if (entry.isFile()) {
      try {
        yield { key, ...infoOf(await fsp.stat(full)) };
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
  }
}
