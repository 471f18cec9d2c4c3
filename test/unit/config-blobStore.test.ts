/** BLOB_STORE: a directory (by default DATA_DIR/uploads) or an S3 bucket, with the AWS SDK's own settings. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config';

test('without BLOB_STORE uploads live in DATA_DIR/uploads', () => {
  assert.equal(loadConfig({}, '/srv/site').blobStore, { kind: 'file', root: '/srv/site/data/uploads' });
  assert.equal(loadConfig({ DATA_DIR: '/var/lib/p', BLOB_STORE: '' }, '/srv').blobStore, {
    kind: 'file',
    root: '/var/lib/p/uploads',
  });
});

test('file:///path names a directory, percent-encoding decoded', () => {
  assert.equal(loadConfig({ BLOB_STORE: 'file:///mnt/shared/media%20files' }, '/srv').blobStore, {
    kind: 'file',
    root: '/mnt/shared/media files',
  });
});

test('s3://bucket/prefix: the prefix ends in a slash, and an endpoint means path-style with a default region', () => {
  assert.equal(loadConfig({ BLOB_STORE: 's3://media' }, '/srv').blobStore, {
    kind: 's3',
    bucket: 'media',
    prefix: '',
    endpoint: null,
    region: null,
  });
  assert.equal(loadConfig({ BLOB_STORE: 's3://media/sites/one/', AWS_REGION: 'eu-west-3' }, '/srv').blobStore, {
    kind: 's3',
    bucket: 'media',
    prefix: 'sites/one/',
    endpoint: null,
    region: 'eu-west-3',
  });
  assert.equal(
    loadConfig({ BLOB_STORE: 's3://my.media-bucket/uploads', AWS_ENDPOINT_URL_S3: 'http://minio:9000' }, '/srv')
      .blobStore,
    {
      kind: 's3',
      bucket: 'my.media-bucket',
      prefix: 'uploads/',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
    },
  );
  // The service's own endpoint wins over the general one, as in the SDK.
  const both = loadConfig(
    {
      BLOB_STORE: 's3://media',
      AWS_ENDPOINT_URL: 'http://general:1',
      AWS_ENDPOINT_URL_S3: 'http://s3:2',
      AWS_REGION: 'auto',
    },
    '/srv',
  ).blobStore;
  assert.equal(both, { kind: 's3', bucket: 'media', prefix: '', endpoint: 'http://s3:2', region: 'auto' });
});

test('anything else is a configuration error naming BLOB_STORE', () => {
  for (const bad of [
    '/plain/path',
    'uploads',
    'http://example.org/media',
    'file://host/path',
    'file:///p?x=1',
    's3://',
    's3://UPPER/x',
    's3://a/x',
    's3://bucket:9000/x',
    's3://user:pw@bucket/x',
    's3://bucket/../x',
    's3://bucket/x?y=1',
    'ftp://bucket',
  ]) {
    assert.throws(
      () => loadConfig({ BLOB_STORE: bad }, '/srv'),
      (error: unknown) => error instanceof ConfigError && /BLOB_STORE/.test((error as Error).message),
      bad,
    );
  }
});

test.run();
