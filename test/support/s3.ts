/**
 * A real S3 server for tests: s3rver (an S3 implementation over the file system) on an ephemeral loopback port,
 * its files in a temporary directory, with one bucket. It can be stopped and started again on the same port with
 * the same files, as an outage of the store.
 *
 * s3rver predates S3's conditional writes: it ignores `If-None-Match: *` and overwrites. With `conditionalWrites`
 * (the default) a step before its routes answers such writes as S3, MinIO, Ceph RGW and R2 do: a PUT, or the
 * completion of a multipart upload, that carries `If-None-Match: *` for a key that exists gets 412
 * PreconditionFailed, and writes of one key are taken one at a time so that the check and the write cannot
 * interleave. Without it the server behaves as s3rver does, like a store without conditional writes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../src/adapters/s3/blobStore';

export interface TestS3 {
  /** `http://127.0.0.1:PORT`. */
  endpoint: string;
  bucket: string;
  /** A client for this server (path-style, s3rver's fixed credentials, no retries to wait out). */
  client(): S3Client;
  /** The server stops answering: connections are refused until `start`. */
  stop(): Promise<void>;
  /** Back on the same port, with every object it held. */
  start(): Promise<void>;
  /** Stops it and removes its files. */
  close(): Promise<void>;
}

/** s3rver's own account. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startTestS3(options: { conditionalWrites?: boolean; bucket?: string } = {}): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-s3-'));
  const bucket = options.bucket ?? 'media';
  let port = 0;
  let server: S3rver | null = null;
  const start = async () => {
    const next = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }],
    });
    if (options.conditionalWrites !== false) next.middleware.unshift(conditionalWrites(next));
    port = (await next.run()).port;
    server = next;
  };
  const stop = async () => {
    const running = server;
    server = null;
    if (!running?.httpServer) return;
    const closed = running.close();
    running.httpServer.closeAllConnections();
    await closed;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    client: () => createS3Client({ endpoint, region: 'us-east-1' }, { credentials: CREDENTIALS, maxAttempts: 1 }),
    stop,
    start,
    async close() {
      await stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** `If-None-Match: *` on a PUT of an object or a multipart completion, as S3 answers it (see above). */
function conditionalWrites(server: S3rver) {
  const writing = new Map<string, Promise<void>>();
  return async (ctx: any, next: () => Promise<void>): Promise<void> => {
    const isObjectPut = ctx.method === 'PUT' && ctx.query.partNumber === undefined && !ctx.get('x-amz-copy-source');
    const isCompletion = ctx.method === 'POST' && ctx.query.uploadId !== undefined;
    const match = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
    if (ctx.get('if-none-match') !== '*' || !(isObjectPut || isCompletion) || !match) return next();
    const [, bucket, encodedKey] = match;
    const key = decodeURIComponent(encodedKey!);
    const id = `${bucket}/${key}`;
    // One write of a key at a time: the check and the write it admits are never interleaved with another's.
    const before = writing.get(id) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const chain = before.then(() => mine);
    writing.set(id, chain);
    await before;
    try {
      if (await server.store.existsObject(bucket!, key)) {
        ctx.status = 412;
        ctx.type = 'application/xml';
        ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>`;
        return;
      }
      await next();
    } finally {
      done();
      if (writing.get(id) === chain) writing.delete(id);
    }
  };
}
