/**
 * BlobStore in an S3 bucket (BLOB_STORE=`s3://bucket/prefix`), through the AWS SDK, so any S3-compatible store
 * serves: AWS S3, MinIO, Ceph RGW, Cloudflare R2. Keys are stored under the prefix as they are.
 *
 * A new blob is written with `If-None-Match: *` (S3's conditional write), on the single PUT and on the completion
 * of a multipart upload alike: the store refuses it (412) when the name exists, so two processes never overwrite
 * each other's uploads and exactly one of them gets a contested name. A file on disk is streamed in parts
 * (@aws-sdk/lib-storage), never read whole. Before the first write the adapter checks, once per process, that the
 * server honours the condition (a store that ignores it would let uploads overwrite each other silently): it writes
 * a probe object twice under `<prefix>.palimpsest/`, which no key can name, and refuses every write if the second
 * one is accepted.
 *
 * Failures of the store itself (no connection, a timeout, a 5xx, throttling, refused credentials, a missing bucket)
 * become DependencyUnavailableError('media store'), which the HTTP edge answers 503 with Retry-After.
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobBody, BlobInfo, BlobStore } from '../../ports/blobStore';
import { assertSafeBlobKey, isBlobFile, isSafeBlobKey } from '../../ports/blobStore';
import { DependencyUnavailableError, isDependencyUnavailable } from '../../ports/unavailable';

export interface S3Settings {
  bucket: string;
  /** Prepended to every key: empty, or ending in `/`. */
  prefix: string;
  /** AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL): an S3-compatible store; requests then use path-style URLs. */
  endpoint: string | null;
  /** AWS_REGION; absent, the SDK's own chain decides (`us-east-1` when an endpoint is given and nothing says). */
  region: string | null;
}

/**
 * Timeouts of every request: connecting (3 s) and waiting for the answer's headers (30 s; an upload's part is sent
 * within it). A body being streamed to a client is not timed: a slow client holds its own download only.
 */
const REQUEST_HANDLER = { connectionTimeout: 3_000, requestTimeout: 30_000, throwOnRequestTimeout: true };

/** The client for these settings: credentials from the SDK's default provider chain, its standard retries. */
export function createS3Client(
  settings: Pick<S3Settings, 'endpoint' | 'region'>,
  overrides: S3ClientConfig = {},
): S3Client {
  return new S3Client({
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    ...(settings.region ? { region: settings.region } : {}),
    requestHandler: REQUEST_HANDLER,
    ...overrides,
  });
}

export interface S3BlobStoreOptions {
  client: S3Client;
  bucket: string;
  prefix?: string;
  /** Bytes per part of a multipart upload (at least S3's 5 MiB; default 5 MiB). */
  partSize?: number;
  /** Parts of one upload in flight at once (default 2): memory per upload is about partSize × (queueSize + 1). */
  queueSize?: number;
}

const MiB = 1024 * 1024;
/** Where the adapter's own objects go, under the prefix: no key can start with a dot. */
const INTERNAL = '.palimpsest/';
/** A conditional write that met another one in flight (409) is tried again this many times. */
const CONFLICT_RETRIES = 3;

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

const statusOf = (error: unknown): number | undefined => (error as SdkError | null)?.$metadata?.httpStatusCode;

/** Errors without an answer from the store that say it cannot be reached now. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EPROTO',
]);
const NETWORK_NAMES = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'CredentialsProviderError',
  'NetworkingError',
]);

/** Whether an error means the store is out of reach or refusing service (rather than a fault of the request). */
function isUnavailable(error: unknown): boolean {
  if (isDependencyUnavailable(error)) return true;
  const { name = '', code = '' } = (error ?? {}) as SdkError;
  const status = statusOf(error);
  if (status === undefined)
    return (
      NETWORK_CODES.has(code) || NETWORK_NAMES.has(name) || /socket hang up/i.test(String((error as Error)?.message))
    );
  return (
    status >= 500 ||
    status === 429 ||
    status === 401 ||
    status === 403 ||
    status === 301 ||
    status === 307 ||
    name === 'NoSuchBucket'
  );
}

