/**
 * Request bodies under limits that hold before anything is buffered: the declared Content-Length is judged before
 * a byte is read, a chunked body is counted as it arrives, and only small bodies (JSON, urlencoded forms) are kept
 * in memory. Uploads (multipart bodies, through koa-body's formidable, and raw file bodies) are streamed to private
 * temporary files, removed once the request is answered. A gate bounds the bodies being read or held at once.
 *
 * koa-body parses the multipart bodies. JSON and form bodies are read as bytes here (readSmallBody) and parsed as
 * WordPress reads them (src/rest/jsonBody.ts, src/rest/query.ts): koa-body (co-body) gives only the body decoded as
 * UTF-8, where WordPress keeps the bytes (get_body; media and contact forms read them) and json_decode refuses
 * malformed UTF-8 with an error code worked out from the bytes; it inflates gzip/deflate/br bodies, which PHP
 * does not; and it reads form names with qs, not as PHP does (`a.b` and `a b` as `a_b`, max_input_vars,
 * max_input_nesting_level). Raw file bodies are streamed to disk with their MD5 on the way (bodyToFile), which
 * koa-body has no reader for.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { koaBody } from 'koa-body';
import { restError } from '../rest/errors';
import type { RestError } from '../rest/errors';
import type { UploadedFile } from '../rest/route';
import { isUnsafeKey, parseFields } from '../rest/query';

export interface BodyLimits {
  /** Most bytes of a JSON body (JSON_BODY_MAX_BYTES). */
  json: number;
  /** Most bytes of an urlencoded form body (FORM_BODY_MAX_BYTES). */
  form: number;
  /** Most bytes of an upload: a multipart body, or a raw body of any other type (UPLOAD_MAX_BYTES). */
  upload: number;
  /** Most bytes of any body from a caller without credentials, where an endpoint admits one (ANONYMOUS_BODY_MAX_BYTES). */
  anonymous: number;
  /** Most request bodies read or held at once (BODIES_IN_FLIGHT); beyond it, 503 with Retry-After. */
  inFlight: number;
  /** Most of those from callers without credentials (ANONYMOUS_BODIES_IN_FLIGHT), so they cannot take every slot. */
  anonymousInFlight: number;
}

const MiB = 1024 * 1024;

/** JSON and forms as PHP's default post_max_size (8M); uploads as large as the edge allowed before. */
export const DEFAULT_BODY_LIMITS: BodyLimits = {
  json: 8 * MiB,
  form: 8 * MiB,
  upload: 64 * MiB,
  anonymous: 1 * MiB,
  inFlight: 32,
  anonymousInFlight: 8,
};

export type BodyKind = 'json' | 'form' | 'multipart' | 'raw';

export function bodyKind(contentType: string): BodyKind {
  const type = contentType.toLowerCase();
  if (/^application\/([\w.+-]+\+)?json\b/.test(type)) return 'json';
  if (type.startsWith('application/x-www-form-urlencoded')) return 'form';
  if (type.startsWith('multipart/form-data')) return 'multipart';
  return 'raw';
}

export const limitFor = (limits: BodyLimits, kind: BodyKind, anonymous: boolean): number => {
  const own = kind === 'json' ? limits.json : kind === 'form' ? limits.form : limits.upload;
  return anonymous ? Math.min(own, limits.anonymous) : own;
};

/** Whether the request carries a body at all (a length above 0, or a transfer coding). */
export function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length'] ?? 0);
  return !(Number.isFinite(length) && length <= 0);
}

/**
 * The refusal of a body over its limit, in the words PHP and WordPress use: an upload's as wp_handle_upload reports
 * a file over upload_max_filesize (under the code of the path the file came by), any other body's as PHP's warning
 * for a body over post_max_size.
 */
