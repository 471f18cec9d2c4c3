/**
 * The S3 blob store against a real S3 server (s3rver on a loopback port, test/support/s3.ts): the shared contract,
 * each test under a prefix of its own in one bucket, then what is the adapter's own: the refusal of a store that
 * ignores conditional writes, outages as the media store's DependencyUnavailableError, and a prefix that keeps sites apart.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createS3BlobStore, createS3Client } from '../../src/adapters/s3/blobStore';
import { DependencyUnavailableError } from '../../src/ports/unavailable';
import { openBlobStore } from '../../src/bootstrap';
import { loadConfig } from '../../src/config';
import { blobStoreContract } from '../contracts/blobStore.contract';
import { startTestS3 } from '../support/s3';
import type { TestS3 } from '../support/s3';

const server = await startTestS3();

blobStoreContract('S3 (s3rver)', async () => {
  const client = server.client();
  const blobs = createS3BlobStore({ client, bucket: server.bucket, prefix: `contract-${randomUUID()}/` });
  return { blobs, cleanup: async () => blobs.close?.() };
});

const test = suite<{ s3?: TestS3 }>('S3 blob store');

test.after(async () => {
  await server.close();
});

test('a store that ignores If-None-Match is refused before anything is written', async () => {
  const plain = await startTestS3({ conditionalWrites: false });
  const blobs = createS3BlobStore({ client: plain.client(), bucket: plain.bucket, prefix: 'site/' });
  try {
    for (let i = 0; i < 2; i++) {
      const refused = await blobs.putNew('2024/05/a.jpg', Buffer.from('x')).then(
        () => null,
        (error: Error) => error,
      );
      assert.ok(refused, 'the write was accepted');
      assert.match(refused!.message, /does not honour "If-None-Match: \*"/);
      assert.not.instance(refused, DependencyUnavailableError);
    }
    assert.is(await blobs.has('2024/05/a.jpg'), false);
    const left: string[] = [];
    for await (const blob of blobs.list()) left.push(blob.key);
    assert.equal(left, [], 'the probe is removed');
  } finally {
    await blobs.close?.();
    await plain.close();
  }
});

test('while the server is down every operation fails as unavailable, and works again once it is back', async () => {
  const s3 = await startTestS3();
  const blobs = createS3BlobStore({ client: s3.client(), bucket: s3.bucket, prefix: 'site/' });
  try {
    assert.is(await blobs.putNew('2024/05/kept.txt', Buffer.from('kept')), true);
    await s3.stop();
    const outcomes = await Promise.allSettled([
      blobs.putNew('2024/05/new.txt', Buffer.from('new')),
      blobs.get('2024/05/kept.txt'),
      blobs.has('2024/05/kept.txt'),
      blobs.stat('2024/05/kept.txt'),
      blobs.read('2024/05/kept.txt'),
      blobs.delete('2024/05/kept.txt'),
      (async () => {
        for await (const _ of blobs.list()) break;
      })(),
    ]);
    for (const [i, outcome] of outcomes.entries()) {
      assert.is(outcome.status, 'rejected', `operation ${i} did not fail`);
      const reason = (outcome as PromiseRejectedResult).reason;
      assert.instance(reason, DependencyUnavailableError, `operation ${i}: ${reason}`);
      assert.is((reason as DependencyUnavailableError).dependency, 'media store');
    }
    await s3.start();
    assert.is((await blobs.get('2024/05/kept.txt'))!.toString(), 'kept', 'nothing was lost');
    assert.is(await blobs.has('2024/05/new.txt'), false, 'nothing was half written');
    assert.is(await blobs.putNew('2024/05/new.txt', Buffer.from('new')), true);
  } finally {
    await blobs.close?.();
    await s3.close();
  }
});

test('a store that refuses the credentials is unavailable, not a fault of the request', async () => {
  const client = createS3Client(
    { endpoint: server.endpoint, region: 'us-east-1' },
    { credentials: { accessKeyId: 'NOT-AN-ACCOUNT', secretAccessKey: 'S3RVER' }, maxAttempts: 1 },
  );
  const blobs = createS3BlobStore({ client, bucket: server.bucket, prefix: 'refused/' });
  try {
    for (const operation of [
      () => blobs.stat('2024/05/a.jpg'),
      () => blobs.putNew('2024/05/a.jpg', Buffer.from('x')),
    ]) {
      const error = await operation().then(
        () => null,
        (e: unknown) => e,
      );
      assert.instance(error, DependencyUnavailableError, String(error));
    }
  } finally {
    await blobs.close?.();
  }
});

test('prefixes keep sites apart in one bucket', async () => {
  const one = createS3BlobStore({ client: server.client(), bucket: server.bucket, prefix: 'one/' });
  const two = createS3BlobStore({ client: server.client(), bucket: server.bucket, prefix: 'two/' });
  try {
    assert.is(await one.putNew('2024/05/a.txt', Buffer.from('one')), true);
    assert.is(await two.putNew('2024/05/a.txt', Buffer.from('two')), true);
    assert.is((await one.get('2024/05/a.txt'))!.toString(), 'one');
    const keys: string[] = [];
    for await (const blob of two.list()) keys.push(blob.key);
    assert.equal(keys, ['2024/05/a.txt']);
  } finally {
    await one.close?.();
    await two.close?.();
  }
});

test("BLOB_STORE=s3://… opens the bucket with the SDK's standard settings from the environment", async () => {
  const saved = { ...process.env };
  const env = {
    BLOB_STORE: `s3://${server.bucket}/configured/site`,
    AWS_ENDPOINT_URL_S3: server.endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  // The SDK reads the credentials itself, from the process's environment.
  Object.assign(process.env, env);
  delete process.env.AWS_REGION;
  delete process.env.AWS_PROFILE;
  const blobs = await openBlobStore(loadConfig(env, '/srv'));
  try {
    assert.is(await blobs.putNew('2024/05/configured.txt', Buffer.from('configured')), true);
    const direct = createS3BlobStore({ client: server.client(), bucket: server.bucket, prefix: 'configured/site/' });
    assert.is(
      (await direct.get('2024/05/configured.txt'))!.toString(),
      'configured',
      'under the prefix, path-style at the endpoint',
    );
    await direct.close?.();
  } finally {
    await blobs.close?.();
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
});

test('a prefix must end in a slash', () => {
  assert.throws(
    () => createS3BlobStore({ client: server.client(), bucket: server.bucket, prefix: 'site' }),
    /end in "\/"/,
  );
});

test.run();
