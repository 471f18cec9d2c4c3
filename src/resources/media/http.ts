/**
 * Stored files served read-only at `{SITE_URL}/wp-content/uploads/YYYY/MM/name` with their type. A path that is not a safe
 * blob key is simply not found, so no request can reach outside the uploads.
 */
import type { Site } from '../../site';
import { isSafeBlobKey } from '../../ports/blobStore';
import { contentTypeOf } from './files';
import { UPLOADS_PATH } from './present';

export interface UploadResponse {
  status: number;
  type: string;
  body: Buffer | string;
}

/** The answer to a GET/HEAD under the uploads path, or null when the path is not an upload's. */
export async function serveUpload(site: Site, method: string, path: string): Promise<UploadResponse | null> {
  const base = new URL(site.settings.siteUrl).pathname.replace(/\/$/, '');
  const prefix = `${base}${UPLOADS_PATH}`;
  if (!path.startsWith(prefix) || (method !== 'GET' && method !== 'HEAD')) return null;
  let key: string;
  try {
    key = decodeURIComponent(path.slice(prefix.length));
  } catch {
    return notFound();
  }
  const data = isSafeBlobKey(key) ? await site.blobs.get(key) : null;
  if (!data) return notFound();
  return { status: 200, type: contentTypeOf(key), body: data };
}

const notFound = (): UploadResponse => ({ status: 404, type: 'text/plain; charset=utf-8', body: 'Not Found' });
