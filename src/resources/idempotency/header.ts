/**
 * The `Idempotency-Key` request header (IETF httpapi draft "The Idempotency-Key HTTP Header Field") and what makes two
 * requests with one key the same request: the HTTP edge of safe retries, so a bad key is answered with a REST error.
 */
import { createHash } from 'node:crypto';
import { parseItem } from 'structured-headers';
import type { RestRequest } from '../../rest/route';
import { restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';

/** Longest key accepted, in characters (printable ASCII, so bytes too). */
export const MAX_KEY_LENGTH = 255;

/** Methods whose requests honour a key: those that change something. */
export const KEYED_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The key a request carries, null when it carries none, or the error to answer. The value is a Structured Field
 * String (`"…"`, RFC 8941), as the draft has it; a bare value of visible ASCII without quotes, commas or spaces (a
 * UUID as many clients send it) is taken as it is. Either way the key is 1 to 255 printable ASCII characters. A
 * request with several `Idempotency-Key` fields is refused (the draft forbids them).
 */
export function parseIdempotencyKey(header: string | string[] | undefined): { key: string } | null | RestError {
  if (header === undefined) return null;
  if (Array.isArray(header))
    return header.length === 0 ? null : invalidKey('Send one Idempotency-Key header, not several.');
  const value = header.trim();
  let key: string;
  if (value.startsWith('"')) {
    let item: ReturnType<typeof parseItem>;
    try {
      item = parseItem(value);
    } catch {
      return invalidKey(
        'The Idempotency-Key header is not a valid string: a quoted value of printable ASCII characters.',
      );
    }
    if (typeof item[0] !== 'string') return invalidKey('The Idempotency-Key header must be a string.');
    key = item[0];
  } else {
    // Node joins repeated fields with ", ", so a comma here also means several keys.
    if (!/^[\x21-\x7e]+$/.test(value) || value.includes(',') || value.includes('"')) {
      return invalidKey(
        'The Idempotency-Key header must be a quoted string, or a value of visible ASCII characters without commas.',
      );
    }
    key = value;
  }
  if (key.length === 0) return invalidKey('The Idempotency-Key header is empty.');
  if (key.length > MAX_KEY_LENGTH)
    return invalidKey(`The Idempotency-Key header is longer than ${MAX_KEY_LENGTH} characters.`);
  return { key };
}

const invalidKey = (message: string): RestError => restError('rest_invalid_idempotency_key', message, 400);

/**
 * What makes two requests with one key the same request: the method, the route path, the query string's parameters,
 * the body's parameters (JSON or form, as parsed), and each uploaded file's name, type, size and MD5. A retry sends
 * the same bytes, so the same parsed values in the same order.
 */
export function requestFingerprint(request: RestRequest): string {
  const file = (
    f: { originalFilename: string | null; mimetype: string | null; size: number; md5?: string } | undefined,
  ) => (f === undefined ? null : [f.originalFilename, f.mimetype, f.size, f.md5 ?? null]);
  const files = request.files ? Object.entries(request.files).map(([name, f]) => [name, file(f)]) : null;
  const parts = [
    request.method,
    request.path,
    request.query,
    request.json,
    request.form,
    request.multipartFields ?? null,
    files,
    file(request.rawFile),
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