export function bodyTooLarge(kind: BodyKind, limit: number, length: number | null): RestError {
  if (kind === 'multipart')
    return restError(
      'rest_upload_unknown_error',
      'The uploaded file exceeds the upload_max_filesize directive in php.ini.',
      413,
    );
  if (kind === 'raw')
    return restError(
      'rest_upload_sideload_error',
      'The uploaded file exceeds the upload_max_filesize directive in php.ini.',
      413,
    );
  const received = length === null ? 'more than' : `${length}`;
  return restError(
    'rest_request_too_large',
    `POST Content-Length of ${received} bytes exceeds the limit of ${limit} bytes`,
    413,
  );
}

/** The declared length when the request declares one beyond `limit`, else null (nothing read yet). */
export function declaredOver(req: IncomingMessage, limit: number): number | null {
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > limit ? length : null;
}

/**
 * Reads the body chunk by chunk, handing each to `take`; a chunk past `limit` rejects with the 413. Event handlers
 * rather than a stream pipeline or async iteration: those destroy the request on failure, and with it the socket the
 * answer is still to be written to (the unread rest is left to discardUnread).
 */
function readCounted(
  req: IncomingMessage,
  limit: number,
  kind: BodyKind,
  take: (chunk: Buffer) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const done = (error: unknown) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', done);
      if (error) reject(error);
      else resolve(size);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return done(bodyTooLarge(kind, limit, null));
      take(chunk);
    };
    const onEnd = () => done(null);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', done);
  });
}

/** A body of at most `limit` bytes, in memory. */
export async function readSmallBody(req: IncomingMessage, limit: number, kind: BodyKind): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await readCounted(req, limit, kind, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks);
}

/** A raw (non-form) body streamed to a new private file under `dir`, counted as it goes; the file is gone on failure. */
export async function bodyToFile(
  req: IncomingMessage,
  limit: number,
  dir: string,
): Promise<UploadedFile & { md5: string }> {
  await ensurePrivateDir(dir);
  const filepath = path.join(dir, `raw-${randomBytes(9).toString('hex')}`);
  const md5 = createHash('md5');
  const out = fs.createWriteStream(filepath, { flags: 'wx', mode: 0o600 });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  try {
    const size = await Promise.race([
      readCounted(req, limit, 'raw', (chunk) => {
        md5.update(chunk);
        // Back-pressure: the socket waits while the disk catches up.
        if (!out.write(chunk)) {
          req.pause();
          out.once('drain', () => req.resume());
        }
      }),
      failed,
    ]);
    await Promise.race([new Promise<void>((resolve) => out.end(resolve)), failed]);
    return { filepath, originalFilename: null, mimetype: null, size, md5: md5.digest('hex') };
  } catch (error) {
    out.destroy();
    await fsp.rm(filepath, { force: true });
    throw error;
  }
}

/**
 * After a refusal sent without reading the body: the rest is read and dropped, so that a client still sending gets
 * the answer rather than a reset, up to `budget` bytes; past it the connection is closed (whatever arrives then is
 * never read). Nothing is kept either way.
 */
export function discardUnread(req: IncomingMessage, budget: number): void {
  if (req.complete) return;
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > budget) req.socket.destroy();
  });
  req.resume();
}

export interface MultipartBody {
  /** The text fields as a form body gives them: names read as PHP reads them, the last value of a repeated one. */
  fields: Record<string, unknown>;
  /** Every value of each text field, in order (`name[]` fields post several). */
  fieldLists: Record<string, string[]>;
  files: Record<string, UploadedFile & { md5?: string }>;
}

/**
 * A multipart body parsed by koa-body (formidable): text fields in memory within the limit, file parts streamed
 * to private files under `dir` with their MD5 computed on the way, the whole body counted against `limit`. An
 * unreadable body gives null (WordPress then sees no fields and no files); one over the limit throws the 413.
 */
