/**
 * What the server keeps on disk (the event log with drafts and password hashes, the auth secret, uploads) is for
 * the owner only: directories it creates are 0700, files 0600, whatever the umask. A directory that already exists
 * keeps its mode (an operator may have chosen it, e.g. group access for backups); a group- or world-accessible one
 * is reported once on stderr. Files of ours that exist are tightened to 0600.
 */
import fs from 'node:fs';
import { logger } from '../../logger';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const reported = new Set<string>();

/** Creates `dir` (and missing parents) for the owner only; an existing one is left as it is, and reported when open to others. */
export function preparePrivateDir(dir: string): void {
  let existed = true;
  try {
    fs.mkdirSync(dir, { mode: PRIVATE_DIR_MODE });
    existed = false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      // A missing parent: created too, then this one for the owner only.
      fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      existed = false;
    }
  }
  if (!existed) {
    // mkdir's mode passes through the umask, which can only remove bits; chmod sets exactly these.
    fs.chmodSync(dir, PRIVATE_DIR_MODE);
    return;
  }
  const mode = fs.statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0 && !reported.has(dir)) {
    reported.add(dir);
    logger.warn(
      `${dir} is open to other users (mode ${mode.toString(8)}); the files palimpsest keeps in it are 0600, but consider chmod 700`,
    );
  }
}

/** Makes sure `file` exists and is the owner's only (created empty when missing, tightened when it exists). */
export function preparePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  fs.chmodSync(file, PRIVATE_FILE_MODE);
}

/** Tightens `file` to 0600 when it exists. */
export function tightenIfPresent(file: string): void {
  try {
    fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
