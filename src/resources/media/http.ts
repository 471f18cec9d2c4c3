/**
 * The HTTP edge of uploads: multipart bodies parsed into fields and files, and stored files served
 * read-only at `{SITE_URL}/wp-content/uploads/YYYY/MM/name` with their type. A path that is not a safe
 * blob key is simply not found, so no request can reach outside the uploads.
 */
import type { Site } from '../../site';
import { isSafeBlobKey } from '../../ports/blobStore';
import type { UploadedFile } from '../../rest/route';
import { contentTypeOf } from './files';
import { UPLOADS_PATH } from './present';
import { isUnsafeKey, parseFields } from '../../rest/query';

/** A multipart/form-data body's text fields and files (file contents in memory). */
export async function parseMultipart(body: Buffer, contentType: string): Promise<{ fields: Record<string, unknown>; files: Record<string, UploadedFile> }> {
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  const texts: [string, string][] = [];
  // No prototype, and no name that could name one: a file field called `__proto__` is no file.
  const files: Record<string, UploadedFile> = Object.create(null);
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') texts.push([name, value]);
    else if (!isUnsafeKey(name)) {
      const data = Buffer.from(await value.arrayBuffer());
      files[name] = { filepath: '', originalFilename: value.name || null, mimetype: value.type || null, size: data.length, data };
    }
  }
  // Field names read as PHP reads them (`meta[key]`), as WordPress receives them in $_POST.
  return { fields: parseFields(texts), files };
}

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