export async function parseMultipartToDisk(
  ctx: Koa.Context,
  limit: number,
  dir: string,
): Promise<MultipartBody | null> {
  await ensurePrivateDir(dir);
  let failure: Error | null = null;
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    patchNode: false,
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'HEAD'] as never,
    formidable: {
      uploadDir: dir,
      maxFileSize: limit,
      maxTotalFileSize: limit,
      maxFieldsSize: limit,
      maxFields: 1000,
      allowEmptyFiles: true,
      minFileSize: 0,
      hashAlgorithm: 'md5',
      keepExtensions: false,
    },
    onError: (error: Error) => {
      failure = error;
    },
  });
  await parse(ctx, async () => undefined);
  const files = (ctx.request as { files?: Record<string, FormidableFile | FormidableFile[]> }).files ?? {};
  const written = Object.values(files).flat();
  if (failure) {
    await Promise.all(written.map((file) => fsp.rm(file.filepath, { force: true })));
    if ((failure as { httpCode?: number }).httpCode === 413) throw bodyTooLarge('multipart', limit, null);
    return null;
  }
  const raw = ((ctx.request as { body?: Record<string, string | string[]> }).body ?? {}) as Record<
    string,
    string | string[]
  >;
  // No prototype, and no name that could name one (a field or file called `__proto__` is neither).
  const fieldLists: Record<string, string[]> = Object.create(null);
  const texts: [string, string][] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (isUnsafeKey(name.endsWith('[]') ? name.slice(0, -2) : name)) continue;
    const list = Array.isArray(value) ? value : [value];
    fieldLists[name] = list;
    for (const text of list) texts.push([name, text]);
  }
  const uploaded: MultipartBody['files'] = Object.create(null);
  for (const [name, value] of Object.entries(files)) {
    if (isUnsafeKey(name)) continue;
    // As PHP keeps one file per plain field name: the last.
    const file = Array.isArray(value) ? value[value.length - 1]! : value;
    uploaded[name] = {
      filepath: file.filepath,
      originalFilename: file.originalFilename ?? null,
      mimetype: file.mimetype ?? null,
      size: file.size,
      md5: file.hash ?? undefined,
    };
  }
  // Field names read as PHP reads them (`meta[key]`), as WordPress receives them in $_POST.
  return { fields: parseFields(texts), fieldLists, files: uploaded };
}

interface FormidableFile {
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
  hash?: string | null;
}

/** Every temporary file of a request's body, removed (after its answer). */
export async function removeBodyFiles(files: Iterable<{ filepath: string }>): Promise<void> {
  await Promise.all(
    [...files]
      .filter((file) => file.filepath !== '')
      .map((file) => fsp.rm(file.filepath, { force: true }).catch(() => undefined)),
  );
}

const ensured = new Set<string>();
async function ensurePrivateDir(dir: string): Promise<void> {
  if (ensured.has(dir)) return;
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  await fsp.chmod(dir, 0o700);
  ensured.add(dir);
}

/** A private directory for one process's upload files, when none is configured. */
export const defaultBodyDir = (): string => path.join(os.tmpdir(), `palimpsest-bodies-${process.pid}`);

/**
 * The bound on bodies in flight: a slot is taken before a body is read and given back once its request is
 * answered. Full, the request is refused at once with 503 and Retry-After (the server is busy for everyone, not this
 * client over a rate, so 429 would mislead), without reading its body.
 */
export class BodyGate {
  private all = 0;
  private anonymous = 0;

  constructor(private readonly limits: Pick<BodyLimits, 'inFlight' | 'anonymousInFlight'>) {}

  /** A release function, or null when the gate is full for this caller. */
  enter(anonymous: boolean): (() => void) | null {
    if (this.all >= this.limits.inFlight) return null;
    if (anonymous && this.anonymous >= this.limits.anonymousInFlight) return null;
    this.all++;
    if (anonymous) this.anonymous++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.all--;
      if (anonymous) this.anonymous--;
    };
  }

  get held(): { all: number; anonymous: number } {
    return { all: this.all, anonymous: this.anonymous };
  }
}

export const busy = (): RestError =>
  restError('rest_server_busy', 'The server is busy with other requests. Try again shortly.', 503);