export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const { client, bucket } = options;
  const prefix = options.prefix ?? '';
  if (prefix !== '' && !prefix.endsWith('/'))
    throw new Error(`S3 key prefix must be empty or end in "/": ${JSON.stringify(prefix)}`);
  const partSize = Math.max(5 * MiB, options.partSize ?? 5 * MiB);
  const queueSize = Math.max(1, options.queueSize ?? 2);
  const objectKey = (key: string) => `${prefix}${key}`;
  const where = `s3://${bucket}/${prefix}`;

  /** The store's failure as DependencyUnavailableError; anything else as it is. */
  const translate = (error: unknown, what: string): unknown =>
    isUnavailable(error) && !isDependencyUnavailable(error)
      ? new DependencyUnavailableError('media store', `S3 ${where} did not answer: ${what}: ${describe(error)}`, {
          cause: error,
        })
      : error;
  const send = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw translate(error, what);
    }
  };

  const stat = async (key: string): Promise<BlobInfo | null> => {
    if (!isSafeBlobKey(key)) return null;
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
      return { size: head.ContentLength ?? 0, etag: head.ETag ?? '""', lastModified: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw translate(error, `HEAD ${key}`);
    }
  };

  let conditionalWrites: Promise<void> | null = null;
  /** Once per process: does the server refuse a second create of one name? */
  const checkConditionalWrites = (): Promise<void> =>
    (conditionalWrites ??= (async () => {
      const probe = `${prefix}${INTERNAL}conditional-write-probe-${randomUUID()}`;
      const put = () =>
        client.send(new PutObjectCommand({ Bucket: bucket, Key: probe, Body: Buffer.from('probe'), IfNoneMatch: '*' }));
      let honoured = false;
      try {
        await put();
        try {
          await put();
        } catch (error) {
          if (statusOf(error) !== 412) throw error;
          honoured = true;
        }
      } finally {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: probe })).catch(() => undefined);
      }
      if (!honoured) {
        throw new Error(
          `the S3 store at ${where} does not honour "If-None-Match: *" on PUT (conditional writes): uploads could overwrite each other, so none is written. Use a store that supports conditional writes (AWS S3, MinIO, Ceph RGW, R2)`,
        );
      }
    })().catch((error: unknown) => {
      // An outage is tried again at the next write; a store without conditional writes stays refused.
      if (isUnavailable(error)) conditionalWrites = null;
      throw translate(error, 'checking conditional writes');
    }));

  const createOnce = async (key: string, body: BlobBody): Promise<void> => {
    const Key = objectKey(key);
    if (!isBlobFile(body)) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: body, IfNoneMatch: '*' }));
      return;
    }
    const stream = fs.createReadStream(body.path);
    try {
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key, Body: stream, ContentLength: body.size, IfNoneMatch: '*' },
        partSize,
        queueSize,
      });
      await upload.done();
    } finally {
      stream.destroy();
    }
  };

  return {
    async putNew(key, body) {
      assertSafeBlobKey(key);
      await checkConditionalWrites();
      // A file is not streamed to a name already taken; the conditional write decides a race all the same.
      if (isBlobFile(body) && (await stat(key)) !== null) return false;
      for (let attempt = 0; ; attempt++) {
        try {
          await createOnce(key, body);
          return true;
        } catch (error) {
          const status = statusOf(error);
          if (status === 412) return false;
          if (status === 409 && attempt < CONFLICT_RETRIES) continue;
          // Still contested: another writer holds the name.
          if (status === 409) return false;
          throw translate(error, `PUT ${key}`);
        }
      }
    },
    async get(key) {
      if (!isSafeBlobKey(key)) return null;
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        return Buffer.from(await object.Body!.transformToByteArray());
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw translate(error, `GET ${key}`);
      }
    },
    async has(key) {
      return (await stat(key)) !== null;
    },
    stat,
    async read(key, options = {}) {
      if (!isSafeBlobKey(key)) return null;
      const { range, etag } = options;
      try {
        const object = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: objectKey(key),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
            ...(etag !== undefined ? { IfMatch: etag } : {}),
          }),
        );
        const body = object.Body as Readable;
        // Checked here too: not every store honours If-Match on a read.
        if (etag !== undefined && object.ETag !== etag) {
          body.destroy();
          return null;
        }
        return body;
      } catch (error) {
        // Gone, or no longer the blob the etag names (412), or shorter than the range now (416).
        if ([404, 412, 416].includes(statusOf(error) ?? 0)) return null;
        throw translate(error, `GET ${key}`);
      }
    },
    async delete(key) {
      assertSafeBlobKey(key);
      await send(`DELETE ${key}`, () => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) })));
    },
    async *list() {
      let token: string | undefined;
      do {
        const page = await send('LIST', () =>
          client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token })),
        );
        for (const object of page.Contents ?? []) {
          const key = object.Key?.startsWith(prefix) ? object.Key.slice(prefix.length) : null;
          if (key === null || !isSafeBlobKey(key)) continue;
          yield {
            key,
            size: object.Size ?? 0,
            etag: object.ETag ?? '""',
            lastModified: object.LastModified ?? new Date(0),
          };
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    async close() {
      client.destroy();
    },
  };
}

function describe(error: unknown): string {
  const { name, code } = (error ?? {}) as SdkError;
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return [name, code, status !== undefined ? `HTTP ${status}` : null, message]
    .filter((part) => part && part !== 'Error')
    .join(': ');
}
