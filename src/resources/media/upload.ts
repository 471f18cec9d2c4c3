/**
 * The uploaded file as a request carries it, with WordPress's refusals in its order: a multipart `file` field, or the
 * raw body named by its Content-Disposition, either checked against a Content-MD5 when one is sent. Request parsing,
 * so the HTTP edge's, answered with REST errors.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { BlobBody } from '../../ports/blobStore';
import { blobSize, isBlobFile } from '../../ports/blobStore';
import { restError } from '../../rest/errors';
import type { RestRequest, UploadedFile } from '../../rest/route';
import type { UploadedContent } from './files';

const header = (request: RestRequest, name: string): string => {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
};

/** `attachment; filename="a.jpg"` (quoted or not; `inline` and `form-data` too) → `a.jpg`; null when none. */
export function filenameFromDisposition(disposition: string): string | null {
  for (const part of disposition.split(';').slice(1)) {
    const [rawName, ...rest] = part.split('=');
    const name = (rawName ?? '').trim().toLowerCase();
    let value = rest.join('=').trim();
    if (name === 'filename*') {
      // RFC 5987: charset'lang'percent-encoded.
      const encoded = value.split("'").slice(2).join("'");
      try {
        value = decodeURIComponent(encoded);
      } catch {
        continue;
      }
    } else if (name !== 'filename') continue;
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (value !== '') return value;
  }
  return null;
}

async function checkMd5(request: RestRequest, body: BlobBody, md5?: string): Promise<void> {
  const expected = header(request, 'content-md5').trim().toLowerCase();
  if (expected !== '' && (md5 ?? (await md5Of(body))) !== expected) {
    throw restError('rest_upload_hash_mismatch', 'Content hash did not match expected.', 412);
  }
}

async function md5Of(body: BlobBody): Promise<string> {
  const hash = createHash('md5');
  if (isBlobFile(body)) await pipeline(fs.createReadStream(body.path), hash);
  else hash.update(body);
  return hash.digest('hex');
}

/** An uploaded file: in memory, or the temporary file the edge streamed it to. */
const bodyOf = (file: UploadedFile | undefined): BlobBody =>
  !file || file.size === 0
    ? Buffer.alloc(0)
    : (file.data ?? (file.filepath !== '' ? { path: file.filepath, size: file.size } : Buffer.alloc(0)));

/** The uploaded file, from a multipart `file` field or the raw body, with WordPress's errors in its order. */
export async function uploadedContent(request: RestRequest): Promise<{ content: UploadedContent; multipart: boolean }> {
  const file = request.files?.file;
  if (file) {
    if (file.size === 0) throw restError('rest_upload_no_data', 'No data supplied.', 400);
    const body = bodyOf(file);
    await checkMd5(request, body, file.md5);
    return { content: { body, filename: file.originalFilename ?? '' }, multipart: true };
  }
  // A multipart body is read into fields and files (as PHP does): without a file there is no data at all.
  const multipartBody = /^multipart\/form-data\b/i.test(header(request, 'content-type'));
  const body = multipartBody
    ? Buffer.alloc(0)
    : request.rawFile
      ? bodyOf(request.rawFile)
      : (request.rawBody ?? Buffer.alloc(0));
  if (blobSize(body) === 0) throw restError('rest_upload_no_data', 'No data supplied.', 400);
  if (header(request, 'content-type').trim() === '')
    throw restError('rest_upload_no_content_type', 'No Content-Type supplied.', 400);
  const disposition = header(request, 'content-disposition');
  if (disposition.trim() === '')
    throw restError('rest_upload_no_content_disposition', 'No Content-Disposition supplied.', 400);
  const filename = filenameFromDisposition(disposition);
  if (!filename) {
    throw restError(
      'rest_upload_invalid_disposition',
      'Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename="image.png"` or similar.',
      400,
    );
  }
  await checkMd5(request, body, request.rawFile?.md5);
  return { content: { body, filename }, multipart: false };
}
